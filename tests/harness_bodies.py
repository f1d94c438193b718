"""Request bodies shaped like the three agent CLIs' (and a plain chat agent's), built here.

What each holds follows ``shared/docs/harnesses-2026-12.md`` (observed from Claude
Code 2.1.332, Codex CLI 0.171.0 and Gemini CLI 0.61.0 against local fakes): Claude
Code's ``role: "system"`` environment message inside ``messages``, thinking blocks
with signatures and ``cache_control`` on the newest message; Codex's ``developer``
messages, ``additional_tools`` item, ``reasoning`` items with ``encrypted_content``,
``custom_tool_call`` (apply_patch), item ``id``/``status``, ``prompt_cache_key`` and
two leading user messages; Gemini CLI's ``systemInstruction``, ``tools``,
``generationConfig`` and ``thoughtSignature`` on model parts. The text is made up
here (no shared file is copied); sizes are scaled down so a test crosses a small
``--window`` in a few dozen turns.

Each builder is a growing session: :meth:`Session.body` is the request for the
turns so far, and a reply (what the fake upstream answered) is appended with
:meth:`Session.answer`. Markers (``TURN-n``) let a test find every turn's text.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any


def tool_output(turn: int, lines: int = 40) -> str:
    """A tool result of a few KB, different every turn."""
    return "\n".join(
        f"src/mod{turn}.py:{i}: def handler_{turn}_{i}(value): return value * {turn + i}  # TURN-{turn}"
        for i in range(lines)
    )


@dataclass
class Session:
    """One harness's request body, grown a turn at a time."""

    api: str  # anthropic | openai | openai-responses | gemini
    model: str
    base: dict[str, Any]
    history: list[Any] = field(default_factory=list)
    turns: int = 0

    def body(self) -> dict[str, Any]:
        body = copy.deepcopy(self.base)
        key = {"anthropic": "messages", "openai": "messages", "openai-responses": "input"}.get(
            self.api, "contents"
        )
        body[key] = copy.deepcopy(self.history)
        if self.api == "anthropic":
            _move_cache_marker(body[key])
        return body

    def raw(self) -> bytes:
        """The body as the CLI writes it (compact JSON, its own key order)."""
        return json.dumps(self.body(), ensure_ascii=False, separators=(",", ":")).encode()


def _move_cache_marker(messages: list[Any]) -> None:
    """Claude Code moves its ``cache_control`` marker to the newest message every turn."""
    last = messages[-1]
    if isinstance(last.get("content"), str):
        last["content"] = [{"type": "text", "text": last["content"]}]
    last["content"][-1]["cache_control"] = {"type": "ephemeral"}


# -- Claude Code (Anthropic Messages) ------------------------------------------------------


def claude_code(model: str = "claude-opus-5-5") -> Session:
    tools = [
        {
            "name": name,
            "description": f"{name}: a tool of the agent. " + "Use it carefully. " * 20,
            "input_schema": {
                "type": "object",
                "properties": {"command": {"type": "string"}, "path": {"type": "string"}},
                "required": ["command"],
            },
        }
        for name in ("Bash", "Read", "Edit", "Write", "Glob", "Grep")
    ]
    base = {
        "model": model,
        "max_tokens": 32000,
        "stream": True,
        "system": [
            {"type": "text", "text": "You are Claude Code, a coding agent."},
            {
                "type": "text",
                "text": "Follow the repository's conventions. " * 30,
                "cache_control": {"type": "ephemeral"},
            },
        ],
        "tools": tools,
        "metadata": {"user_id": "user_0a1b2c_account__session_5d6e7f"},
        "thinking": {"type": "enabled", "budget_tokens": 4000},
    }
    s = Session("anthropic", model, base)
    s.history = [
        {
            "role": "system",
            "content": "<env>Working directory: /work/app\nPlatform: linux\nToday: 2026-12-06</env>",
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "<system-reminder>CLAUDE.md: use pytest</system-reminder>",
                },
                {"type": "text", "text": "TASK: find every handler and list them. TURN-0"},
            ],
        },
    ]
    return s


