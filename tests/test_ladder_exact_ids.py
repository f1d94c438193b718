"""Exact ids kept as text beside the snapshot pages (issue 41 item 3).

The transcript is built here: a realistic agent session whose tool output holds
git hashes, UUIDs, tracebacks with ``path:line``, digests and long numbers, as
Claude Code sessions do. Real sessions from the corpus are measured at the end
(skipped, saying so, without it).
"""

from __future__ import annotations

import json
import random
import uuid
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ladder_helpers import CORPUS

from snapshot.ladder.exact_ids import (
    INDEX_HEADER,
    coverage,
    exact_ids,
    exact_index,
    select,
)
from snapshot.ladder.ladder import LadderOptions, run_ladder
from snapshot.ladder.sheets import SheetOptions, is_snapshot
from snapshot.ladder.target import Target, target_for
from snapshot.transcript.model import Conversation, Message, TextBlock, ToolCall, ToolResult, linear

NO_ELIDE = LadderOptions(rungs=("drop_images", "snapshot"))
FILES = ["src/app/server.py", "src/app/models/user.py", "tests/test_api.py", "lib/db/pool.py"]


@pytest.fixture(scope="module")
def claude() -> Target:
    return target_for("claude-sonnet-4-6")


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


CODE = """def handler(request):
    user = request.user
    if not user.is_active:
        raise PermissionError("inactive user")
    with pool.connection(timeout=settings.POOL_TIMEOUT) as conn:
        rows = conn.execute(QUERY, {"user": user.pk}).fetchall()
    return [serialize(row) for row in rows if row.visible]
"""


def _tool_output(rng: random.Random, i: int) -> str:
    """One tool result of the kinds agents read: git log, a traceback, a request log, a diff,
    each after the source the agent read: ids take a few percent of the tokens, as in the
    corpus's Claude Code sessions (0.3-3 %; the synthetic one about 5 %)."""
    return CODE * 16 + _ids_output(rng, i)


def _ids_output(rng: random.Random, i: int) -> str:
    kind = i % 4
    if kind == 0:
        return "\n".join(
            f"{_hex(rng, 40)} (HEAD -> main) fix: pool timeout #{rng.randint(100, 999)}"
            if j == 0
            else f"{_hex(rng, 7)} {rng.choice(['refactor', 'docs', 'test'])}: step {j}"
            for j in range(3)
        )
    if kind == 1:
        frames = [
            f'  File "{rng.choice(FILES)}", line {rng.randint(10, 900)}, in handler\n'
            f"    at {rng.choice(FILES)}:{rng.randint(10, 900)}:{rng.randint(1, 80)}"
            for _ in range(2)
        ]
        return "Traceback (most recent call last):\n" + "\n".join(frames) + "\nKeyError: 'id'"
    if kind == 2:
        return "\n".join(
            f"request_id={uuid.UUID(int=rng.getrandbits(128))} status=200 "
            f"bytes={rng.randint(10_000, 9_999_999)} ts={rng.randint(1_700_000_000, 1_800_000_000)}"
            for _ in range(2)
        )
    return (
        f"diff --git a/{FILES[i % 4]} b/{FILES[i % 4]}\nindex {_hex(rng, 9)}..{_hex(rng, 9)} 100644\n"
        f"sha256 {_hex(rng, 64)}  dist/app.tar.gz\n"
        f"total 1,{rng.randint(100, 999)},{rng.randint(100, 999)} tokens; see "
        f"{FILES[(i + 1) % 4]}#L{rng.randint(1, 300)}"
    )


