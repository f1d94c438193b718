"""The documented rules no published schema holds, checked on a request body.

- roles in the order the provider wants;
- every tool call answered by the next turn, and no result without its call;
- call ids and tool names matching the provider's patterns, every called tool declared
  (not for Gemini, which documents no such rule);
- Anthropic's ``role: "system"`` messages only right after a user turn;
- no empty text blocks;
- images whose media type matches their bytes, within the provider's size and count limits;
- Gemini 3: a ``thoughtSignature`` on the current turn's function calls.

Each body shape is first read into turns (:mod:`snapshot.transcript.validate.turns`),
so one rule is one function over turns, written once for every provider.

>>> body = {"model": "m", "max_tokens": 1, "messages": [
...     {"role": "assistant", "content": [{"type": "text", "text": "hi"}]}]}
>>> [p.rule for p in check_rules(body, "anthropic")]
['role-order']
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterator
from itertools import pairwise
from typing import Any

from snapshot.transcript.validate.problems import Problem
from snapshot.transcript.validate.turns import Item, Turn, turns_of

SOURCE = "documented rule"

#: The dummy signature Google documents for function calls Gemini 3 did not
#: produce (a history from another model, or calls injected by the client):
#: https://ai.google.dev/gemini-api/docs/thought-signatures (FAQ), and
#: https://cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures
#: ("set thought_signature to skip_thought_signature_validator"); checked 2026-12-01.
GEMINI_SIGNATURE_SENTINEL = "skip_thought_signature_validator"

# Id and name patterns, per provider (source: each API's reference, as written
# in the error messages it returns; checked 2026-12-01).
_PATTERNS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    # Anthropic: tool_use.id ^[a-zA-Z0-9_-]+$, tool name ^[a-zA-Z0-9_-]{1,64}$.
    "anthropic": (re.compile(r"^[A-Za-z0-9_-]+$"), re.compile(r"^[A-Za-z0-9_-]{1,64}$")),
    # OpenAI: function name ^[a-zA-Z0-9_-]{1,64}$; tool call ids at most 40 characters.
    "openai": (re.compile(r"^.{1,40}$", re.S), re.compile(r"^[A-Za-z0-9_-]{1,64}$")),
    "openai-responses": (re.compile(r"^.{1,64}$", re.S), re.compile(r"^[A-Za-z0-9_-]{1,64}$")),
    # Gemini: a name starts with a letter or underscore; letters, digits, _ . : - up to 64.
    "gemini": (re.compile(r"^.{1,256}$", re.S), re.compile(r"^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$")),
}

# The rules that are a provider's request limits (images per request, bytes).
LIMIT_RULES = frozenset({"image-count", "image-size", "request-size"})

# Which billing route's limits each shape answers to.
ROUTES = {
    "anthropic": "anthropic",
    "openai": "openai",
    "openai-responses": "openai",
    "gemini": "google",
}

_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def sniff_media_type(data: bytes) -> str | None:
    """The image media type the bytes' magic number says, or None.

    >>> sniff_media_type(b"\\x89PNG\\r\\n\\x1a\\n....")
    'image/png'
    >>> sniff_media_type(b"RIFF\\0\\0\\0\\0WEBPVP8 ") , sniff_media_type(b"hello")
    ('image/webp', None)
    """
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


# --- the rules ----------------------------------------------------------------------------


#: Anthropic takes ``role: "system"`` messages inside ``messages`` right after a user turn
#: ("Mid-conversation system messages", platform.claude.com/docs/en/build-with-claude/
#: mid-conversation-system-messages, and the SDK's ``SystemMessageParam``; read 2026-12-06).
#: Claude Code's default models send its environment block so, after the first user message.
#: A run of them after one user turn is not documented either way: it is let through (the
#: proxy can leave two of Claude Code's system reminders side by side after its pages).
_ANTHROPIC_SYSTEM = "system"


def _role_order(turns: list[Turn], shape: str) -> Iterator[Problem]:
    if shape in ("anthropic", "gemini"):
        model = "assistant" if shape == "anthropic" else "model"
        if turns and turns[0].role != "user":
            yield Problem(
                turns[0].where,
                "role-order",
                f"the first turn is {turns[0].role!r}, not 'user'",
                SOURCE,
            )
        spoken = turns[0].role if turns else "user"  # the last turn that is not system
        for prev, turn in pairwise(turns):
            if shape == "anthropic" and turn.role == _ANTHROPIC_SYSTEM:
                if spoken != "user":
                    yield Problem(
                        turn.where,
                        "role-order",
                        f"a system message follows a {spoken!r} turn, not a user turn",
                        SOURCE,
                    )
                continue
            spoken = turn.role
            if turn.role not in ("user", model):
                yield Problem(
                    turn.where, "role-order", f"role {turn.role!r} is not user or {model}", SOURCE
                )
            elif turn.role == prev.role and shape == "gemini":
                # Gemini answers 400 INVALID_ARGUMENT "Please ensure that multiturn requests
                # alternate between user and model" (reported against generateContent as
                # late as 2026-06: NousResearch/hermes-agent#55125). Anthropic combines
                # consecutive user or assistant turns into one (Messages reference).
                yield Problem(turn.where, "role-order", f"two {turn.role} turns in a row", SOURCE)
    if shape == "anthropic" and turns:
        last = turns[-1]
        final = last.items[-1] if last.role == "assistant" and last.items else None
        if final is not None and final.kind == "text" and final.text != final.text.rstrip():
            yield Problem(
                final.where,
                "trailing-whitespace",
                "a final assistant turn may not end in whitespace",
                SOURCE,
            )


def _pairs_next_turn(turns: list[Turn], shape: str) -> Iterator[Problem]:
    """Anthropic and Gemini: the calls of a turn are answered by the next turn, results first."""
    for i, turn in enumerate(turns):
        results = turn.of("result")
        prev_calls = turns[i - 1].of("call") if i > 0 else []
        if results and shape == "anthropic":
            first_other = next((k for k, it in enumerate(turn.items) if it.kind != "result"), None)
            last_result = max(k for k, it in enumerate(turn.items) if it.kind == "result")
            if (
                first_other is not None
                and first_other < last_result
                and turn.items[first_other].where.count(".content[") == 1
            ):
                yield Problem(
                    turn.where,
                    "results-first",
                    "tool_result blocks must come before other content",
                    SOURCE,
                )
        if shape == "gemini":
            want = [c.name for c in prev_calls]
            got = [r.name for r in results]
            if sorted(map(str, want)) != sorted(map(str, got)):
                where = results[0].where if results else turn.where
                yield Problem(
                    where,
                    "unanswered-call" if len(want) > len(got) else "orphan-result",
                    f"model calls {want} answered by function responses {got}",
                    SOURCE,
                )
            continue
        want_ids = [c.id for c in prev_calls]
        got_ids = [r.id for r in results if r.where.count(".content[") <= 1]
        for r in results:
            if r.id not in want_ids:
                yield Problem(
                    r.where,
                    "orphan-result",
                    f"result for {r.id!r} answers no call of the previous turn",
                    SOURCE,
                )
        for c in prev_calls:
            if c.id not in got_ids:
                yield Problem(
                    c.where,
                    "unanswered-call",
                    f"call {c.id!r} ({c.name}) is not answered by the next turn",
                    SOURCE,
                )


def _pairs_openai(turns: list[Turn], shape: str) -> Iterator[Problem]:
    """Chat: tool messages right after their assistant message. Responses: outputs after calls."""
    open_calls: dict[str, Item] = {}
    for turn in turns:
        if turn.role == "tool":
            for r in turn.of("result"):
                if r.id in open_calls:
                    del open_calls[str(r.id)]
                else:
                    yield Problem(
                        r.where,
                        "orphan-result",
                        f"output for {r.id!r} follows no open call",
                        SOURCE,
                    )
            continue
        calls = turn.of("call")
        if shape == "openai-responses" and calls and not turn.of("text"):
            open_calls.update({str(c.id): c for c in calls})
            continue
        for c in open_calls.values():
            yield Problem(
                c.where,
                "unanswered-call",
                f"call {c.id!r} ({c.name}) has no result before {turn.where}",
                SOURCE,
            )
        open_calls = {str(c.id): c for c in calls}
    # Calls in the last turn are a request for the next step only in chat; a history's
    # trailing calls with no output are refused by Responses too.
    if shape == "openai-responses":
        for c in open_calls.values():
            yield Problem(
                c.where, "unanswered-call", f"call {c.id!r} ({c.name}) has no output", SOURCE
            )


def _declared_tools(body: dict[str, Any], shape: str) -> set[str] | None:
    tools = body.get("tools")
    if not isinstance(tools, list):
        return None
    names: set[str] = set()
    for t in tools:
        if shape == "gemini":
            names.update(str(d.get("name")) for d in t.get("functionDeclarations") or [])
        elif shape == "openai":
            names.add(str((t.get("function") or {}).get("name")))
        else:
            names.add(str(t.get("name")))
    return names


def _ids_and_names(body: dict[str, Any], turns: list[Turn], shape: str) -> Iterator[Problem]:
    id_ok, name_ok = _PATTERNS[shape]
    declared = _declared_tools(body, shape) or set()
    for name in sorted(declared):
        if not name_ok.match(name):
            yield Problem(
                "tools", "tool-name", f"tool name {name!r} does not match {name_ok.pattern}", SOURCE
            )
    seen: set[str] = set()
    for turn in turns:
        for c in turn.of("call"):
            if c.id is not None or shape != "gemini":
                if not isinstance(c.id, str) or not id_ok.match(c.id):
                    yield Problem(
                        c.where,
                        "call-id",
                        f"call id {c.id!r} does not match {id_ok.pattern}",
                        SOURCE,
                    )
                elif c.id in seen and shape != "gemini":
                    yield Problem(c.where, "call-id", f"call id {c.id!r} is used twice", SOURCE)
                seen.add(str(c.id))
            if not isinstance(c.name, str) or not name_ok.match(c.name):
                yield Problem(
                    c.where,
                    "tool-name",
                    f"tool name {c.name!r} does not match {name_ok.pattern}",
                    SOURCE,
                )
            elif c.name not in declared and shape != "gemini":
                # Gemini documents no such rule, and Gemini CLI's own loop check sends
                # its history's calls to the API with no tools declared.
                yield Problem(
                    c.where,
                    "tool-declared",
                    f"tool {c.name!r} is called but not declared in tools",
                    SOURCE,
                )


def _no_content(turn: Turn) -> bool:
    """No call, no image and no text but whitespace."""
    return (
        not turn.of("call")
        and not turn.of("image")
        and not any(t.text.strip() for t in turn.of("text"))
    )


def _no_empty_text(turns: list[Turn], shape: str) -> Iterator[Problem]:
    for turn in turns:
        if shape in ("anthropic", "gemini") and not turn.items:
            yield Problem(turn.where, "empty-turn", "a turn with no content", SOURCE)
        if shape == "openai" and turn.role == "assistant" and _no_content(turn):
            # The chat API refuses an assistant message with neither content nor
            # tool_calls ("content is required unless tool_calls is given").
            yield Problem(turn.where, "empty-turn", "an assistant message with no content", SOURCE)
            continue
        for t in turn.of("text"):
            if shape == "openai" and turn.role == "assistant" and turn.of("call"):
                continue  # chat takes an empty assistant content beside tool_calls
            if not t.text.strip():
                yield Problem(t.where, "empty-text", "an empty text block", SOURCE)


def _images(body: dict[str, Any], turns: list[Turn], shape: str) -> Iterator[Problem]:
    from snapshot.billing.providers import limit_facts_for

    route = ROUTES[shape]
    limits = {f.field: f.value for f in limit_facts_for(route)}
    images = [i for t in turns for i in t.of("image")]
    for img in images:
        raw: bytes | None = None
        try:
            # Gemini's JSON (proto3 bytes) takes URL-safe base64 too; google-genai sends it.
            alt = b"-_" if shape == "gemini" else None
            raw = base64.b64decode(img.data or "", altchars=alt, validate=True)
        except (binascii.Error, ValueError):
            yield Problem(img.where, "image-data", "image data is not valid base64", SOURCE)
        if raw is not None:
            actual = sniff_media_type(raw[:16])
            if actual != img.media_type:
                yield Problem(
                    img.where,
                    "image-media-type",
                    f"declared {img.media_type}, bytes are {actual or 'not an image'}",
                    SOURCE,
                )
        size = len(img.data or "")
        cap = limits.get("max_image_bytes")
        if cap is not None and size > cap:
            yield Problem(
                img.where,
                "image-size",
                f"{size:,} bytes of base64 exceed {route}'s {cap:,} per image",
                SOURCE,
            )
    cap = limits.get("max_images")
    if cap is not None and len(images) > cap:
        yield Problem(
            "(body)",
            "image-count",
            f"{len(images)} images exceed {route}'s {cap} per request",
            SOURCE,
        )
    cap = limits.get("max_request_bytes")
    if cap is not None:
        total = len(json.dumps(body, ensure_ascii=False).encode())
        if total > cap:
            yield Problem(
                "(body)",
                "request-size",
                f"the body is {total:,} bytes; {route} takes at most {cap:,}",
                SOURCE,
            )


def is_gemini_3(model: str | None) -> bool:
    """Whether Gemini 3's signature rule applies (an unnamed model is held to it)."""
    return model is None or model.removeprefix("models/").startswith("gemini-3")