def claude_code_step(s: Session) -> None:
    """One agent step: thinking + a Bash call, its result (a mid-session system note every 7)."""
    n = s.turns = s.turns + 1
    s.history.append(
        {
            "role": "assistant",
            "content": [
                {
                    "type": "thinking",
                    "thinking": f"Look at module {n}.",
                    "signature": f"sig{n:04d}" * 8,
                },
                {"type": "text", "text": f"Reading module {n}. TURN-{n}"},
                {
                    "type": "tool_use",
                    "id": f"toolu_{n:04d}",
                    "name": "Bash",
                    "input": {"command": f"cat src/mod{n}.py"},
                },
            ],
        }
    )
    content: list[Any] = [
        {"type": "tool_result", "tool_use_id": f"toolu_{n:04d}", "content": tool_output(n)}
    ]
    s.history.append({"role": "user", "content": content})
    if n % 7 == 0:
        s.history.append(
            {
                "role": "system",
                "content": f"<system-reminder>step {n}: todo list unchanged</system-reminder>",
            }
        )


# -- Codex (OpenAI Responses) --------------------------------------------------------------


def codex(model: str = "gpt-6.2-sol") -> Session:
    base = {
        "model": model,
        "instructions": "You are Codex, a coding agent running in a terminal.",
        "tool_choice": "auto",
        "parallel_tool_calls": False,
        "reasoning": {"effort": "medium", "summary": "auto"},
        "store": False,
        "stream": True,
        "include": ["reasoning.encrypted_content"],
        "prompt_cache_key": "019b0c1d-2e3f-7a4b-8c5d-6e7f8a9b0c1d",
    }
    s = Session("openai-responses", model, base)
    s.history = [
        {
            "type": "message",
            "role": "developer",
            "content": [
                {
                    "type": "input_text",
                    "text": "<permissions>sandbox: danger-full-access</permissions>"
                    + " rule." * 200,
                }
            ],
        },
        {
            "type": "additional_tools",
            "tools": [
                {
                    "type": "function",
                    "name": "shell",
                    "description": "Run a command",
                    "strict": False,
                    "parameters": {
                        "type": "object",
                        "properties": {"command": {"type": "array", "items": {"type": "string"}}},
                    },
                },
                {"type": "custom", "name": "apply_patch", "description": "Apply a patch"},
            ],
        },
        {
            "type": "message",
            "role": "user",
            "content": [
                {
                    "type": "input_text",
                    "text": "<environment_context>\n  <cwd>/work/app</cwd>\n</environment_context>",
                }
            ],
        },
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "TASK: list every handler in src/. TURN-0"}],
        },
    ]
    return s


def codex_step(s: Session) -> None:
    """Reasoning + a shell call (every third step an apply_patch custom call) and its output."""
    n = s.turns = s.turns + 1
    s.history.append(
        {
            "type": "reasoning",
            "id": f"rs_{n:04d}",
            "summary": [{"type": "summary_text", "text": f"**Reading module {n}** TURN-{n}"}],
            "encrypted_content": f"gAAAAB{n:04d}" + "Zm9v" * 60,
        }
    )
    if n % 3 == 0:
        s.history.append(
            {
                "type": "custom_tool_call",
                "id": f"ctc_{n:04d}",
                "status": "completed",
                "call_id": f"call_{n:04d}",
                "name": "apply_patch",
                "input": f"*** Begin Patch\n*** Update File: src/mod{n}.py\n+# TURN-{n}\n*** End Patch",
            }
        )
        s.history.append(
            {
                "type": "custom_tool_call_output",
                "call_id": f"call_{n:04d}",
                "output": "Success. Updated: " + tool_output(n, 30),
            }
        )
    else:
        s.history.append(
            {
                "type": "function_call",
                "id": f"fc_{n:04d}",
                "status": "completed",
                "call_id": f"call_{n:04d}",
                "name": "shell",
                "arguments": json.dumps({"command": ["cat", f"src/mod{n}.py"]}),
            }
        )
        s.history.append(
            {"type": "function_call_output", "call_id": f"call_{n:04d}", "output": tool_output(n)}
        )
    if n % 10 == 0:
        s.history.append(
            {
                "type": "message",
                "id": f"msg_{n:04d}",
                "status": "completed",
                "role": "assistant",
                "content": [
                    {
                        "type": "output_text",
                        "text": f"Progress at step {n}. TURN-{n}",
                        "annotations": [],
                    }
                ],
            }
        )
        s.history.append(
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": f"<note>step {n}</note>"}],
            }
        )


