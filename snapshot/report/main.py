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


class _Lab:
    """The legibility lab running in a process of its own, beside the conversations."""

    def __init__(self, out: Path, size: str) -> None:
        import multiprocessing as mp
        import os
        from concurrent.futures import ProcessPoolExecutor

        from snapshot.legibility.report import write_sections

        ctx = mp.get_context("fork" if hasattr(os, "fork") else "spawn")
        self._pool = ProcessPoolExecutor(1, mp_context=ctx)
        self._future = self._pool.submit(write_sections, out, size)

    def result(self) -> list[tuple[str, str]]:
        """The lab's REPORT.md sections, once it has written its files."""
        try:
            return self._future.result()
        finally:
            self._pool.shutdown(wait=True)

    def abandon(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _lab_note(size: str) -> tuple[str, str]:
    """What the report's legibility sections cover, and how to get the rest."""
    from snapshot.legibility.report import LAB_SIZES

    p = LAB_SIZES[size]
    if size == "full":
        return ("Legibility lab: extent", f"The full lab ran ({p['lines']} hard lines per font).")
    return (
        "Legibility lab: extent",
        f"This report ran the legibility lab on its quick fixed sample: {p['lines']} seeded hard "
        f"lines per font for the oracle, {p['ocr_lines']} of them for rapidocr (bicubic only), "
        f"{p['compare_lines']} for the font comparison and {p['tess_lines']} for Tesseract; its "
        "figures are that sample's, measured, and noisy. The full lab (40 lines, every filter, "
        "several minutes): `snapshot report --legibility full`, or on its own "
        "`python -m snapshot.legibility.report --out reports`.",
    )


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
    engine: str = "local",
    scheduler: str | None = None,
) -> ReportFiles:
    out.mkdir(parents=True, exist_ok=True)
    # The legibility lab is one process of work: it runs beside the conversations
    # (which take the other cores) instead of after them.
    lab = _Lab(out, legibility) if legibility != "none" else None
    try:
        result = run(
            corpus,
            models=models,
            settings=settings,
            workers=workers,
            limit=limit,
            use_ocr=use_ocr,
            engine=engine,
            scheduler=scheduler,
        )
    except BaseException:
        if lab is not None:
            lab.abandon()
        raise
    results = out / "results.json"
    save_json(result, results)
    figures: dict[str, Path | None] = {
        "pareto": plots.pareto(aggregate(result.rows), out / "pareto.png"),
        "chars_per_token": plots.chars_per_token(
            profile_rows(PROFILE_MODELS), out / "chars_per_token.png"
        ),
        "raster_speed": plots.raster_speed(out / "bench.json", out / "raster_speed.png"),
    }
    sections: list[tuple[str, str]] = []
    if lab is not None:
        # The legibility lab writes its own figures (legibility against resample
        # scale, generational loss) and returns markdown sections for them.
        sections.extend(lab.result())
        sections.append(_lab_note(legibility))
    report = markdown.write(result, out, figures=figures, sections=sections)
    return ReportFiles(report, results, figures, result)
