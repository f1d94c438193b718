"""Run the benchmark: sources × profiles × strategies, in parallel, with a progress bar."""

from __future__ import annotations

import datetime as dt
import json
import multiprocessing as mp
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from snapshot.profiles import current_default_models
from snapshot.progress import progress
from snapshot.report.matrix import MatrixRow, Settings, evaluate
from snapshot.report.models import profile_of, reader_for
from snapshot.report.needle_recall import reader_recall
from snapshot.report.ranges import range_rows
from snapshot.report.source_stats import SourceStats
from snapshot.report.sources import (
    Source,
    SourceRef,
    corpus_sources,
    demo_sources,
    read_manifest,
)
from snapshot.report.summaries import SummarySize, real_summary_lengths, summary_size
from snapshot.report.validation import source_validation, totals

# The Claude, OpenAI and Gemini default profiles the report compares.
DEFAULT_MODELS: tuple[str, ...] = current_default_models()  # current today, from the table


@dataclass(frozen=True)
class Job:
    """One unit of work: a demo transcript or a manifest entry, by position."""

    corpus: str | None
    index: int


@dataclass(frozen=True)
class RunResult:
    rows: list[MatrixRow]
    sources: list[SourceStats]
    models: tuple[str, ...]
    settings: Settings
    corpus: str | None
    seconds: float
    workers: int
    ocr_reader: str | None
    errors: list[str]
    summary_size: SummarySize | None = None
    command: str = ""
    engine: str = "local"
    # Whole-page readers: name -> ReaderInfo.as_dict(), or {"unavailable": reason}.
    page_readers: dict[str, dict[str, Any]] = field(default_factory=dict)


_STATE: dict[str, Any] = {}

#: Where the benchmark runs: this machine's process pool, or a Dask cluster.
ENGINES = ("local", "dask")


# Job.corpus of a job over sources handed to run() (a user's own sessions).
GIVEN = "<given sources>"


def _init(
    models: Sequence[str],
    settings: Settings,
    use_ocr: bool,
    given: Sequence[SourceRef] = (),
    stages: Any = None,
) -> None:

    _STATE["given"] = list(given)
    if stages is not None:  # a worker process: its stages go to the main process's line
        pid = os.getpid()
        _STATE["stage"] = lambda text: stages.put((pid, text))
    os.environ.setdefault("SNAPSHOT_NO_PROGRESS", "1")
    _STATE["key"] = (tuple(models), settings, use_ocr)
    _STATE["targets"] = [reader_for(m, settings.profiles_file) for m in models]
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
    if job.corpus == GIVEN:
        ref: SourceRef = _STATE["given"][job.index]
        return ref.load()
    if job.corpus is None:
        return demo_sources()[job.index]
    manifest = Path(job.corpus)
    return next(corpus_sources(manifest, start=job.index, limit=1))


def job_name(job: Job) -> str:
    """The conversation a job stands for, without importing it."""
    if job.corpus is None:
        return f"demo conversation {job.index + 1}"
    try:
        entry = read_manifest(Path(job.corpus))[job.index]
    except Exception:  # the name is for an error message: never fail on it
        return f"manifest entry {job.index}"
    return str(entry.get("id", entry.get("path", job.index)))


def shard_work(
    job: Job, model: int, models: tuple[str, ...], settings: Settings, use_ocr: bool
) -> tuple[list[MatrixRow], SourceStats | None, str | None, dict[str, Any]]:
    """One conversation with one profile (a Dask task): the worker keeps its state."""
    if _STATE.get("key") != (tuple(models), settings, use_ocr):
        _init(models, settings, use_ocr)
    return _work(job, model)


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


def _work(
    job: Job, model: int | None = None
) -> tuple[list[MatrixRow], SourceStats | None, str | None, dict[str, Any]]:
    rows, stats, error = _evaluate_job(job, model)
    names = _STATE["settings"].page_readers
    return rows, stats, error, _reader_infos(names) if names and rows else {}


def _stage(text: str) -> None:
    """Tell the progress line what this worker is at (nothing without one)."""
    hook = _STATE.get("stage")
    if hook is not None:
        hook(text)