def session(turns: int, seed: int = 0) -> Conversation:
    """An agent session: a task, ``turns`` tool rounds with id-heavy output, an answer.

    Later assistant turns refer back to ids seen earlier (as agents do), so ids repeat.
    """
    rng = random.Random(seed)
    msgs: list[tuple[str, str, list]] = [
        ("u0", "user", [TextBlock("The API returns 500 on /users; find the cause and fix it.")])
    ]
    seen: list[str] = []
    for i in range(turns):
        out = _tool_output(rng, i)
        refer = f" (as in {rng.choice(seen)})" if seen else ""
        msgs.append(
            (
                f"a{i}",
                "assistant",
                [
                    TextBlock(f"Checking step {i}{refer}."),
                    ToolCall(f"toolu_{i:04d}", "bash", {"command": f"run check {i}"}),
                ],
            )
        )
        msgs.append((f"r{i}", "tool", [ToolResult(f"toolu_{i:04d}", (TextBlock(out),))]))
        seen.extend(exact_ids(out)[:2])
    msgs.append(("done", "assistant", [TextBlock("Fixed: the pool timed out.")]))
    return linear("ids", msgs)  # type: ignore[arg-type]


def _snapshot(conv: Conversation) -> Message:
    (snap,) = [m for m in conv.path() if is_snapshot(m)]
    return snap


def _index_block(snap: Message) -> str:
    (line,) = [
        b.text for b in snap.blocks if isinstance(b, TextBlock) and b.text.startswith(INDEX_HEADER)
    ]
    return line


def _snapshot_data(result) -> dict:  # type: ignore[no-untyped-def]
    (step,) = [s for s in result.steps if s.rung == "snapshot" and s.changed]
    return step.data


