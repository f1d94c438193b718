"""bench/defaults_evidence.py takes the readings issue 40's done-when needs, in its order.

Every family's default page first, two qualified readers on every cell (page ±4 px, both
hidden texts) before any cell gets a third; a reader reads a layout only where its
control qualifies. The planner is driven here by a fake cache (no reader runs).
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location(
        "defaults_evidence", ROOT / "bench" / "defaults_evidence.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@dataclass
class _Read:
    char_accuracy: float


def _run(
    groups: list[list[Any]], readers: list[str], score: dict[str, tuple[float, float]], **kw: Any
) -> list[tuple[str, str, str]]:
    """Drive the planner to the end; ``score``: reader -> (layout chars, control chars)."""
    from snapshot.legibility.controls import is_control

    held: dict[tuple[Any, str, str], _Read] = {}
    planner = _bench().Planner(groups, readers, lambda lay, r, t: held.get((lay, r, t)), **kw)
    order = []
    while (task := planner.next(set())) is not None:
        lay, reader, text = task
        assert task not in held, "a reading is never taken twice"
        layout_chars, control_chars = score[reader]
        held[task] = _Read(control_chars if is_control(lay) else layout_chars)
        order.append((lay.key, reader, text))
    return order


def _layouts() -> list[Any]:
    from snapshot.legibility.frontier import CandidateLayout

    return [
        CandidateLayout("snap8x16", page=(1024, 1024)),
        CandidateLayout("snap5x8", page=(1568, 728)),
    ]


def test_two_qualified_readers_on_every_cell_of_every_default_before_a_third() -> None:
    a, b = _layouts()
    score = {"r1": (0.99, 0.99), "r2": (0.97, 0.98), "r3": (0.5, 0.99)}
    order = _run([[a, b]], ["r1", "r2", "r3"], score)
    third = [i for i, (_, reader, _) in enumerate(order) if reader == "r3"]
    two = [i for i, (_, reader, _) in enumerate(order) if reader != "r3"]
    # 2 layouts x 6 cells x 2 readers x (control + layout), then the third reader everywhere
    assert len(two) == 48 and len(third) == 24
    assert max(two) < min(third)
    # families take turns: the second layout's first cell comes before the first's second
    first_b = next(i for i, (k, _, _) in enumerate(order) if "1568x728" in k)
    first_a_plus4 = next(i for i, (k, _, _) in enumerate(order) if "1028x1028" in k)
    assert first_b < first_a_plus4


def test_an_unqualified_reader_reads_only_its_control_and_the_next_reader_steps_in() -> None:
    a, _ = _layouts()
    score = {"r1": (0.99, 0.99), "bad": (0.99, 0.80), "r2": (0.97, 0.98)}
    order = _run([[a]], ["r1", "bad", "r2"], score)
    bad = [k for k, reader, _ in order if reader == "bad"]
    assert len(bad) == 6 and all(k.startswith("dejavu") for k in bad), bad  # controls only
    assert sum(reader == "r2" for _, reader, _ in order) == 12  # control + layout per cell


def test_a_third_reader_whose_control_is_already_read_still_waits_its_turn() -> None:
    from snapshot.legibility.controls import control_layout

    a, b = _layouts()
    held: dict[tuple[Any, str, str], _Read] = {(control_layout(a), "r3", "hardlines"): _Read(0.99)}
    planner = _bench().Planner([[a, b]], ["r1", "r2", "r3"], lambda *k: held.get(k))
    first = []
    while (task := planner.next(set())) is not None and task[1] != "r3":
        held[task] = _Read(0.99)
        first.append(task)
    assert len(first) == 48  # every cell of both layouts has r1 and r2 before r3 reads one


def test_a_settled_candidate_is_read_no_further() -> None:
    a, b = _layouts()
    score = {"r1": (0.50, 0.99), "r2": (0.97, 0.98)}
    order = _run([[a], [b]], ["r1", "r2"], score, settle=[False, True])
    # the default gets every cell; the candidate stops at its first reading below the bar
    assert sum("1568x728" in k and not k.startswith("dejavu") for k, _, _ in order) == 1


def test_the_record_has_the_done_when_goal_and_a_line_per_family(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from snapshot.legibility.default_evidence import family_defaults

    bench = _bench()
    monkeypatch.setenv("SNAPSHOT_BENCH_OUT", str(tmp_path))
    bench.results.begin(bench.BENCH)
    record = bench.report(tmp_path / "no-readings.jsonl", 0, ["tesseract-x2"], 2)
    written = json.loads((tmp_path / "defaults_evidence.json").read_text(encoding="utf-8"))
    assert written["goal"] == record["goal"]
    goal = record["goal"]["families_whose_default_two_qualified_readers_pass"]
    families = {f.family for f in family_defaults()}
    assert len(families) == 14
    assert (goal["value"], goal["target"], goal["passed"]) == (0.0, 14.0, False)
    fams = record["results"]["families"]
    assert set(fams) == families
    fable = fams["claude-fable"]
    assert (fable["layout"], fable["page"]) == ("snap5x8 1-bit gap 0x0", [1484, 700])
    assert fable["readers_verdict"] == "incomplete" and fable["weakest_relative"] is None
    assert fable["readers_line"].startswith("no qualified reading")
    assert fable["unqualified"] == [] and fable["qualified_readers"] == []
    assert fable["default_rule"]["kind"] == "model evidence"
    assert "proxies for models" in record["results"]["params"]["labels"]
