"""``snapshot report``: run the benchmark and write REPORT.md, results.json and the figures."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from snapshot.report import markdown, plots
from snapshot.report.matrix import Settings
from snapshot.report.run import DEFAULT_MODELS, RunResult, run, save_json
from snapshot.report.tables import aggregate

# One model per family for the characters-per-token figure.
PROFILE_MODELS: tuple[str, ...] = (
    "claude-sonnet-4-5",
    "claude-opus-4-8",
    "claude-fable-5",
    "gpt-4o",
    "gpt-5.1",
    "gpt-5.4",
    "gpt-5.6-sol",
    "gpt-5-mini",
    "gemini-3-pro-preview",
    "gemini-3.6-flash",
    "gemini-2.5-pro",
    "grok-4.5",
    "pixtral-12b",
    "qwen2.5-vl",
)


@dataclass(frozen=True)
class ReportFiles:
    report: Path
    results: Path
    figures: dict[str, Path | None]
    result: RunResult


def profile_rows(models: Sequence[str]) -> list[dict[str, Any]]:
    """Each profile's page and density, with the same demo text's density as text."""
    from snapshot.billing.providers import text_tokenizer_for
    from snapshot.billing.text_tokens import count_text
    from snapshot.profiles import profile_for

    sample = resources.files("snapshot.demo").joinpath("session.txt").read_text(encoding="utf-8")
    rows = []
    for model in models:
        p = profile_for(model)
        d = p.as_dict()
        n = count_text(sample, text_tokenizer_for(p.canonical, p.family))
        d["text_chars_per_token"] = len(sample) / max(1, n.tokens)
        d["text_exact"] = n.exact
        rows.append(d)
    return rows


def make_report(
    corpus: Path | None,
    out: Path,
    *,
    models: Sequence[str] = DEFAULT_MODELS,
    settings: Settings | None = None,
    workers: int | None = None,
    limit: int | None = None,
    use_ocr: bool = False,
    legibility: str = "quick",
    probes: Path | None = None,
) -> ReportFiles:
    """Run the benchmark and write REPORT.md, results.json and the figures into ``out``.

    ``probes`` is a folder of live needle-probe records (``snapshot probe``):
    they join the needle-recall tables as one more reader per probed profile.
    """
    out.mkdir(parents=True, exist_ok=True)
    live = _probe_columns(probes, models) if probes is not None else []
    result = run(
        corpus, models=models, settings=settings, workers=workers, limit=limit, use_ocr=use_ocr
    )
    results = out / "results.json"
    save_json(result, results, probes=live)
    figures: dict[str, Path | None] = {
        "pareto": plots.pareto(aggregate(result.rows), out / "pareto.png"),
        "chars_per_token": plots.chars_per_token(
            profile_rows(PROFILE_MODELS), out / "chars_per_token.png"
        ),
        "raster_speed": plots.raster_speed(out / "bench.json", out / "raster_speed.png"),
    }
    sections: list[tuple[str, str]] = []
    if legibility != "none":
        from snapshot.legibility.report import write_sections

        # The legibility lab writes its own figures (legibility against resample
        # scale, generational loss) and returns markdown sections for them.
        sections.extend(write_sections(out, legibility))
    report = markdown.write(result, out, figures=figures, sections=sections, probes=live)
    return ReportFiles(report, results, figures, result)


def _probe_columns(folder: Path, models: Sequence[str]) -> list[Any]:
    """The needle-probe records in ``folder`` as reader columns (checked before the long run)."""
    from snapshot.report.needle_probe import load_records
    from snapshot.report.needle_recall import probe_recall

    return probe_recall(load_records(folder), models)
