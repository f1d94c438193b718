"""The scripted model behind the fake upstream: it reads one part file per turn with the CLI's
shell tool, then finishes.

Part ``k`` of the workspace starts with ``HARNESS-PART k of N``; the model finds the highest
part number in the request's last two history items (the tail the proxy keeps verbatim, so a
compacted request still says where the session is) and asks for part ``k + 1``, or, after part
``N``, answers ``HARNESS-DONE``. It picks the tool by name from the tools the request offers
(Claude Code ``Bash``; Codex ``exec_command`` / ``shell_command`` / ``shell``, or with
``gpt-6.2-sol`` its JavaScript ``exec`` custom tool calling ``tools.exec_command``; Gemini CLI
``run_shell_command``), so it follows whatever the CLI version offers. Side requests with no
shell tool (titles, Gemini CLI's loop and next-speaker checks in JSON mode) get a short text or
a JSON object. An offline stand-in for a model: it reads no pages.
"""

from __future__ import annotations

import base64
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PART = re.compile(r"HARNESS-PART (\d+) of (\d+)")
DONE = "HARNESS-DONE"
#: How Claude Code words its own compaction request (the summary it asks for after a "prompt
#: is too long" reaches it).
SUMMARY_ASKED = re.compile(r"create a detailed summary of the conversation", re.I)
SHELL_TOOLS = ("Bash", "exec_command", "shell_command", "shell", "run_shell_command", "exec")
_WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
    "uniform",
    "victor",
    "whiskey",
    "xray",
    "yankee",
    "zulu",
]


def write_parts(folder: Path, parts: int, lines: int = 40) -> None:
    """``parts`` files of ``lines`` deterministic lines (~3.7 KB each) under ``folder``.

    Each but the last ends with the path of the next, which the next shell call names: the
    proxy's elision keeps a result a later step refers to, so old results have to be drawn as
    pages rather than elided, and the page rungs are exercised.
    """
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(1, parts + 1):
        rows = [f"HARNESS-PART {k} of {parts}"]
        for i in range(lines):
            words = " ".join(_WORDS[(k * 7 + i * 3 + j) % len(_WORDS)] for j in range(10))
            rows.append(f"part {k:02d} line {i:02d}: {words} {k * 1000 + i}")
        if k < parts:  # the next call names this path first seen here: a referenced result
            rows.append(f"next: {folder.name}/part{k + 1:02d}.txt")
        (folder / f"part{k:02d}.txt").write_text("\n".join(rows) + "\n", encoding="utf-8")


def tool_names(api: str, body: dict[str, Any]) -> list[str]:
    """The names of the tools a request offers, wherever the CLI puts them."""
    names: list[str] = []

    def take(tools: Any) -> None:
        for tool in tools if isinstance(tools, list) else []:
            if not isinstance(tool, dict):
                continue
            if isinstance(tool.get("name"), str):
                names.append(tool["name"])
            for decl in tool.get("functionDeclarations") or tool.get("function_declarations") or []:
                if isinstance(decl, dict) and isinstance(decl.get("name"), str):
                    names.append(decl["name"])
            if isinstance(tool.get("function"), dict):
                names.append(str(tool["function"].get("name")))
            take(tool.get("tools"))  # a namespace of tools

    take(body.get("tools"))
    for item in (body.get("input") or []) if api == "openai-responses" else []:
        if isinstance(item, dict) and item.get("type") == "additional_tools":
            take(item.get("tools"))
    return names


def _history(api: str, body: dict[str, Any]) -> list[Any]:
    key = {"anthropic": "messages", "openai-responses": "input", "gemini": "contents"}.get(
        api, "messages"
    )
    items = body.get(key)
    return items if isinstance(items, list) else []


def _arguments(tool: str, command: str, part: int) -> dict[str, Any]:
    if tool == "shell":
        return {"command": ["bash", "-lc", command]}
    if tool == "exec_command":
        return {"cmd": command}
    if tool == "Bash":
        return {"command": command, "description": f"Read part {part}"}
    if tool == "run_shell_command":
        return {"command": command, "description": f"Read part {part}"}
    return {"command": command}