def _evaluate_job(
    job: Job, model: int | None = None
) -> tuple[list[MatrixRow], SourceStats | None, str | None]:
    _stage(f"#{job.index + 1}: import")
    try:
        source = _source(job)
    except Exception as exc:  # a source that cannot be imported is reported, not fatal
        return [], None, f"job {job.index}: {type(exc).__name__}: {exc}"
    path = source.conversation.path()
    short = f"#{job.index + 1} {Path(source.id).name[:24]}"
    _stage(f"{short}: validation")
    stats = SourceStats(
        id=source.id,
        category=source.category,
        messages=len(path),
        chars=sum(m.chars() for m in path),
        images=sum(len(m.images()) for m in path),
        real_summary=source.has_real_summary,
        reference=dict(source.reference),
        validation=source_validation(source.conversation),
        measured=str(source.conversation.meta.get("measured") or ""),
    )
    try:
        targets = _STATE["targets"] if model is None else [_STATE["targets"][model]]
        rows = evaluate(
            source,
            targets,
            _STATE["settings"],
            ocr=_STATE["ocr"],
            stage=lambda model: _stage(f"{short}: {model}"),
        )
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


def measure_summaries(
    jobs: Sequence[Job],
    cache: Path | None = None,
    origins: dict[Job, tuple[str, int]] | None = None,
) -> SummarySize:
    """The modelled summary's size, from the real summaries among the jobs' conversations.

    A first, import-only pass (cheap next to the benchmark itself): the size must be
    known before any conversation is compacted, and it is the same for all of them.
    With ``cache`` each conversation's lengths are kept under its ``origins`` key.
    """
    from snapshot.report.cache import ResultCache, run_salt

    store = ResultCache(cache, run_salt((), Settings(), False)) if cache is not None else None
    lengths: list[int] = []
    for job in progress(jobs, desc="summaries", total=len(jobs), unit="conv"):
        listed = _STATE["given"][job.index].summaries if job.corpus == GIVEN else None
        if listed is not None:  # read when the file was listed: no second import
            lengths.extend(listed)
            continue
        key = (
            store.key("summaries:" + origins[job][0], origins[job][1]) if store and origins else ""
        )
        known = store.get_json(key) if store is not None and key else None
        if isinstance(known, list):
            lengths.extend(int(n) for n in known)
            continue
        try:
            found = real_summary_lengths([_source(job).conversation])
        except Exception:  # the main pass reports a source that cannot be imported
            continue
        lengths.extend(found)
        if store is not None and key:
            store.put_json(key, list(found))
    return summary_size(lengths)


