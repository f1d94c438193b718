"""Ladder assertions written to kill mutants the mutation run found alive (tests/README.md).

Each pins an exact value the invariant tests in ``test_ladder.py`` do not look at:
where the cut falls on small hand-made paths, the wording of a rung's notes and
failures, what the compact command writes, and the overflow path of the snapshot rung.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from ladder_helpers import agent_run

from snapshot.ladder.compact import CompactOptions, compact, request_shape
from snapshot.ladder.cut import find_cut, head_end
from snapshot.ladder.images import drop_images
from snapshot.ladder.ladder import Rejection, _what_tokens, recover, run_ladder
from snapshot.ladder.record import StrategyResult, recent_start
from snapshot.ladder.sheets import SheetOptions, factsheet, reading_guide, resume_note, snapshot
from snapshot.ladder.summary import corpus_summarizer
from snapshot.ladder.target import Target, split_by_chars, target_for
from snapshot.transcript.model import ImageBlock, Message, TextBlock, ToolCall, ToolResult, linear

MODEL = "claude-sonnet-4-5"  # dense pages (snap5x8): the medium font is the foveated one
IMG = ImageBlock("image/png", b"\x89PNG fake", width=1024, height=768, origin="shot.png")


@pytest.fixture(scope="module")
def claude() -> Target:
    return target_for(MODEL)


def _path(*roles: str, chars: int = 100) -> list[Message]:
    msgs = [(f"m{i}", role, [TextBlock(str(i) * chars)]) for i, role in enumerate(roles)]
    return linear("p", msgs).path()  # type: ignore[arg-type]


# --------------------------------------------------------------------------- the cut


def test_head_keeps_the_system_messages_after_the_first_user_turn() -> None:
    assert head_end(_path("system", "system", "user", "assistant")) == 3
    assert head_end(_path("user", "system", "assistant", "user")) == 2


def test_a_compaction_summary_is_never_the_head() -> None:
    path = _path("user", "assistant")
    summary = replace(path[0], meta={"compact_summary": True})
    assert head_end([summary, path[1]]) == 0


def test_tail_share_moves_the_tail_start_to_the_exact_message() -> None:
    four = _path("user", "assistant", "user", "assistant")
    # The tail's 200 characters are exactly the allowed half: it stays where it is.
    assert find_cut(four, keep_turns=1, tail_share=0.5).tail_start == 2
    six = _path("user", "assistant", "user", "assistant", "user", "assistant")
    # A zero share still keeps the last exchange (two messages).
    assert find_cut(six, keep_turns=3, tail_share=0.0).tail_start == 4


def test_recent_start_of_a_short_path_is_its_first_message() -> None:
    assert recent_start(_path("user", "assistant"), 2) == 0


# --------------------------------------------------------------------------- notes and failures


def test_what_tokens_names_images_pages_and_text(claude: Target) -> None:
    msgs = [
        Message("s", None, "user", (IMG, IMG), {"kind": "snapshot"}),
        Message("b", "s", "user", (IMG,)),
    ]
    cost = claude.image_cost(IMG)
    assert _what_tokens(claude, msgs, 3 * cost) == (
        f"{3 * cost:,} tokens: {3 * cost:,} in 3 images (2 snapshot pages), 0 text"
    )
    assert (
        _what_tokens(claude, msgs[1:], cost + 5)
        == f"{cost + 5:,} tokens: {cost:,} in 1 images, 5 text"
    )
    assert _what_tokens(claude, _path("user"), 7) == "7 tokens, all text"


def test_recover_records_the_correction_and_names_a_final_refusal(claude: Target) -> None:
    conv = agent_run(30)
    budget = claude.tokens(conv.path()) // 3
    calls: list[int] = []

    def once(messages: object) -> Rejection | None:
        calls.append(1)
        return (
            Rejection(counted=budget * 2, limit=budget, message="too long")
            if len(calls) == 1
            else None
        )

    result = recover(conv, claude, budget, once)
    first = result.steps[0]
    assert first.rung == "recover"
    assert set(first.data) == {"provider_count", "provider_limit", "planned_budget", "correction"}
    assert first.data["provider_count"] == budget * 2
    assert first.notes[0].startswith(f"provider counted {budget * 2:,} > {budget:,}: ")

    def never(messages: object) -> Rejection:
        return Rejection(counted=budget * 2, limit=budget, message="still too long")

    refused = recover(conv, claude, budget, never, attempts=1)
    assert refused.failure == "provider still rejects: still too long"
    assert refused.conversation is not None


def test_the_ladder_keeps_the_pages_of_the_snapshot_it_took(claude: Target) -> None:
    conv = agent_run(40)
    result = run_ladder(conv, claude, claude.tokens(conv.path()) // 6)
    assert "snapshot" in result.rungs_taken
    assert len(result.pages) >= 1
    snap = next(s for s in result.steps if s.rung == "snapshot")
    assert snap.notes[0].endswith(f"→ {len(result.pages)} pages")


def test_a_blind_reader_gets_placeholders_and_says_why() -> None:
    blind = target_for("o3-mini")
    conv = agent_run(4, with_images=True)
    result = run_ladder(conv, blind, 10**9)
    assert result.steps[0].notes[0] == "reader has no vision"
    assert not any(m.images() for m in result.conversation.path())
    assert snapshot(conv, blind).record.notes == ("reader cannot see images",)


def test_dropping_an_image_keeps_the_result_an_error() -> None:
    conv = linear(
        "e",
        [
            ("u", "user", [TextBlock("go")]),
            ("a", "assistant", [ToolCall("c1", "shot", {})]),
            ("r", "tool", [ToolResult("c1", (TextBlock("failed"), IMG), is_error=True)]),
            ("u2", "user", [TextBlock("next")]),
            ("a2", "assistant", [TextBlock("done")]),
        ],
    )
    out = drop_images(conv, keep_turns=0).conversation
    (block,) = next(m for m in out.path() if m.id == "r").blocks
    assert isinstance(block, ToolResult) and block.is_error is True
    assert not block.images()


# --------------------------------------------------------------------------- snapshot rung


def test_an_image_limit_images_the_oldest_part_that_fits(claude: Target) -> None:
    conv = agent_run(40)
    result = snapshot(conv, replace(claude, max_images=2), SheetOptions())
    assert result.record.rung == "snapshot"
    assert len(result.pages) == 2
    assert result.record.notes[1].startswith(
        "image limit: 2 images per request (0 in the head and tail) leave room for 2 pages; "
        "imaged the oldest 51 middle messages, the 32 after them"
    )
    refused = snapshot(conv, replace(claude, max_images=0), SheetOptions())
    assert refused.record.notes == (
        "refused: not even the oldest middle messages fit in 0 pages "
        "(0 images per request, 0 already in the head and tail)",
    )
    assert refused.record.data == {"refused": "max_images", "earlier": 0}


def test_factsheet_lists_the_most_frequent_identifier_first() -> None:
    source = "zz/late.py zz/late.py zz/late.py a/early.py 0x5f3e1a9c 1234567 1234567"
    sheet = factsheet(source, 500)
    assert sheet.startswith("Exact identifiers from the pages:\nzz/late.py\n")
    lines = sheet.splitlines()[1:]
    assert lines.index("zz/late.py") < lines.index("a/early.py")
    assert "1234567" in lines and lines.index("1234567") < lines.index("a/early.py")


def test_reading_guide_without_a_middle_says_so(claude: Target) -> None:
    guide = reading_guide([], [], "snap5x8")
    assert "(no messages, 0 messages)" in guide
    assert resume_note(None) == "No verbatim messages follow the pages."


# --------------------------------------------------------------------------- compact


def test_compact_offline_stops_at_the_free_rungs_and_says_why() -> None:
    conv = agent_run(40)
    outcome = compact(conv, MODEL, 50)
    assert not outcome.result.fits
    assert outcome.result.failure is not None
    assert outcome.result.failure.endswith(
        "; the next rung is a summary, and no summarizer is available offline "
        "(use --summarizer live:MODEL)"
    )
    assert outcome.api == "anthropic"
    assert outcome.target.model == MODEL
    assert all(s.rung != "summary" for s in outcome.result.steps)


def test_compact_with_a_provider_limit_is_checked_by_it(claude: Target) -> None:
    conv = agent_run(40)
    budget = claude.tokens(conv.path()) * 2 // 3  # the free rungs can meet it
    outcome = compact(conv, MODEL, budget, CompactOptions(provider_limit=budget))
    assert outcome.checked_by is not None
    assert outcome.result.fits
    # Below what the free rungs reach it is "not met", never a modelled summary.
    tight = compact(conv, MODEL, budget // 4, CompactOptions(provider_limit=budget // 4))
    assert not tight.result.fits and tight.result.summary is None


def test_request_shape_by_provider_and_api() -> None:
    openai = target_for("gpt-5.5")
    assert request_shape(openai, "chat") == "openai"
    assert request_shape(openai, "responses") == "openai-responses"
    assert compact(agent_run(2), "gpt-5.5", 10**9).api == "openai"


def test_compact_writes_pages_request_and_record(tmp_path: Path) -> None:
    conv = agent_run(40)
    outcome = compact(conv, MODEL, target_for(MODEL).tokens(conv.path()) // 6)
    record = outcome.write(tmp_path)
    names = [f"page-{i:03d}.png" for i in range(1, len(outcome.result.pages) + 1)]
    assert names and record["pages"] == names
    assert all((tmp_path / n).read_bytes().startswith(b"\x89PNG") for n in names)
    assert json.loads((tmp_path / "record.json").read_text(encoding="utf-8")) == record
    assert json.loads((tmp_path / "request.json").read_text(encoding="utf-8")) == outcome.body
    assert record["summary"] is None and "summary" in record
    assert record["request_file"] == "request.json"


# --------------------------------------------------------------------------- summary, target


def test_corpus_summary_defaults_to_claude_code() -> None:
    conv = linear(
        "s",
        [
            ("u", "user", [TextBlock("task")]),
            ("s", "user", [TextBlock("summary of the work so far")]),
        ],
    )
    conv = replace(
        conv,
        messages=tuple(
            replace(m, meta={"compact_summary": True}) if m.id == "s" else m for m in conv.messages
        ),
    )
    summarizer = corpus_summarizer(conv)
    assert summarizer is not None
    assert summarizer.model == "claude-code"
    summary = summarizer.summarize(conv, conv.path())
    assert (summary.source, summary.model, summary.output_chars) == ("corpus", "claude-code", 26)


def test_split_by_chars_and_a_fallback_target() -> None:
    assert split_by_chars(10, {"user": 30, "assistant": 70}) == {"user": 3, "assistant": 7}
    assert split_by_chars(5, {"user": 0}) == {"user": 0}
    assert target_for("no-such-reader-xyz", fallback=True).model


# --------------------------------------------------------------------------- run 2's survivors


def test_budget_notes_count_every_image_media_type(claude: Target) -> None:
    from snapshot.ladder.compact import _check_budgets

    def image(media: str) -> dict[str, object]:
        return {"type": "image", "source": {"media_type": media, "data": "AA=="}}

    body = {
        "messages": [{"content": [image("image/png"), image("image/png"), image("image/jpeg")]}]
    }
    two = replace(claude, max_images=2)
    assert _check_budgets(body, two) == [
        f"request carries 3 images; {claude.model} takes at most 2"
    ]
    assert _check_budgets(body, replace(claude, max_images=3)) == []


def test_compact_writes_its_record_as_utf8_whatever_the_locale(tmp_path: Path) -> None:
    # A C locale without UTF-8 mode would write the record in ASCII (or fail on "→").
    import os
    import subprocess
    import sys

    script = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); from pathlib import Path\n"
        "from ladder_helpers import agent_run\n"
        "from snapshot.ladder.compact import compact\n"
        "from snapshot.ladder.target import target_for\n"
        f"conv = agent_run(40); model = {MODEL!r}\n"
        "out = compact(conv, model, target_for(model).tokens(conv.path()) // 6)\n"
        "out.write(Path(sys.argv[1]))\n"
    )
    env = dict(os.environ, LC_ALL="C", LANG="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0")
    env["PYTHONIOENCODING"] = "utf-8"
    subprocess.run([sys.executable, "-c", script, str(tmp_path)], env=env, check=True)
    raw = (tmp_path / "record.json").read_bytes()
    assert "→".encode() in raw
    assert json.loads(raw.decode("utf-8"))["request_file"] == "request.json"


def test_resume_estimates_a_referenced_image_by_its_header(tmp_path: Path) -> None:
    import io

    from PIL import Image

    from snapshot import profiles
    from snapshot.ladder.context import message_estimator

    buf = io.BytesIO()
    Image.new("RGB", (640, 480), "white").save(buf, format="PNG")
    (tmp_path / "shot.png").write_bytes(buf.getvalue())
    img = ImageBlock("image/png", path=str(tmp_path / "shot.png"), origin="shot.png")
    conv = replace(
        linear("c", [("u1", "user", [TextBlock("look"), img])]),
        source=str(tmp_path / "session.jsonl"),
    )
    estimate, how = message_estimator(conv, MODEL)
    text_only = target_for(MODEL).text_tokens_for_chars(conv.messages[0], conv.messages[0].chars())
    assert estimate(conv.messages[0]) == text_only + profiles.image_tokens(MODEL, 640, 480)
    assert how.endswith(f"images per the {MODEL} profile")


def test_a_head_over_budget_names_the_head_not_the_rest(claude: Target) -> None:
    from snapshot.ladder.ladder import _budget_failure

    msgs = [("u0", "user", [TextBlock("task " * 400)])]
    msgs += [(f"m{i}", "assistant" if i % 2 else "user", [TextBlock("x")]) for i in range(1, 9)]
    conv = linear("h", msgs)  # type: ignore[arg-type]
    head = conv.path()[:1]
    floor = claude.tokens(head)
    assert _budget_failure(conv, claude, floor - 1, 10**6) == (
        f"the budget of {floor - 1:,} tokens is smaller than the verbatim head alone "
        f"({floor:,} tokens, all text); nothing the ladder may remove can fit it"
    )


def test_the_result_carries_the_targets_correction(claude: Target) -> None:
    conv = agent_run(3)
    result = run_ladder(conv, claude.with_correction(1.25), 10**9)
    assert result.correction == 1.25


def test_the_tail_shrinks_by_halves_then_to_the_last_exchange(
    claude: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    from snapshot.ladder import ladder as ladder_module
    from snapshot.ladder.ladder import LadderOptions, _snapshot_to_budget

    shares: list[float | None] = []
    real = ladder_module.snapshot

    def spy(conv, target, sheet):  # type: ignore[no-untyped-def]
        shares.append(sheet.tail_share)
        return real(conv, target, sheet)

    monkeypatch.setattr(ladder_module, "snapshot", spy)
    _snapshot_to_budget(agent_run(30), claude, LadderOptions(), budget=1)
    assert shares == [0.2, 0.1, 0.05, 0.0]


def test_a_summary_reads_an_earlier_snapshot_as_its_source_text(claude: Target) -> None:
    from snapshot.ladder.ladder import summarize_middle
    from snapshot.ladder.summary import Summary

    seen: list[list[str]] = []

    class Reader:
        name = "spy"

        def summarize(self, conv, span):  # type: ignore[no-untyped-def]
            seen.append([m.text() for m in span])
            return Summary(text="short", source="model", input_chars=1, output_chars=5)

    conv = agent_run(60)
    snapped = snapshot(conv, claude, SheetOptions())
    assert snapped.record.data["pages"] >= 1
    result, summary = summarize_middle(snapped.conversation, claude, Reader(), keep_turns=1)
    source = next(m for m in snapped.conversation.path() if m.meta.get("kind") == "snapshot")
    assert str(source.meta["source_text"]) in seen[0]
    assert result.record.rung == "summary"
    assert result.record.notes == (f"{result.record.changed} messages → one model summary",)
    made = next(m for m in result.conversation.path() if m.meta.get("kind") == "summary")
    assert made.meta["source"] == "model" and summary.text == "short"


def test_a_four_character_number_is_a_needle() -> None:
    from snapshot.ladder.needles import candidates

    assert candidates("port 8080 and 123")["number"] == ["8080"]


def test_the_image_limit_search_finds_the_largest_prefix_that_fits(claude: Target) -> None:
    from snapshot.ladder.serialize import serialize
    from snapshot.ladder.sheets import _fitting_prefix, _render, _split_points

    fresh = list(agent_run(60).path()[1:-2])
    opts = SheetOptions()
    points = _split_points(fresh)
    for allowed in (1, 2, 3):
        expected = max(
            [p for p in points if len(_render(serialize(fresh[:p]), claude, opts)[0]) <= allowed],
            default=0,
        )
        assert _fitting_prefix(fresh, [], allowed, claude, opts) == expected


def test_snapshot_notes_for_nothing_to_image(claude: Target) -> None:
    conv = agent_run(1)
    result = snapshot(conv, claude, SheetOptions(keep_turns=5))
    assert (result.record.rung, result.record.notes) == ("snapshot", ("no middle to image",))


def test_snapshot_of_a_middle_with_nothing_to_draw(
    claude: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    from snapshot.ladder import sheets

    monkeypatch.setattr(sheets, "_render", lambda source, target, options: ([], []))
    result = snapshot(agent_run(30), claude, SheetOptions())
    assert (result.record.rung, result.record.notes) == (
        "snapshot",
        ("middle is empty after normalization",),
    )


def test_the_overflow_note_says_what_stays_as_text(claude: Target) -> None:
    import re

    conv = agent_run(40)
    result = snapshot(conv, replace(claude, max_images=2), SheetOptions())
    said = re.search(
        r"the (\d+) after them \(([\d,]+) characters\) stay as text$", result.record.notes[1]
    )
    assert said is not None and int(said.group(1)) == result.record.data["left_as_text"]


def test_pages_too_large_for_the_provider_are_refused_by_the_snapshot_rung(claude: Target) -> None:
    result = snapshot(agent_run(30), replace(claude, max_image_bytes=100), SheetOptions())
    assert result.record.rung == "snapshot"
    assert result.record.data == {"refused": "max_image_bytes"}
    assert result.record.notes[0].startswith("refused: pages [1")
    assert result.record.notes[0].endswith("exceed 100 bytes base64")


def test_the_snapshot_record_counts_its_page_bytes(claude: Target) -> None:
    result = snapshot(agent_run(60), claude, SheetOptions())
    assert result.record.data["page_bytes"] == sum(len(p.png()) for p in result.pages)


def test_an_earlier_snapshot_without_covers_folds_in(claude: Target) -> None:
    first = snapshot(agent_run(60), claude, SheetOptions())
    old = [
        replace(m, meta={k: v for k, v in m.meta.items() if k != "covers"})
        if m.meta.get("kind") == "snapshot"
        else m
        for m in first.conversation.path()
    ]
    longer = linear_copy_with(first.conversation, old, extra=agent_run(60).path()[1:])
    again = snapshot(longer, claude, SheetOptions(max_cost_ratio=10.0))
    made = next(m for m in again.conversation.path() if m.meta.get("kind") == "snapshot")
    assert again.record.notes[0].endswith("pages")
    assert made.meta["covers"] and "snapshot-" not in " ".join(made.meta["covers"])


def linear_copy_with(conv, messages, *, extra):  # type: ignore[no-untyped-def]
    from snapshot.ladder.record import linear_copy

    renamed = [replace(m, id=f"late-{m.id}") for m in extra]
    return linear_copy(conv, [*messages, *renamed])


def test_a_target_plans_with_its_counters_characters_per_token() -> None:
    from snapshot.ladder.target import _reference_chars_per_token

    gpt = target_for("gpt-5.5")
    assert gpt.chars_per_token == pytest.approx(_reference_chars_per_token(gpt.text_tokens))
    assert gpt.chars_per_token != 4.0


def test_a_request_byte_budget_images_the_oldest_part_whose_pages_fit(claude: Target) -> None:
    # Pages are held to the request's byte budget by their actual base64 sizes (a gray page
    # is several times a 1-bit one): the oldest part that fits is imaged, the rest stays
    # text, and the pages never take more bytes than the budget.
    conv = agent_run(40)

    def imaged(budget: int) -> StrategyResult:
        return snapshot(conv, replace(claude, max_request_bytes=budget), SheetOptions())

    refused = imaged(1000)
    assert refused.record.data["refused"] == "max_request_bytes"
    assert "1,000 bytes per request" in refused.record.notes[0]
    lo, hi = 1000, 10**8  # the smallest budget the byte check lets through
    while hi - lo > 1:
        mid = (lo + hi) // 2
        too_small = imaged(mid).record.data.get("refused") == "max_request_bytes"
        lo, hi = (mid, hi) if too_small else (lo, mid)
    fit = imaged(hi)
    assert fit.pages and len(fit.pages) < 4  # 4 pages is the whole middle
    assert sum(4 * ((len(p.png()) + 2) // 3) for p in fit.pages) <= hi
    assert fit.record.notes[1].startswith(f"request size limit: {hi:,} bytes per request")
    assert imaged(10**12).record.notes == snapshot(conv, claude, SheetOptions()).record.notes