# -- Gemini CLI (generateContent) ------------------------------------------------------------


def gemini_cli(model: str = "gemini-3.1-pro-preview") -> Session:
    base = {
        "systemInstruction": {
            "role": "user",
            "parts": [{"text": "You are Gemini CLI, an agent. " * 20}],
        },
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "read_file",
                        "description": "Read a file",
                        "parametersJsonSchema": {
                            "type": "object",
                            "properties": {"absolute_path": {"type": "string"}},
                        },
                    },
                    {
                        "name": "run_shell_command",
                        "description": "Run a command",
                        "parametersJsonSchema": {
                            "type": "object",
                            "properties": {"command": {"type": "string"}},
                        },
                    },
                ]
            }
        ],
        "generationConfig": {"temperature": 1, "thinkingConfig": {"includeThoughts": True}},
    }
    s = Session("gemini", model, base)
    s.history = [
        {
            "role": "user",
            "parts": [
                {"text": "This is the Gemini CLI. Context: /work/app"},
                {"text": "TASK: list every handler in src/. TURN-0"},
            ],
        },
    ]
    return s


def gemini_step(s: Session) -> None:
    n = s.turns = s.turns + 1
    s.history.append(
        {
            "role": "model",
            "parts": [
                {"text": f"Reading module {n}. TURN-{n}", "thought": True},
                {
                    "functionCall": {
                        "name": "read_file",
                        "args": {"absolute_path": f"/work/app/src/mod{n}.py"},
                    },
                    "thoughtSignature": f"CiQB{n:04d}" + "c2ln" * 20,
                },
            ],
        }
    )
    s.history.append(
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": f"read_file-{n}",
                        "name": "read_file",
                        "response": {"output": tool_output(n)},
                    }
                }
            ],
        }
    )


# -- a plain chat-completions agent -------------------------------------------------------------


def chat_agent(model: str = "gpt-5.2-codex") -> Session:
    base = {
        "model": model,
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "read_file",
                    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
                },
            }
        ],
        "temperature": 0.2,
    }
    s = Session("openai", model, base)
    s.history = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "TASK: list every handler. TURN-0"},
    ]
    return s


def chat_step(s: Session) -> None:
    n = s.turns = s.turns + 1
    s.history.append(
        {
            "role": "assistant",
            "content": f"Reading module {n}. TURN-{n}",
            "tool_calls": [
                {
                    "id": f"call_{n:04d}",
                    "type": "function",
                    "function": {
                        "name": "read_file",
                        "arguments": json.dumps({"path": f"src/mod{n}.py"}),
                    },
                }
            ],
        }
    )
    s.history.append({"role": "tool", "tool_call_id": f"call_{n:04d}", "content": tool_output(n)})
    if n % 9 == 0:
        s.history.append({"role": "developer", "content": f"step {n}: keep going"})


BUILDERS = {
    "claude-code": (claude_code, claude_code_step),
    "codex": (codex, codex_step),
    "gemini-cli": (gemini_cli, gemini_step),
    "chat-agent": (chat_agent, chat_step),
}
