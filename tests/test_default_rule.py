"""The default rule (issue 40 item 5): densest layout the model evidence or, where it is silent,
the weakest qualified reader relative to its control accepts, at the real page and ±4 px on
both hidden texts; and the committed defaults follow it."""

from __future__ import annotations

from pathlib import Path

import pytest

from snapshot.cli import main
from snapshot.profiles.default_rule import (
    HIDDEN_TEXTS,
    JITTER,
    MIN_READERS,
    Candidate,
    ModelRead,
    Reading,
    choose_default,
    jittered,
)

PAGE = (1540, 1540)
DENSE = Candidate("snap5x9v2 gray gap 0x0", (5, 9), 22.2)
WIDE = Candidate("snap8x16 1-bit gap 0x0", (8, 16), 7.8)


def _reads(
    layout: str, chars: float = 0.97, control: float = 0.99, readers: tuple[str, ...] = ("a", "b")
) -> list[Reading]:
    return [
        Reading(layout, size, text, r, chars, control)
        for size in jittered(PAGE)
        for text in HIDDEN_TEXTS
        for r in readers
    ]


def test_the_densest_layout_every_qualified_reader_reads_wins() -> None:
    reads = _reads(DENSE.layout) + _reads(WIDE.layout)
    choice = choose_default([WIDE, DENSE], reads, [], page=PAGE, default=WIDE.layout)
    assert (choice.layout, choice.kind) == (DENSE.layout, "readers")
    assert "a + b" in choice.rests_on and "±4 px" in choice.rests_on


def test_one_qualified_cell_below_the_bar_at_4_px_rules_a_layout_out() -> None:
    shrunk = jittered(PAGE)[2]
    reads = [
        Reading(r.layout, r.page, r.text, r.reader, 0.0 if r.page == shrunk else r.chars, r.control)
        for r in _reads(DENSE.layout)
    ] + _reads(WIDE.layout)
    choice = choose_default([WIDE, DENSE], reads, [], page=PAGE, default=WIDE.layout)
    assert choice.layout == WIDE.layout
    assert "0.000 of its control" in choice.passed_over[0] and "1536x1536" in choice.passed_over[0]


def test_an_unqualified_reader_never_decides() -> None:
    # reader c cannot read its own control (0.80 < 0.93): its 0.10 is its own, not the layout's
    reads = _reads(DENSE.layout) + _reads(DENSE.layout, 0.10, 0.80, readers=("c",))
    choice = choose_default([DENSE], reads, [], page=PAGE, default=DENSE.layout)
    assert choice.kind == "readers" and "c" not in choice.rests_on.split(",")[0]


def test_every_cell_needs_enough_qualified_readers() -> None:
    assert MIN_READERS == 2 and JITTER == 4
    reads = [r for r in _reads(DENSE.layout) if not (r.text == "corpus" and r.reader == "b")]
    choice = choose_default([DENSE], reads, [], page=PAGE, default=DENSE.layout)
    assert choice.kind == "none" and "corpus 1540x1540 (1)" in choice.rests_on


def test_model_evidence_accepts_what_readers_cannot_and_vetoes_what_they_can() -> None:
    fails = _reads(DENSE.layout, chars=0.0) + _reads(WIDE.layout)
    reads_it = ModelRead("canary records", "own traffic", 12, 12, font="snap5x9v2")
    choice = choose_default([WIDE, DENSE], fails, [reads_it], page=PAGE, default=WIDE.layout)
    assert (choice.layout, choice.kind) == (DENSE.layout, "model evidence")
    assert choice.rests_on.startswith("model evidence: canary records N=12 (12 read)")
    passes = _reads(DENSE.layout) + _reads(WIDE.layout)
    fails_it = ModelRead("published battery", "a ladder", 20, 2, cell=(5, 9))
    choice = choose_default([WIDE, DENSE], passes, [fails_it], page=PAGE, default=WIDE.layout)
    assert (choice.layout, choice.kind) == (WIDE.layout, "readers")
    assert "the model does not read it" in choice.passed_over[0]
    # too few trials to tell either way: the readers decide
    unsure = ModelRead("canary records", "own traffic", 3, 3, font="snap5x9v2")
    choice = choose_default([WIDE, DENSE], passes, [unsure], page=PAGE, default=WIDE.layout)
    assert (choice.layout, choice.kind) == (DENSE.layout, "readers")


