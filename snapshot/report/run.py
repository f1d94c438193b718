"""Run the benchmark: sources × profiles × strategies, in parallel, with a progress bar."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from snapshot.progress import progress
from snapshot.report.matrix import Row, Settings, evaluate
from snapshot.report.needle_recall import reader_recall
from snapshot.report.sources import Source, corpus_sources, demo_sources, read_manifest

# The Claude, OpenAI and Gemini default profiles the report compares.
DEFAULT_MODELS: tuple[str, ...] = ("claude-sonnet-4-5", "gpt-5.1", "gemini-3-pro-preview")


@dataclass(frozen=True)
class Job:
    """One unit of work: a demo transcript or a manifest entry, by position."""

    corpus: str | None
    index: int


@dataclass(frozen=True)
class SourceStats:
    id: str
    category: str
    messages: int
    chars: int
    images: int
    real_summary: bool
    reference: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RunResult:
    rows: list[Row]
    sources: list[SourceStats]
    models: tuple[str, ...]
    settings: Settings
    corpus: str | None
    seconds: float
    workers: int
    ocr_reader: str | None
    errors: list[str]
    # Whole-page readers: name -> ReaderInfo.as_dict(), or {"unavailable": reason}.
    page_readers: dict[str, dict[str, Any]] = field(default_factory=dict)


_STATE: dict[str, Any] = {}


def _init(models: Sequence[str], settings: Settings, use_ocr: bool) -> None:
    from snapshot.ladder.target import target_for

    os.environ.setdefault("SNAPSHOT_NO_PROGRESS", "1")
    _STATE["targets"] = [target_for(m) for m in models]
    _STATE["settings"] = settings
    _STATE["ocr"] = _ocr_reader() if use_ocr else None


def _ocr_reader() -> Any:
    """The real OCR engine reading rows of a page, or None when the [ocr] extra is absent."""
    from snapshot.legibility.readers import PageLayout, RapidOcrReader, rapidocr_available
    from snapshot.legibility.resample import NATIVE

    if not rapidocr_available():
        return None
    reader = RapidOcrReader()

    def read_rows(page: Any, rows: Sequence[int]) -> list[str]:
        return reader.read(NATIVE.apply(page.pixels), PageLayout.of(page), list(rows))

    return read_rows


def _source(job: Job) -> Source:
    if job.corpus is None:
        return demo_sources()[job.index]
    manifest = Path(job.corpus)
    return next(corpus_sources(manifest, start=job.index, limit=1))


def _reader_infos(names: Sequence[str]) -> dict[str, dict[str, Any]]:
    """What each whole-page reader is (name, version, model hash, settings), or why it is not."""
    from snapshot.legibility.page_readers import ReaderUnavailable, load_page_reader

    out: dict[str, dict[str, Any]] = {}
    for name in names:
        try:
            out[name] = load_page_reader(name).info.as_dict()
        except ReaderUnavailable as exc:
            out[name] = {"name": name, "unavailable": str(exc)}
    return out


def _work(job: Job) -> tuple[list[Row], SourceStats | None, str | None, dict[str, Any]]:
    rows, stats, error = _evaluate_job(job)
    names = _STATE["settings"].page_readers
    return rows, stats, error, _reader_infos(names) if names and rows else {}


def _evaluate_job(job: Job) -> tuple[list[Row], SourceStats | None, str | None]:
    try:
        source = _source(job)
    except Exception as exc:  # a source that cannot be imported is reported, not fatal
        return [], None, f"job {job.index}: {type(exc).__name__}: {exc}"
    path = source.conversation.path()
    stats = SourceStats(
        id=source.id,
        category=source.category,
        messages=len(path),
        chars=sum(m.chars() for m in path),
        images=sum(len(m.images()) for m in path),
        real_summary=source.has_real_summary,
        reference=dict(source.reference),
    )
    try:
        rows = evaluate(source, _STATE["targets"], _STATE["settings"], ocr=_STATE["ocr"])
    except Exception as exc:  # one broken conversation is reported in REPORT.md, not fatal
        import traceback

        where = traceback.extract_tb(exc.__traceback__)[-1]
        return (
            [],
            stats,
            f"{source.id}: {type(exc).__name__}: {exc} ({where.filename}:{where.lineno})",
        )
    return rows, stats, None


def jobs_for(corpus: Path | None, limit: int | None = None) -> list[Job]:
    if corpus is None:
        n = len(demo_sources())
        return [Job(None, i) for i in range(n)][:limit]
    n = len(read_manifest(corpus))
    return [Job(str(corpus), i) for i in range(n)][:limit]


def run(
    corpus: Path | None,
    *,
    models: Sequence[str] = DEFAULT_MODELS,
    settings: Settings | None = None,
    workers: int | None = None,
    limit: int | None = None,
    use_ocr: bool = False,
) -> RunResult:
    settings = settings or Settings()
    jobs = jobs_for(corpus, limit)
    workers = max(1, min(workers or os.cpu_count() or 1, len(jobs) or 1))
    t0 = time.perf_counter()
    rows: list[Row] = []
    sources: list[SourceStats] = []
    errors: list[str] = []
    infos: dict[str, dict[str, Any]] = {}
    if workers == 1:
        _init(models, settings, use_ocr)
        results = (_work(j) for j in jobs)
        for r, s, e, i in progress(results, desc="conversations", total=len(jobs), unit="conv"):
            rows.extend(r)
            sources.extend([s] if s else [])
            errors.extend([e] if e else [])
            infos.update(i)
    else:
        ctx = mp.get_context("fork" if hasattr(os, "fork") else "spawn")
        with ctx.Pool(
            workers, initializer=_init, initargs=(tuple(models), settings, use_ocr)
        ) as pool:
            # Big conversations first, so the last worker is not left with the longest one.
            ordered = sorted(jobs, key=lambda j: -_size_hint(j))
            for r, s, e, i in progress(
                pool.imap_unordered(_work, ordered),
                desc="conversations",
                total=len(jobs),
                unit="conv",
            ):
                rows.extend(r)
                sources.extend([s] if s else [])
                errors.extend([e] if e else [])
                infos.update(i)
    rows.sort(key=lambda r: (r.source, r.model, r.strategy))
    sources.sort(key=lambda s: s.id)
    ocr_name = (
        "rapidocr PP-OCRv4 recognition on crops given the renderer's rows "
        "(bundled in rapidocr_onnxruntime)"
        if use_ocr
        else None
    )
    return RunResult(
        rows,
        sources,
        tuple(models),
        settings,
        str(corpus) if corpus else None,
        time.perf_counter() - t0,
        workers,
        ocr_name,
        errors,
        {n: infos[n] for n in settings.page_readers if n in infos},
    )


def _size_hint(job: Job) -> int:
    if job.corpus is None:
        return 0
    entry = read_manifest(Path(job.corpus))[job.index]
    return int(entry.get("chars", 0))


def save_json(result: RunResult, path: Path, *, probes: Sequence[Any] = ()) -> None:
    """results.json: settings, reader provenance, needle recall (with live probes), every row."""
    payload = {
        "corpus": result.corpus,
        "models": list(result.models),
        "settings": result.settings.__dict__,
        "seconds": round(result.seconds, 1),
        "workers": result.workers,
        "crop_reader_given_rows": result.ocr_reader,
        "page_readers": result.page_readers,
        "needle_recall": [x.to_json() for x in reader_recall(result.rows, with_text=True)]
        + [x.to_json() for x in probes],
        "errors": result.errors,
        "sources": [s.__dict__ for s in result.sources],
        "rows": [r.to_json() for r in result.rows],
    }
    path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