def test_a_realistic_session_keeps_at_least_95_percent_of_its_ids_as_text(claude: Target) -> None:
    conv = session(24)
    result = run_ladder(conv, claude, claude.tokens(conv.path()) // 3, options=NO_ELIDE)
    data = _snapshot_data(result)
    counted = data["exact_ids"]
    snap = _snapshot(result.conversation)
    source = str(snap.meta["source_text"])
    # The record's figures are the index's coverage of what the pages hold, recounted here.
    assert (counted["as_text"], counted["on_pages"]) == coverage(source, _index_block(snap))
    assert counted["on_pages"] >= 80  # hashes, UUIDs, path:line, digests, long numbers
    assert counted["as_text"] / counted["on_pages"] >= 0.95
    # The coverage is printed with the rung's notes.
    (step,) = [s for s in result.steps if s.rung == "snapshot" and s.changed]
    assert any(n.startswith("exact ids: ") and " of " in n for n in step.notes)


def test_every_kind_of_id_on_the_pages_is_found() -> None:
    text = session(8).path()[1:]
    found = set()
    for m in text:
        for r in m.tool_results():
            found.update(exact_ids(r.text()))
    kinds = {
        "hash": any(len(t) == 40 for t in found),
        "short hash": any(len(t) == 7 for t in found),
        "uuid": any(t.count("-") == 4 and len(t) == 36 for t in found),
        "path:line": any(":" in t and "/" in t for t in found),
        "path#L": any("#L" in t for t in found),
        "long number": any(t.replace(",", "").isdigit() and "," in t for t in found),
    }
    assert all(kinds.values()), kinds


def test_a_tight_budget_keeps_the_most_referenced_then_the_most_recent() -> None:
    ids = [f"{n:07d}abc" for n in range(6)]  # 10-character hex ids
    text = " ".join([ids[0], ids[1], ids[2], ids[3], ids[0], ids[4], ids[5], ids[0], ids[2]])

    def count(s: str) -> int:  # one token per whitespace-separated word
        return len(s.split())

    header = count(INDEX_HEADER)
    assert select(text, header + 6, count) == ids  # room for all: page order
    # Room for three: ids[0] (3 references), ids[2] (2), then the most recent single one.
    assert select(text, header + 3, count) == [ids[0], ids[2], ids[5]]
    assert select(text, header + 1, count) == [ids[0]]
    assert select(text, header, count) == []
    # Whatever the budget, the line fits it.
    for budget in range(0, header + 8):
        line = exact_index(text, budget, count)
        assert not line or count(line) <= budget


def test_a_small_share_binds_and_the_index_fits_it(claude: Target) -> None:
    """A share too small for every id: the index costs no more than that share."""
    conv = session(24)
    share = 0.002
    options = LadderOptions(rungs=NO_ELIDE.rungs, sheets=SheetOptions(exact_ids_share=share))
    result = run_ladder(conv, claude, claude.tokens(conv.path()) // 3, options=options)
    data = _snapshot_data(result)
    line = _index_block(_snapshot(result.conversation))
    assert claude.text_tokens(line) <= round(share * data["text_tokens"])
    assert 0 < data["exact_ids"]["as_text"] < data["exact_ids"]["on_pages"]


def test_no_share_means_no_index(claude: Target) -> None:
    conv = session(12)
    options = LadderOptions(rungs=NO_ELIDE.rungs, sheets=SheetOptions(exact_ids_share=0))
    result = run_ladder(conv, claude, claude.tokens(conv.path()) // 3, options=options)
    snap = _snapshot(result.conversation)
    assert not any(
        isinstance(b, TextBlock) and b.text.startswith(INDEX_HEADER) for b in snap.blocks
    )
    assert _snapshot_data(result)["exact_ids"]["as_text"] == 0


def test_the_index_is_byte_identical_across_passes_over_the_same_span(claude: Target) -> None:
    conv = session(16)
    budget = claude.tokens(conv.path()) // 3
    once = run_ladder(conv, claude, budget, options=NO_ELIDE).conversation
    again = run_ladder(conv, claude, budget, options=NO_ELIDE).conversation
    assert _index_block(_snapshot(once)) == _index_block(_snapshot(again))
    # A pass over the compacted conversation with nothing new to image keeps it too.
    twice = run_ladder(once, claude, budget, options=NO_ELIDE).conversation
    assert _index_block(_snapshot(twice)) == _index_block(_snapshot(once))


def test_a_wider_span_appends_to_the_index(claude: Target) -> None:
    """Ids are listed in page order: a later pass that images more only adds at the end."""
    conv = session(24)
    before = claude.tokens(conv.path())
    wide = LadderOptions(rungs=NO_ELIDE.rungs, sheets=SheetOptions(tail_share=0.6))
    short = LadderOptions(rungs=NO_ELIDE.rungs, sheets=SheetOptions(tail_share=0.1))
    first = run_ladder(conv, claude, int(before * 0.8), options=wide).conversation
    second = run_ladder(first, claude, int(before * 0.4), options=short).conversation
    old, new = _index_block(_snapshot(first)), _index_block(_snapshot(second))
    assert len(new) > len(old) and new.startswith(old)


# Real Claude Code sessions: a subagent, a long main session, one from another project.
REAL = [
    "claude_code_spotter/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-a2898e3.jsonl",
    "claude_code_spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
    "claude_code_log_real/-Users-dain-workspace-claude-code-log-sample/37f83ec9-f2ea-42a9-925e-0d5c105cb6e8.jsonl",
]


@pytest.mark.corpus
@pytest.mark.parametrize("name", REAL)
def test_real_sessions_keep_at_least_95_percent_under_the_default_budget(
    name: str, claude: Target
) -> None:
    path = CORPUS / name
    if not path.is_file():
        pytest.skip(f"corpus conversation not found: {path} (set SNAPSHOT_CORPUS)")
    from snapshot.ladder.serialize import serialize
    from snapshot.transcript.formats import import_path

    convs = import_path(Path(path))
    conv = max(convs, key=lambda c: len(c.path()))
    text = serialize(conv.path())
    share = SheetOptions().exact_ids_share
    index = exact_index(text, round(share * claude.text_tokens(text)), claude.text_tokens)
    kept, total = coverage(text, index)
    assert total > 0
    assert kept / total >= 0.95, f"{name}: {kept} of {total}"


def test_the_proxy_plan_records_the_coverage_for_its_ledger() -> None:
    """A compacting request's plan carries ``exact_ids`` as the ledger and the page read it."""
    from snapshot.proxy.planner import Planner
    from snapshot.proxy.shapes import ANTHROPIC

    rng = random.Random(3)
    messages: list[dict] = [{"role": "user", "content": "Find why /users returns 500."}]
    for i in range(16):
        call = f"toolu_{i:04d}"
        messages.append(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": call, "name": "bash", "input": {"n": i}}],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": call, "content": _tool_output(rng, i)}
                ],
            }
        )
    messages.append({"role": "assistant", "content": "Found it."})
    messages.append({"role": "user", "content": "Fix it."})
    body = {"model": "claude-sonnet-4-6", "max_tokens": 100, "messages": messages}
    raw = len(json.dumps(body).encode())
    plan = Planner(window=5_000).plan(
        ANTHROPIC, body, "claude-sonnet-4-6", ("t", "c"), raw_bytes=raw
    )
    assert plan.changed and "snapshot" in plan.rungs
    record = plan.record()["exact_ids"]
    # The index travels in the compacted span, beside the pages, in the upstream body.
    sent = json.dumps(plan.body)
    assert sent.count(INDEX_HEADER) == 1 and "image" in sent
    assert record["on_pages"] > 0 and record["as_text"] / record["on_pages"] >= 0.95