def test_a_default_on_model_evidence_still_says_what_its_qualified_readers_read() -> None:
    """Model evidence decides, but the readers' figure below the bar is never hidden."""
    from snapshot.report.readme import rests_on_cell

    below = _reads(DENSE.layout, chars=0.5) + _reads(WIDE.layout)
    reads_it = ModelRead("published battery", "a battery", 15, 14, cell=(5, 9))
    choice = choose_default([WIDE, DENSE], below, [reads_it], page=PAGE, default=WIDE.layout)
    assert (choice.layout, choice.kind) == (DENSE.layout, "model evidence")
    assert choice.rests_on.startswith("model evidence: published battery N=15 (14 read)")
    assert "read it below the bar: a reads 0.505 of its control" in choice.rests_on
    assert "below the bar: a reads 0.51 of its control" in choice.summary
    assert rests_on_cell(choice.as_dict()).endswith("; OCR readers: below the bar")
    # readers that agree are said too; none read: nothing to say
    agree = _reads(DENSE.layout) + _reads(WIDE.layout)
    choice = choose_default([WIDE, DENSE], agree, [reads_it], page=PAGE, default=WIDE.layout)
    assert "qualified readers (OCR, proxies for models): pass: readers: a + b" in choice.rests_on
    choice = choose_default([WIDE, DENSE], [], [reads_it], page=PAGE, default=WIDE.layout)
    assert "readers" not in choice.rests_on


def test_no_evidence_keeps_the_table_default_and_says_so() -> None:
    choice = choose_default([WIDE, DENSE], [], [], page=PAGE, default=WIDE.layout)
    assert (choice.layout, choice.kind) == (WIDE.layout, "none")
    assert choice.rests_on.startswith("no evidence: the family table's default, unconfirmed")
    assert len(choice.passed_over) == 2


def test_the_rule_shares_the_labs_texts_jitter_and_bar() -> None:
    from snapshot.legibility import gate, weakest
    from snapshot.legibility.corpus_text import TEXTS
    from snapshot.profiles import default_rule

    assert HIDDEN_TEXTS == TEXTS
    assert weakest.JITTER == JITTER and weakest.jittered is jittered
    assert gate.QUALIFY_BAR == default_rule.QUALIFY_BAR


def test_every_committed_default_is_what_the_rule_picks() -> None:
    """The family tables follow the evidence: for every vision profile the committed verdicts
    name, the rule's layout is the layout the profile draws."""
    from snapshot import profiles
    from snapshot.profiles.readability import default_choice, record_key, verdicts

    defaults = verdicts()["defaults"]
    assert defaults, "the verdicts file holds the rule's choices"
    for model, choice in defaults.items():
        record = profiles.profile_for(model, warn=False).as_dict()
        drawn = record_key(record).rsplit(" ", 1)[0]
        assert choice["layout"] == drawn, (model, choice)
        assert default_choice(model)["rests_on"] == choice["rests_on"]
        assert choice["kind"] in ("readers", "model evidence", "none")


def test_profiles_prints_what_each_default_rests_on(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profiles", "--current"]) == 0
    out = capsys.readouterr().out
    assert "rests on model evidence: published battery" in out  # gemini-3-flash, claude-fable
    vision_rows = [ln for ln in out.splitlines() if " current " in ln and "no vision" not in ln]
    assert out.count("\n" + " " * 27 + "rests on ") == len(vision_rows)
    assert main(["profiles", "--model", "gemini-3.8-flash"]) == 0
    out = capsys.readouterr().out
    assert "rests on model evidence: published battery N=15 (14 read)" in out


def test_your_canary_records_are_model_evidence_the_rule_weighs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from snapshot.proxy.evidence import SCHEMA

    def record(acc: float) -> dict[str, object]:
        return {
            "schema": SCHEMA, "model": "claude-sonnet-5-5", "reader": "claude-sonnet-5-5-2026",
            "layout": "snap5x9v2 gray gap 0x0 1540x1540", "chars_per_kpx": 22.2, "chars": 900,
            "char_accuracy": acc, "hard_tokens": 10, "hard_tokens_exact": 10,
        }  # fmt: skip

    path = tmp_path / "evidence.jsonl"
    path.write_text("".join(json.dumps(record(0.99)) + "\n" for _ in range(12)), encoding="utf-8")
    assert main(["profiles", "--evidence", str(path)]) == 0
    out = capsys.readouterr().out
    assert (
        "default rule with these records: claude-sonnet-5-5: snap5x9v2 gray gap 0x0 rests on "
        "model evidence: canary records (band crops) N=12 (12 read)" in out
    )


def test_canary_records_of_a_model_no_table_knows_are_said_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from snapshot.proxy.evidence import SCHEMA

    rec = {"schema": SCHEMA, "model": "no-such-model", "reader": "r", "layout": "snap5x8 1-bit",
           "chars_per_kpx": 43.4, "chars": 900, "char_accuracy": 0.99, "hard_tokens": 0,
           "hard_tokens_exact": 0}  # fmt: skip
    path = tmp_path / "evidence.jsonl"
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    assert main(["profiles", "--evidence", str(path)]) == 0
    assert "no-such-model: no profile" in capsys.readouterr().out
