"""What ``--mode cost`` sends beside its pages, and what it counts (issue 41 items 1-3, 5).

Fixed samples built here: a tool result full of the ids agents read (commit hashes,
UUID request ids, ``path:line`` frames), a long system prompt and tool descriptions.
Checks that the pages are billed by the rows they fill, that a drawn result's id line
carries the documented share of its ids (the most referenced, then the most recent),
that the text sent on every request beside the pages stays short, and that a segment's
text is counted as the model reads it, each long string once.
"""

from __future__ import annotations

import functools
import json
import math
import random
from typing import Any

import pytest

import snapshot.billing.text_tokens as text_tokens_module
from snapshot.ladder.exact_ids import PROXY_SHARE, exact_ids
from snapshot.ladder.target import Target, target_for
from snapshot.proxy.inplace import NOTE, InPlace
from snapshot.proxy.prefix_pages import HEADER, PrefixImager
from snapshot.proxy.segments import Counts, segments
from snapshot.rendering.page import render_document

MODEL = "claude-fable-5"


@pytest.fixture(scope="module")
def fable() -> Target:
    return target_for(MODEL)


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _log(rng: random.Random, lines: int = 120) -> tuple[str, list[str]]:
    """A request log: a UUID request id per line, every tenth id seen again at the end
    (so those are referenced twice), and a ``path:line`` frame every line."""
    ids = [
        f"{_hex(rng, 8)}-{_hex(rng, 4)}-4{_hex(rng, 3)}-a{_hex(rng, 3)}-{_hex(rng, 12)}"
        for _ in range(lines)
    ]
    rows = [
        f"2026-11-02T09:{i // 60:02d}:{i % 60:02d}Z INFO settle request_id={rid} "
        f"at src/payments/settle.py:{100 + i} amount=12.50 currency=EUR"
        for i, rid in enumerate(ids)
    ]
    rows += [f"retried request_id={rid}" for rid in ids[::10]]
    return "\n".join(rows), ids


def _body(result: str) -> dict[str, Any]:
    return {
        "model": MODEL,
        "messages": [
            {"role": "user", "content": "find the duplicate settlement"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": result}],
            },
            {"role": "assistant", "content": "reading it"},
            {"role": "user", "content": "go on"},
        ],
    }


def test_id_line_carries_the_share_most_referenced_then_most_recent(fable: Target) -> None:
    text, _ = _log(random.Random(41))
    done = InPlace().apply(_body(text), fable, ("k", "main"), lambda d, s, c: True)
    assert done is not None
    _, drawn = done.drawn["t1"]
    line = drawn.content[-1]["text"].split(" ")
    on_pages = list(dict.fromkeys(exact_ids(text)))
    assert len(line) == math.ceil(PROXY_SHARE * len(on_pages)) < len(on_pages)
    assert line == [t for t in on_pages if t in line]  # page order
    left = [t for t in on_pages if t not in line]
    refs = {t: exact_ids(text).count(t) for t in on_pages}
    # Left on the pages only: ids seen once, and the earliest of them.
    assert all(refs[t] == 1 for t in left)
    assert left == [t for t in on_pages if refs[t] == 1][: len(left)]
    assert drawn.exact_ids == {"on_pages": len(on_pages), "as_text": len(line)}


def test_a_short_id_line_keeps_every_id(fable: Target) -> None:
    rng = random.Random(7)
    text = (
        "\n".join(f"    def handler_{i}(self, v):  # see commit {_hex(rng, 10)}" for i in range(19))
        + "\n"
        + "x = compute(v) + offset  # plain code, no ids here\n" * 60
    )
    done = InPlace().apply(_body(text), fable, ("k", "main"), lambda d, s, c: True)
    assert done is not None
    drawn = done.drawn["t1"][1]
    assert drawn.exact_ids["as_text"] == drawn.exact_ids["on_pages"] == 19


def test_prefix_pages_are_cropped_to_their_rows(fable: Target) -> None:
    body = {
        "model": MODEL,
        "system": [{"type": "text", "text": "Follow the repository's rules. " * 900}],
        "tools": [{"name": "Bash", "description": "Run a command. " * 30, "input_schema": {}}],
        "messages": [{"role": "user", "content": "hi"}],
    }
    done = PrefixImager().apply(body, fable)
    assert done is not None and fable.geometry is not None
    full = render_document(done.source, fable.geometry).pages
    assert len(done.pages) == len(full) >= 2
    assert done.pages[0].size == full[0].size
    # The last page holds a few rows: billed by them, not by a whole page.
    assert done.pages[-1].size[1] < full[-1].size[1] / 2
    assert done.pages[-1].text == full[-1].text