def current_turn_start(turns: list[Turn]) -> int:
    """Index of the user turn that opened the current turn: its last with content other than function responses."""
    for i in range(len(turns) - 1, -1, -1):
        t = turns[i]
        if t.role == "user" and any(it.kind != "result" for it in t.items) and not t.of("result"):
            return i
    return 0


def _gemini_signatures(turns: list[Turn], model: str | None) -> Iterator[Problem]:
    if not is_gemini_3(model):
        return
    for turn in turns[current_turn_start(turns) :]:
        calls = turn.of("call")
        if turn.role == "model" and calls and not calls[0].signed:
            yield Problem(
                calls[0].where,
                "thought-signature",
                "Gemini 3 refuses a current-turn function call without a thoughtSignature",
                SOURCE,
            )


def check_rules(body: Any, shape: str, *, model: str | None = None) -> list[Problem]:
    """Every documented-rule problem of a ``shape`` body (see the module docstring)."""
    if not isinstance(body, dict):
        return [Problem("(body)", "schema", "a request body is a JSON object", SOURCE)]
    turns = turns_of(body, shape)
    problems = [*_role_order(turns, shape)]
    if shape in ("anthropic", "gemini"):
        problems += _pairs_next_turn(turns, shape)
    else:
        problems += _pairs_openai(turns, shape)
    problems += _ids_and_names(body, turns, shape)
    problems += _no_empty_text(turns, shape)
    problems += _images(body, turns, shape)
    if shape == "gemini":
        problems += _gemini_signatures(turns, model)
    return problems