@dataclass
class ScriptedModel:
    """A :data:`fake_upstream.ReplyMaker` that drives ``parts`` shell turns, then finishes."""

    parts: int
    folder: str = "parts"
    calls: int = 0  # shell calls asked for
    finished: int = 0  # closing answers given
    highest: int = 0  # the highest part number seen in a request
    side: int = 0  # requests with no shell tool
    summaries: int = 0  # the CLI's own compaction requests answered
    log: list[str] = field(default_factory=list)

    def __call__(self, api: str, body: dict[str, Any]) -> dict[str, Any]:
        names = tool_names(api, body)
        tool = next((t for t in SHELL_TOOLS if t in names), None)
        if tool is None:
            self.side += 1
            self.log.append(f"side request ({api}, tools: {names[:6]})")
            config = body.get("generationConfig") or {}
            if "json" in str(config.get("responseMimeType", "")):
                return {
                    "text": json.dumps(
                        {
                            "reasoning": "scripted stand-in: the task is going on",
                            "next_speaker": "user",
                            "confidence": 0.0,
                            "unproductive_state_confidence": 0.0,
                            "unproductive_state_analysis": "none",
                            # Gemini CLI's router: a high score keeps the default (pro) model
                            "complexity_reasoning": "scripted stand-in: a long multi-step task",
                            "complexity_score": 90,
                        }
                    )
                }
            return {"text": "Scripted harness session"}
        tail = json.dumps(_history(api, body)[-2:], ensure_ascii=False)
        seen = [int(m.group(1)) for m in PART.finditer(tail)]
        done = max(seen, default=0)
        self.highest = max(self.highest, done)
        if SUMMARY_ASKED.search(
            json.dumps(_history(api, body)[-1:])
        ):  # the CLI's own compaction (after a rejection got through)
            self.summaries += 1
            self.log.append(f"summary asked at part {self.highest}")
            return {
                "text": f"Summary: the task is reading the part files in order; the last one read "
                f"was HARNESS-PART {self.highest} of {self.parts}."
            }
        if done >= self.parts:
            self.finished += 1
            self.log.append(f"done after part {done}")
            return {"text": f"{DONE}: read all {self.parts} parts."}
        part = done + 1
        self.calls += 1
        self.log.append(f"call {tool} for part {part}")
        command = f"cat {self.folder}/part{part:02d}.txt"
        call_id = f"call_part{part:02d}_{self.calls:03d}"
        if api == "anthropic":
            call_id = f"toolu_01part{part:02d}x{self.calls:03d}"
        # Responses replies carry an opaque reasoning item, as reasoning models' do: the CLI
        # sends it back, and a proxy must too.
        extra: dict[str, Any] = {}
        if api == "openai-responses":
            extra = {"reasoning": f"enc-harness-{call_id}"}
        elif api == "gemini":  # Gemini 3 signs each model step; the CLI sends it back
            # A proto ``bytes`` field: canonical base64, as Gemini's own signatures are.
            signature = base64.b64encode(f"sig-harness-{part:02d}".encode()).decode()
            extra = {"signature": signature}
        if tool == "exec":
            script = (
                f"const r = await tools.exec_command({{cmd: {json.dumps(command)}}});\n"
                "text(typeof r === 'string' ? r : JSON.stringify(r));"
            )
            return {"custom_call": (tool, script, call_id), **extra}
        return {"call": (tool, _arguments(tool, command, part), call_id), **extra}


def published_image_tokens(api: str, width: int, height: int) -> int:
    """An image's input tokens by each provider's published rule (the fake's count of a page).

    Anthropic: width x height / 750 after fitting the long edge into 1568 px (Claude docs,
    "Vision: calculate image costs"). OpenAI (high detail): fit into 2048 x 2048, the short side
    down to 768, then 170 per 512 px tile + 85 (OpenAI docs, "Images and vision: calculating
    costs"). Gemini: 258 when both sides are at most 384 px, else 258 per 768 x 768 tile (Gemini
    API docs, "Understand and count tokens"). Read 2026-12 (harnesses-2026-12 era); the fake's
    flat 2500 per image overcounts Gemini's small tiles ~10x, so a session that draws pages for
    Gemini would look like a failed recovery when it is the fake's count.

    >>> published_image_tokens("anthropic", 1568, 728), published_image_tokens("gemini", 384, 384)
    (1523, 258)
    >>> published_image_tokens("openai-responses", 1568, 728), published_image_tokens("gemini", 1568, 728)
    (1445, 774)
    """
    if width <= 0 or height <= 0:
        return 2500
    if api == "anthropic":
        scale = min(1.0, 1568 / max(width, height))
        return math.ceil(width * scale * height * scale / 750)
    if api == "gemini":
        if width <= 384 and height <= 384:
            return 258
        return 258 * math.ceil(width / 768) * math.ceil(height / 768)
    scale = min(1.0, 2048 / max(width, height))
    w, h = width * scale, height * scale
    shrink = min(1.0, 768 / min(w, h))
    w, h = w * shrink, h * shrink
    return 170 * math.ceil(w / 512) * math.ceil(h / 512) + 85