def run(
    corpus: Path | None,
    *,
    models: Sequence[str] = DEFAULT_MODELS,
    settings: Settings | None = None,
    workers: int | None = None,
    limit: int | None = None,
    use_ocr: bool = False,
    command: str = "",
    given: Sequence[SourceRef] | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    cache: Path | None = None,
) -> RunResult:
    """Every strategy on every conversation × profile: on local processes or a Dask cluster.

    ``given``: run on these conversations (a user's own) instead of the demo or corpus.
    ``cache``: a folder of earlier results (:mod:`snapshot.report.cache`); a
    conversation whose file, the package and the settings are unchanged is read
    back from it instead of run (local engine).
    ``engine="dask"`` shards conversations × profiles over the cluster at
    ``scheduler`` (or a new local one, see :mod:`snapshot.report.cluster`);
    the rows are the same as the local run's.
    """
    from snapshot.errors import InputError

    if engine not in ENGINES:
        raise InputError(f"unknown engine {engine!r}; use one of {', '.join(ENGINES)}")
    if scheduler and engine != "dask":
        raise InputError("--scheduler needs --engine dask")
    own = given is not None
    if own and engine == "dask":
        # Cluster workers import sources by manifest entry; paths read here stay here.
        raise InputError(
            "--engine dask runs a --corpus manifest or the demo; PATH arguments run locally"
        )
    settings = settings or Settings()
    if not settings.priced_on:
        settings = replace(settings, priced_on=dt.date.today().isoformat())
    given = list(given or ())
    jobs = [Job(GIVEN, i) for i in range(len(given))][:limit] if own else jobs_for(corpus, limit)
    _STATE["given"] = given  # _source() reads given jobs from here
    origins = {job: _job_origin(job) for job in jobs} if cache is not None else {}
    size = measure_summaries(jobs, cache, origins)
    settings = replace(settings, summary_chars=size.mean_chars, summary_size_source=size.source)
    if settings.page_readers and settings.reader_conversations:
        from snapshot.report.readability import reader_sample

        ids = {_job_id(j): j for j in jobs}
        candidates = [(i, _size_hint(j)) for i, j in ids.items()]
        chosen = reader_sample(candidates, settings.reader_conversations, seed=settings.seed)
        settings = replace(settings, reader_sources=chosen)
    units = len(jobs) * len(models) if engine == "dask" else len(jobs)
    workers = max(1, min(workers or os.cpu_count() or 1, units or 1))
    t0 = time.perf_counter()
    rows: list[MatrixRow] = []
    sources: list[SourceStats] = []
    errors: list[str] = []

    infos: dict[str, dict[str, Any]] = {}

    def collect(results: Iterable[tuple[Any, ...]]) -> None:
        # (rows, stats, error[, reader infos]): a failed Dask shard has no infos.
        for r, s, e, *info in results:
            rows.extend(r)
            infos.update(info[0] if info else {})
            if s is not None and all(x.id != s.id for x in sources):
                sources.append(s)
            if e is not None and e not in errors:
                errors.append(e)

    # The conversations the page readers read (the slowest by far) first, then the
    # big ones, so the last worker is not left with the longest one.
    ordered = sorted(jobs, key=lambda j: (not _reads_pages(j, settings), -_size_hint(j)))
    store = None
    keys: dict[Job, str] = {}
    if cache is not None and engine == "local":
        from snapshot.report.cache import ResultCache, run_salt

        store = ResultCache(cache, run_salt(models, settings, use_ocr))
        keys = {job: store.key(*origins[job]) for job in jobs}
    hits = {job: store.get(keys[job]) for job in ordered} if store is not None else {}
    todo = [job for job in ordered if hits.get(job) is None]
    collect(hit for hit in hits.values() if hit is not None)

    def finish(done: Iterable[tuple[Job, tuple[Any, ...]]], bar: Any) -> Iterator[tuple[Any, ...]]:
        for job, result in done:
            if store is not None and result[2] is None:  # a failed conversation is tried again
                store.put(keys[job], result)
            bar.done(_size_hint(job), _job_label(job))
            yield result

    if engine == "dask":
        from snapshot.report.cluster import run_shards

        shards = [(job, m) for job in ordered for m in range(len(models))]
        collect(
            run_shards(
                shards,
                shard_work,
                job_name,
                models,
                scheduler=scheduler,
                workers=workers,
                args=(tuple(models), settings, use_ocr),
            )
        )
    else:
        from snapshot.report.eta import RunProgress

        bar = RunProgress(
            [_eta_weight(j, settings, models) for j in ordered],
            [hits.get(j) is not None for j in ordered],
        )
        try:
            if workers == 1 and todo:
                _init(models, settings, use_ocr, given)
                _STATE["stage"] = lambda text: bar.stage(0, text)
                run_now = set(todo)
                inline = ((j, _work(j)) for j in jobs if j in run_now)
                try:
                    collect(finish(inline, bar))
                finally:
                    _STATE.pop("stage", None)
            elif todo:
                _STATE["given"] = given  # for the size hint below
                ctx = mp.get_context("fork" if hasattr(os, "fork") else "spawn")
                if ctx.get_start_method() == "fork":
                    # The workers fork from here: readers made once here leave each
                    # worker's _init its tokenizers, fonts, pages and price table loaded
                    # (o200k_base's tables alone cost ~0.6 s of CPU a process).
                    for model in models:
                        reader_for(model, settings.profiles_file)
                stages = ctx.SimpleQueue()
                bar.listen(stages)
                with ctx.Pool(
                    min(workers, len(todo)),
                    initializer=_init,
                    initargs=(tuple(models), settings, use_ocr, given, stages),
                ) as pool:
                    collect(finish(pool.imap_unordered(_job_work, todo), bar))
        finally:
            bar.close()
    rows.sort(key=lambda r: (r.source, r.model, r.strategy))
    sources.sort(key=lambda s: s.id)
    errors.sort()
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
        size,
        command,
        engine,
        {n: infos[n] for n in settings.page_readers if n in infos},
    )


def _job_work(job: Job) -> tuple[Job, tuple[Any, ...]]:
    """:func:`_work` with its job, so the main process can store the result under its key."""
    return job, _work(job)


def _job_label(job: Job) -> str:
    return f"#{job.index + 1}"


def _job_origin(job: Job) -> tuple[str, int]:
    """What a job's result depends on besides code and settings: its file's bytes, by digest."""
    from snapshot.report.cache import file_digest

    if job.corpus == GIVEN:
        ref: SourceRef = _STATE["given"][job.index]
        return f"{file_digest(ref.path)}:{ref.id}:{ref.category}", ref.index
    if job.corpus is None:
        return "demo", job.index
    entry = read_manifest(Path(job.corpus))[job.index]
    path = Path(job.corpus).parent / str(entry["path"])
    digest = file_digest(path) if path.exists() else "absent"
    return f"{digest}:{json.dumps(entry, sort_keys=True, default=str)}", 0