def test_compact_prints_the_coverage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from importlib import resources

    from snapshot.cli import main

    demo = resources.files("snapshot.demo").joinpath("transcripts", "demo-coding.json")
    with resources.as_file(demo) as conv:
        args = [str(conv), "--model", "claude-sonnet-4-6", "--budget", "2500"]
        code = main(["compact", *args, "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    line = next(x for x in out.splitlines() if "exact ids on the pages kept as text" in x)
    kept, total = (int(n) for n in line.split(": ")[1].split(" (")[0].split(" of "))
    record = json.loads((tmp_path / "record.json").read_text())
    (snap,) = [r for r in record["rungs"] if r["rung"] == "snapshot"]
    assert (kept, total) == (snap["exact_ids"]["as_text"], snap["exact_ids"]["on_pages"])
    assert total > 0


def _whole_scan(text: str) -> list[tuple[str, int, int]]:
    """The hard tokens by one scan of the whole text: what the run pre-filter must equal."""
    from snapshot.readability.scoring import _HARD, _MIN_NUMBER, _MIN_PATH

    return [
        (m.lastgroup or "", m.start(), m.end())
        for m in _HARD.finditer(text)
        if not (m.lastgroup == "number" and len(m.group(0)) < _MIN_NUMBER)
        and not (m.lastgroup == "path" and (len(m.group(0)) < _MIN_PATH or "/" not in m.group(0)))
    ]


SCAN_SAMPLE = [
    "commit 9f8e7d6c2 in src/app.py at 12:30, 7 files",
    "id 550e8400-e29b-41d4-a716-446655440000\tpath ~/x/y.py:12 ./a/b ../c/d",
    "2026-11-02T09:00:00.731000Z INFO  app request_id=8b388a0d-a9c1-4f00-8e1a-0c2b1d3e4f50",
    "x.9f8e7d6c2 a-9f8e7d6c2 /9f8e7d6c2 9f8e7d6c2.txt 1,516,925 11655,11656 ٣٤٥٦٧",
    "defaced facade -- - / // no ids at all\n\n\u00a0\u3000 12 123 1.5",
    "",
]


@pytest.mark.parametrize("text", SCAN_SAMPLE)
def test_the_run_prefilter_finds_what_a_whole_scan_finds(text: str) -> None:
    from snapshot.readability.scoring import hard_token_spans

    assert hard_token_spans(text) == _whole_scan(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*" \t\n\u00a0/-._~:,#Lxaf09٣", "src", "9f8e7d6c2"]), max_size=40))
def test_the_run_prefilter_on_drawn_texts(parts: list[str]) -> None:
    from snapshot.readability.scoring import hard_token_spans

    text = "".join(parts)
    assert hard_token_spans(text) == _whole_scan(text)
