"""browser-use's own history file, ``AgentHistoryList`` (``agent.save_history(path)``).

``{"history": [step, ...]}``; each step is ``{"model_output", "result",
"state", "metadata"}``:

- ``state``: the browser the model was shown before acting (``url``,
  ``title``, ``tabs``, in v0.1 the page's ``items``), and the screenshot,
  inline (``screenshot``, base64) or as a file (``screenshot_path``).
- ``model_output``: the model's reply, ``current_state`` (v0.1) or flat
  (later): ``evaluation_previous_goal`` (v0.1 spells it
  ``valuation_previous_goal``), ``memory``, ``next_goal``, ``thinking``, and
  ``action``: one ``{name: params}`` object (v0.1) or a list of them.
  ``null`` when the model call failed.
- ``result``: the outcome of each action, one object (v0.1) or a list;
  ``result[i]`` answers ``action[i]`` (no ids), with ``extracted_content``,
  ``error`` and ``is_done``.

Each step becomes a user message (the state and screenshot), an assistant
message (the reply as text, ``thinking`` as thinking, each action a tool call
with id ``step<n>-action<i>``) and one tool message per answered action.
Results without an action (a step whose model output is ``null``) become user
text, as browser-use shows them in the next state. The task itself is not in
the file. A ``screenshot_path`` is read only inside the history file's
folder.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.formats._common import (
    image_from_bytes,
    image_from_file,
    pairing_warnings,
)
from snapshot.transcript.model import (
    Block,
    Conversation,
    ImageBlock,
    Message,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
)

_REPLY_FIELDS = (
    ("evaluation_previous_goal", "Evaluation of the previous goal"),
    ("valuation_previous_goal", "Evaluation of the previous goal"),
    ("memory", "Memory"),
    ("next_goal", "Next goal"),
)


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


class _Steps:
    def __init__(self, path: Path, name: str, spilled: bool) -> None:
        self.path = path
        self.name = name
        # A long history (a screenshot per step) keeps its messages on disk (spill.py).
        self.messages = spill.message_sink(spilled)
        self.last: str | None = None
        self.images = 0
        self.warns: list[str] = []

    def add(self, mid: str, role: Role, blocks: list[Block], meta: dict[str, Any]) -> None:
        self.messages.append(Message(mid, self.last, role, tuple(blocks), meta))
        self.last = mid
        self.images += sum(isinstance(b, ImageBlock) for b in blocks)

    def screenshot(self, state: Mapping[str, Any], at: str) -> Block | None:
        shot = state.get("screenshot")
        if isinstance(shot, str) and shot:
            try:
                return image_from_bytes(base64.b64decode(shot, validate=False), "screenshot")
            except (binascii.Error, ValueError, TranscriptError) as exc:
                self.warns.append(f"{at}: screenshot dropped: {exc}")
                return TextBlock(f"[screenshot not kept: {exc}]")
        ref = state.get("screenshot_path")
        if not isinstance(ref, str) or not ref:
            return None
        folder = self.path.parent.resolve()
        target = (folder / ref).resolve()
        if not target.is_relative_to(folder) or not target.is_file():
            self.warns.append(f"{at}: screenshot {ref} is not inside {folder}; kept as its name")
            return TextBlock(f"[screenshot: {ref}]")
        try:
            return image_from_file(target, "screenshot")
        except TranscriptError as exc:
            self.warns.append(f"{at}: screenshot dropped: {exc}")
            return TextBlock(f"[screenshot not kept: {exc}]")

    def state_text(self, state: Mapping[str, Any]) -> str:
        lines = [f"Current url: {state.get('url') or ''}", f"Title: {state.get('title') or ''}"]
        tabs = [t for t in _as_list(state.get("tabs")) if isinstance(t, Mapping)]
        if tabs:
            lines.append("Open tabs:")
            lines.extend(f"- {t.get('title') or ''} ({t.get('url') or ''})" for t in tabs)
        items = [i for i in _as_list(state.get("items")) if isinstance(i, Mapping)]
        if items:
            lines.append("Page elements:")
            lines.extend(f"[{i.get('index')}] {i.get('text') or ''}" for i in items)
        return "\n".join(lines)

    def step(self, n: int, step: Any) -> None:
        at = f"{self.path}: step {n}"
        if not isinstance(step, Mapping):
            self.warns.append(f"{at}: not an object; skipped")
            return
        meta: dict[str, Any] = {"step": n}
        md = step.get("metadata")
        if isinstance(md, Mapping):
            meta.update({k: md[k] for k in ("step_number", "step_start_time") if k in md})
        state = step.get("state") if isinstance(step.get("state"), Mapping) else {}
        assert isinstance(state, Mapping)
        blocks: list[Block] = [TextBlock(self.state_text(state))]
        shot = self.screenshot(state, at)
        if shot is not None:
            blocks.append(shot)
        self.add(f"s{n}-state", "user", blocks, {**meta, "kind": "browser_state"})
        calls = self.reply(n, step.get("model_output"), meta)
        results = _as_list(step.get("result"))
        unanswered: list[str] = []
        for i, res in enumerate(results):
            if not isinstance(res, Mapping):
                continue
            text, error = _result_text(res)
            if i < len(calls):
                content = (TextBlock(text),) if text else ()
                self.add(
                    f"s{n}-result{i}", "tool", [ToolResult(calls[i], content, error)], dict(meta)
                )
            elif text:
                unanswered.append(text)
        if unanswered:
            self.add(
                f"s{n}-results",
                "user",
                [TextBlock("\n".join(unanswered))],
                {**meta, "kind": "action_result"},
            )

    def reply(self, n: int, out: Any, meta: dict[str, Any]) -> list[str]:
        if not isinstance(out, Mapping):
            return []
        current = out.get("current_state") if isinstance(out.get("current_state"), Mapping) else out
        assert isinstance(current, Mapping)
        blocks: list[Block] = []
        if isinstance(current.get("thinking"), str) and current["thinking"]:
            blocks.append(ThinkingBlock(current["thinking"]))
        lines = [
            f"{label}: {current[key]}"
            for key, label in _REPLY_FIELDS
            if isinstance(current.get(key), str) and current[key]
        ]
        if lines:
            blocks.append(TextBlock("\n".join(lines)))
        ids: list[str] = []
        for i, action in enumerate(_as_list(out.get("action"))):
            if not isinstance(action, Mapping) or not action:
                continue
            name, params = next(iter(action.items()))
            call_id = f"step{n}-action{i}"
            ids.append(call_id)
            args = dict(params) if isinstance(params, Mapping) else {"_arguments": params}
            blocks.append(ToolCall(call_id, str(name), args))
        self.add(f"s{n}-reply", "assistant", blocks, dict(meta))
        return ids


def _result_text(res: Mapping[str, Any]) -> tuple[str, bool]:
    parts = []
    if res.get("extracted_content"):
        parts.append(str(res["extracted_content"]))
    if res.get("error"):
        parts.append(f"Error: {res['error']}")
    if res.get("is_done") and not parts:
        parts.append("done")
    return "\n".join(parts), bool(res.get("error"))


def conversation_from_history(history: Iterable[Any], path: Path, name: str) -> Conversation:
    """One conversation from the steps of an ``AgentHistoryList`` document, read one at a time.

    The messages are kept on disk when the file is at least ``SPILL_BYTES``.
    """
    steps = _Steps(path, name, path.stat().st_size >= spill.SPILL_BYTES)
    n = 0
    for n, step in enumerate(history, 1):
        steps.step(n - 1, step)
    steps.warns.extend(pairing_warnings(steps.messages, str(path)))
    return Conversation(
        id=path.stem,
        messages=spill.frozen(steps.messages),
        tip=steps.last,
        format=name,
        source=str(path),
        meta={"shape": "AgentHistoryList", "steps": n, "screenshots": steps.images},
        warnings=tuple(steps.warns),
    )