def test_text_sent_with_every_page_stays_short(fable: Target) -> None:
    assert fable.text_tokens(NOTE) <= 12  # with each drawn result, on every request
    assert fable.text_tokens(HEADER) <= 45  # once a request


def test_page_used_rows_is_the_rows_text_length(fable: Target) -> None:
    rng = random.Random(3)
    assert fable.geometry is not None
    for _ in range(12):
        text = "\n".join(
            "".join(rng.choice("ab c\t  日本x") for _ in range(rng.randint(0, 400)))
            for _ in range(rng.randint(1, 150))
        )
        for page in render_document(text, fable.geometry, unrenderable="keep").pages:
            assert page.used_rows == len(page.rows)


def test_a_segment_is_counted_as_read_each_long_string_once(
    fable: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    computed: list[str] = []
    inner = text_tokens_module._ctok_count.__wrapped__

    @functools.lru_cache(maxsize=4096)
    def spy(text: str, version: str) -> int:
        computed.append(text)
        return inner(text, version)

    monkeypatch.setattr(text_tokens_module, "_ctok_count", spy)
    text, _ = _log(random.Random(5))
    body = _body(text)
    counts = Counts()
    segments(body, "anthropic", fable, counts)
    done = InPlace().apply(body, fable, ("k", "main"), lambda d, s, c: True)
    assert done is not None
    line = done.drawn["t1"][1].content[-1]["text"]
    segments(done.body, "anthropic", fable, counts)
    # The result's text and its id line are each counted once, unescaped, on their own.
    assert computed.count(text) == 1 and computed.count(line) == 1
    assert not [t for t in computed if t != line and line in t]
    assert not [t for t in computed if t != text and text[:200] in t]
    item = body["messages"][2]
    bare = {**item, "content": [{**item["content"][0], "content": ""}]}
    skeleton = json.dumps(bare, ensure_ascii=False, separators=(",", ":"))
    cut = segments({"model": MODEL, "messages": [item]}, "anthropic", fable, Counts())
    assert cut.parts[-1][1] == fable.text_tokens(text) + fable.text_tokens(skeleton)


def test_the_sent_bytes_are_the_body_json_with_drawn_blocks_kept(fable: Target) -> None:
    from snapshot.proxy.costmode import CostMode
    from snapshot.proxy.counterfactual import Counterfactual
    from snapshot.proxy.planner import Planner
    from snapshot.proxy.shapes import ANTHROPIC

    text, _ = _log(random.Random(9))
    body = {
        **_body(text),
        "system": [{"type": "text", "text": "Follow the repository's rules. " * 300}],
        "tools": [{"name": "Bash", "description": "Run a command. " * 30, "input_schema": {}}],
    }
    raw = json.dumps(body).encode()
    planner = Planner(threshold=0.8, upstream="http://127.0.0.1:9")
    cost = CostMode(Counterfactual(), policy="full", upstream="http://127.0.0.1:9")
    for _ in range(2):  # the second request repeats the drawn blocks from their kept JSON
        window = planner.plan(ANTHROPIC, body, MODEL, ("k", "main"), raw_bytes=len(raw), raw=raw)
        plan, extra = cost.plan(ANTHROPIC, body, MODEL, ("k", "main"), raw, fable, window)
        assert extra["cost_mode"]["chosen"] == "prefix+inplace"
        assert plan.data == json.dumps(plan.body, ensure_ascii=False).encode("utf-8")


def test_representable_finds_what_it_did_without_the_whole_body_checks() -> None:
    from snapshot.proxy.bodies import representable

    assert representable(b'{"m": [{"a": 1, "b": {"c": 2, "c": 3}}]}') == "duplicate key 'c'"
    assert representable(b'{"t": "\\ud83d\\ude00 ok"}') is None  # a pair: UTF-8 holds it
    assert representable(b'{"t": "x \\uDC00"}') is not None  # lone, upper-case hex
    assert representable(b'{"t": "\\\\ud800"}') is None  # an escaped backslash, not a surrogate