def _job_id(job: Job) -> str:
    """The conversation id a job's rows will carry (the same as ``Source.id``)."""
    if job.corpus == GIVEN:
        return str(_STATE["given"][job.index].id)
    if job.corpus is None:
        return demo_sources()[job.index].id
    entry = read_manifest(Path(job.corpus))[job.index]
    return str(entry.get("id", entry["path"]))


def _reads_pages(job: Job, settings: Settings) -> bool:
    return bool(settings.page_readers) and settings.reads_pages_of(_job_id(job))


def _eta_weight(job: Job, settings: Settings, models: Sequence[str]) -> int:
    """A job's weight in the ETA: its characters, and for a conversation the whole-page
    readers read, their estimated CPU seconds at :data:`~snapshot.report.reader_plan.
    ETA_CHARS_PER_S` (so the bar does not stall at 99 % while they read)."""
    size = _size_hint(job)
    if not _reads_pages(job, settings):
        return size
    from snapshot.report.reader_plan import ETA_CHARS_PER_S, plan_of, profile_geometries

    one = replace(plan_of(settings), conversations=1)
    return size + round(one.cpu_estimate(profile_geometries(models)) * ETA_CHARS_PER_S)


def _size_hint(job: Job) -> int:
    if job.corpus == GIVEN:
        return int(_STATE["given"][job.index].chars)
    if job.corpus is None:
        return sum(m.chars() for m in demo_sources()[job.index].conversation.path())
    entry = read_manifest(Path(job.corpus))[job.index]
    return int(entry.get("chars", 0))


def model_records(
    models: Sequence[str],
    today: str | None = None,
    profiles_file: str | None = None,
    tier: str = "standard",
) -> dict[str, dict[str, Any]]:
    """Per profile: its lifecycle and the price it was billed at on ``today`` (the run's day).

    ``tier``: the price tier of the run (an absent tier is an InputError, see
    :func:`snapshot.billing.prices.at_tier`).

    >>> rec = model_records(["gpt-6.1-sol"], "2026-12-02")["gpt-6.1-sol"]
    >>> rec["price"]["matched_model"], rec["status"], rec["price"]["priced_on"]
    ('gpt-6.1-sol', 'current', '2026-12-02')
    >>> model_records(["gemini-3.8-flash"], "2027-01-02")["gemini-3.8-flash"]["price"]["input_per_mtok"]
    1.5
    """
    from snapshot.billing.text_tokens import resolve_tokenizer

    out: dict[str, dict[str, Any]] = {}
    for model in models:
        # what target_for(...) would say, without building a Target: that counts
        # the demo text with every tokenizer (seconds, for a few table cells)
        profile = profile_of(model, profiles_file)
        price = profile.price(today, tier)
        out[model] = {
            **profile.lifecycle_record(today),
            "text_counter": resolve_tokenizer(profile.text_tokenizer).method,
            "price": price.record() if price is not None else None,
            "uncertain": profile.range_record(),
        }
    return out


def validation_count(result: RunResult) -> dict[str, Any]:
    """The run's validation count: source exports and ladder requests, checked."""
    return totals(
        (s.validation for s in result.sources),
        (r.request_validation for r in result.rows if r.request_validation),
    )


def save_json(result: RunResult, path: Path, *, probes: Sequence[Any] = ()) -> None:
    """results.json: settings, reader provenance, needle recall (with live probes), every row."""
    from snapshot.report.provenance import LABELS, LEGEND

    payload = {
        "command": result.command,
        "corpus": result.corpus,
        "models": list(result.models),
        "settings": result.settings.__dict__,
        "seconds": round(result.seconds, 1),
        "workers": result.workers,
        "engine": result.engine,
        "crop_reader_given_rows": result.ocr_reader,
        "page_readers": result.page_readers,
        # the readers' CPU (process time, measured) and the machine's 1-minute load at the end
        "reader_cpu_s": round(sum(r.reader_cpu_s for r in result.rows), 1),
        "load": round(os.getloadavg()[0], 2),
        "needle_recall": [x.to_json() for x in reader_recall(result.rows, with_text=True)]
        + [x.to_json() for x in probes],
        "errors": result.errors,
        "summary_size": result.summary_size.to_json() if result.summary_size else None,
        "provenance_labels": list(LABELS),
        "provenance_legend": LEGEND,
        "profiles": model_records(
            result.models,
            result.settings.priced_on or None,
            result.settings.profiles_file,
            tier=result.settings.tier,
        ),
        "ranges": [r.to_json() for r in range_rows(result.rows, result.models)],
        "validation": validation_count(result),
        "sources": [s.__dict__ for s in result.sources],
        "rows": [r.to_json() for r in result.rows],
    }
    path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
