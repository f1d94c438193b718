"""Every figure of the report says where it comes from; the README's numbers are the run's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from snapshot.cli import main
from snapshot.report.provenance import LABELS, weakest
from snapshot.report.readme import readme_block, results_block, rewrite_readme, rows_from_json
from snapshot.report.summaries import summary_size
from snapshot.report.tables import aggregate, budget_met, per_conversation

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("report")
    readme = out / "README.md"
    readme.write_text("# x\n\n<!-- results:begin -->\nold\n<!-- results:end -->\n\nend\n")
    argv = ["report", "--out", str(out), "--workers", "1", "--no-legibility"]
    argv += ["--model", "gpt-5.1", "--model", "claude-sonnet-4-5", "--readme", str(readme)]
    assert main(argv) == 0
    payload = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return {"out": out, "payload": payload, "readme": readme, "argv": argv}


def test_every_row_names_the_provenance_of_its_token_figures(demo_run: dict) -> None:
    for r in demo_run["payload"]["rows"]:
        assert r["provenance"]["tokens_after"] in LABELS
        assert r["provenance"]["tokens_before"] in LABELS
        assert set(r["tokens_provenance"]) <= set(LABELS)
        # The parts are the figure: nothing is left unlabelled.
        assert sum(r["tokens_provenance"].values()) == r["tokens_after"], r
        assert r["provenance"]["tokens_after"] == weakest(r["tokens_provenance"])


def test_a_modelled_summary_is_marked_modelled_everywhere_it_counts(demo_run: dict) -> None:
    modelled = [r for r in demo_run["payload"]["rows"] if r["summary_source"] == "modelled"]
    assert modelled, "the demo has no real summary, so its summaries are modelled"
    for r in modelled:
        assert r["tokens_provenance"]["modelled"] > 0
        assert r["provenance"]["tokens_after"] == "modelled"
        assert r["recall_text"] is None
    # OpenAI text is counted by an exact tokenizer; Claude's is not exact.
    gpt = next(r for r in demo_run["payload"]["rows"] if r["model"] == "gpt-5.1")
    claude = next(r for r in demo_run["payload"]["rows"] if r["model"].startswith("claude"))
    assert gpt["provenance"]["tokens_before"] == "exact"
    assert claude["provenance"]["tokens_before"] in ("reconstructed", "estimated")


def test_results_record_the_command_and_the_summary_size(demo_run: dict) -> None:
    payload = demo_run["payload"]
    assert payload["command"] == "snapshot " + " ".join(demo_run["argv"])
    size = payload["summary_size"]
    assert size["measured"] is False and size["count"] == 0 and "no real summary" in size["source"]


def test_report_prints_markers_budget_three_ways_and_a_generated_trust_section(
    demo_run: dict,
) -> None:
    text = (demo_run["out"] / "REPORT.md").read_text(encoding="utf-8")
    assert "nothing is typed in by hand" not in text
    assert "oracle" not in text.lower()
    assert "met by free rungs alone | met with a real summary | met with a modelled summary" in text
    assert "summary · modelled summary" in text
    assert "per conversation: median [IQR]" in text
    trust = text[text.index("## How far to trust") :]
    assert "Summary output size (modelled" in trust and "| model | strategy | measured |" in trust
    assert (demo_run["out"] / "distribution.png").read_bytes().startswith(b"\x89PNG")


def test_the_readme_block_is_generated_from_results(demo_run: dict) -> None:
    block = readme_block(demo_run["readme"])
    assert block == results_block(demo_run["payload"])
    assert demo_run["readme"].read_text(encoding="utf-8").endswith("\n\nend\n")
    assert "gpt-5.1" in block and "old" not in block


def test_rewrite_refuses_a_readme_without_the_block(tmp_path: Path) -> None:
    from snapshot.errors import InputError

    (tmp_path / "README.md").write_text("no block\n")
    (tmp_path / "results.json").write_text("{}")
    with pytest.raises(InputError, match="results:begin"):
        rewrite_readme(tmp_path / "README.md", tmp_path / "results.json")


def test_one_population_per_row(demo_run: dict) -> None:
    rows = rows_from_json(demo_run["payload"])
    for a in aggregate(rows):
        group = [
            r
            for r in rows
            if r.model == a.model
            and r.strategy == a.strategy
            and (a.population == "" or r.summary_source in _sources(a.population))
        ]
        assert len(group) == a.conversations
        if a.population == "modelled summary":
            assert a.unmeasured == a.conversations  # no recall anywhere in the row
    for b in budget_met(rows):
        assert b.free_rungs + b.real_summary + b.modelled_summary + b.not_met == b.conversations


def _sources(population: str) -> set[str | None]:
    return {
        "free rungs": {None},
        "real summary": {"corpus", "model"},
        "modelled summary": {"modelled"},
    }[population]


def test_per_conversation_statistics() -> None:
    assert per_conversation([0.5]) == (0.5, 0.5, 0.5)
    q1, med, q3 = per_conversation([0.1, 0.9, 0.2, 0.3])
    assert (q1, med, q3) == pytest.approx((0.175, 0.25, 0.45))


def test_summary_size_is_measured_from_the_real_summaries_it_is_given() -> None:
    size = summary_size([14518, 15743, 12181, 16162, 14599, 11788, 15075])
    assert size.measured and size.count == 7 and size.mean_chars == 14295
    assert size.min_chars == 11788 and size.max_chars == 16162 and size.stdev_chars > 0


@pytest.mark.corpus
def test_the_corpus_summaries_are_measured_at_run_time() -> None:
    if not (CORPUS / "benchmark.manifest.json").is_file():
        pytest.skip("../shared/corpus is absent: the real summaries cannot be measured")
    from snapshot.report.run import jobs_for, measure_summaries

    size = measure_summaries(jobs_for(CORPUS / "benchmark.manifest.json"))
    assert size.measured and size.count >= 5
    assert size.source.startswith(f"mean of the {size.count} real compaction summaries")


def test_committed_readme_matches_committed_results() -> None:
    """The README's results block and corpus command are those of reports/results.json."""
    results = ROOT / "reports" / "results.json"
    readme = ROOT / "README.md"
    if not results.is_file() or not readme.is_file():
        pytest.skip("not a source checkout: README.md and reports/ are not installed")
    payload = json.loads(results.read_text(encoding="utf-8"))
    assert payload.get("command"), "reports/results.json must record the command that made it"
    assert readme_block(readme) == results_block(payload)
    commands = re.findall(r"^(?:\.venv/bin/)?(snapshot report .*)$", readme.read_text(), re.M)
    assert payload["command"] in commands, (payload["command"], commands)


_TIMINGS = {"seconds", "date", "load", "reader_cpu_s"}  # run conditions, not figures


def _without_timings(value: object) -> object:
    """A results.json payload with wall-clock figures (and the command) taken out."""
    if isinstance(value, dict):
        return {
            k: _without_timings(v) for k, v in value.items() if k not in _TIMINGS and k != "command"
        }
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def test_rerunning_the_same_command_reproduces_the_figures(tmp_path: Path) -> None:
    """Same input, same profiles: the same results.json, timings aside (issue 13)."""
    payloads = []
    for name in ("a", "b"):
        out = tmp_path / name
        argv = ["report", "--out", str(out), "--workers", "2", "--no-legibility"]
        assert main([*argv, "--model", "gpt-6.1-sol", "--limit", "2"]) == 0
        payloads.append(json.loads((out / "results.json").read_text(encoding="utf-8")))
    assert _without_timings(payloads[0]) == _without_timings(payloads[1])


def test_a_readme_without_the_block_is_refused_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# no block here\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["report", "--out", str(out), "--readme", str(readme), "--no-legibility"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "results:begin" in err
    assert not out.exists()  # nothing was run or written
