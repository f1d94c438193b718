"""``snapshot report``: run the benchmark and write REPORT.md, results.json and the figures."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from snapshot.errors import InputError
from snapshot.report import markdown, plots
from snapshot.report.costs import check_tier
from snapshot.report.matrix import Settings
from snapshot.report.run import DEFAULT_MODELS, RunResult, run, save_json
from snapshot.report.sources import (
    PRIVACY_NOTICE,
    SourceRef,
    inventory_markdown,
    path_sources,
    write_inventory,
)
from snapshot.report.tables import aggregate
from snapshot.transcript.discover import Found

if TYPE_CHECKING:
    from snapshot.report.options import ReportOptions

#: Where a report keeps its per-conversation results for the next run, inside ``--out``.
CACHE_DIR = ".cache"


@dataclass(frozen=True)
class ReportFiles:
    report: Path
    results: Path
    figures: dict[str, Path | None]
    result: RunResult


def density_rows(result: RunResult) -> list[dict[str, Any]]:
    """Per profile of the report: a full page's characters per image token, and the report's
    own conversations' characters per text token by that profile's counter.

    The text side costs nothing more: each conversation's rows carry its text tokens as the
    run counted them (``MatrixRow.text_tokens_before``, every message serialized as the request
    carries it), beside its characters (``SourceStats.chars``).

    >>> from snapshot.report.matrix import MatrixRow, Settings
    >>> from snapshot.report.run import RunResult
    >>> from snapshot.report.source_stats import SourceStats
    >>> row = MatrixRow("c", "demo", "gpt-4o", "none", 120, 120, 0.0, 0, text_tokens_before=100)
    >>> stats = SourceStats("c", "demo", 2, 450, 0, False)
    >>> result = RunResult([row], [stats], ("gpt-4o",), Settings(), None, 0.0, 1, None, [])
    >>> [(d["model"], d["text_chars_per_token"], d["text_counter"]) for d in density_rows(result)]
    [('gpt-4o', 4.5, 'exact')]
    """
    from snapshot.report.models import profile_of

    chars = {s.id: s.chars for s in result.sources}
    out = []
    for model in result.models:
        p = profile_of(model, result.settings.profiles_file).as_dict()
        counted = [
            r
            for r in result.rows
            if r.model == p["canonical"] and r.strategy == "none" and r.source in chars
        ]
        tokens = sum(r.text_tokens_before for r in counted)
        out.append(
            {
                "model": p["canonical"],
                "font": p["font"],
                "page": p["page"],
                "chars_per_token": p["chars_per_token"],
                "text_chars_per_token": (
                    round(sum(chars[r.source] for r in counted) / tokens, 3) if tokens else None
                ),
                "text_counter": p["text_counter"]["kind"],
                "conversations": len(counted),
            }
        )
    return out


def _figures(result: RunResult, out: Path, cache: Path | None) -> dict[str, Path | None]:
    """The report's figures; with ``cache``, one drawn before from the same numbers is copied."""
    from dataclasses import replace

    from snapshot.report.reuse import cached_file

    aggregates = aggregate(result.rows)
    # The rows as the distribution draws them: the measured seconds are not drawn.
    drawn_rows = [replace(r, seconds=0.0) for r in result.rows]
    densities = density_rows(result)
    return {
        "pareto": cached_file(
            cache, aggregates, out / "pareto.png", lambda p: plots.pareto(aggregates, p)
        ),
        "distribution": cached_file(
            cache, drawn_rows, out / "distribution.png", lambda p: plots.distribution(drawn_rows, p)
        ),
        "chars_per_token": cached_file(
            cache,
            densities,
            out / "chars_per_token.png",
            lambda p: plots.chars_per_token(densities, p),
        ),
        "raster_speed": plots.raster_speed(out / "bench.json", out / "raster_speed.png"),
    }


class _Lab:
    """The legibility lab running in a process of its own, beside the conversations.

    With a ``cache`` folder its files and sections are kept there (:mod:`snapshot.report.reuse`):
    the same code, size and readers measure the same, so a re-run copies them back.
    """

    def __init__(self, out: Path, size: str, cache: Path | None = None) -> None:
        import multiprocessing as mp
        import os
        import shutil
        from concurrent.futures import ProcessPoolExecutor

        from snapshot.legibility.report import write_sections
        from snapshot.report.reuse import LabFiles

        self._out = out
        self._kept = LabFiles(cache, size) if cache is not None else None
        self._sections = self._kept.sections() if self._kept is not None else None
        self._pool: Any = None
        if self._sections is not None:
            return
        self._staged = out
        if self._kept is not None:  # written beside the cache entry, kept when complete
            folder = self._kept.folder
            self._staged = folder.with_name(f"{folder.name}.{os.getpid()}.partial")
            shutil.rmtree(self._staged, ignore_errors=True)
            self._staged.mkdir(parents=True)
        ctx = mp.get_context("fork" if hasattr(os, "fork") else "spawn")
        if ctx.get_start_method() == "fork":
            # Both processes draw figures: imported once here, the forked lab shares
            # matplotlib instead of importing it again (~0.8 s of CPU).
            import matplotlib.backends.backend_agg
            import matplotlib.figure  # noqa: F401
        self._pool = ProcessPoolExecutor(1, mp_context=ctx)
        self._future = self._pool.submit(write_sections, self._staged, size)

    def result(self) -> list[tuple[str, str]]:
        """The lab's REPORT.md sections, once its files are in the report folder."""
        import shutil

        if self._kept is not None and self._sections is not None:
            self._kept.copy_to(self._out)
            return self._sections
        try:
            sections: list[tuple[str, str]] = self._future.result()
        finally:
            self._pool.shutdown(wait=True)
        if self._kept is not None:
            for path in sorted(self._staged.iterdir()):
                shutil.copyfile(path, self._out / path.name)
            self._kept.keep(self._staged, sections)
        return sections

    def abandon(self) -> None:
        if self._pool is not None:
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
        f"lines per font for the round-trip check (the project's own decoder), {p['ocr_lines']} of them for rapidocr (bicubic only), "
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
    command: str = "",
    readme: Path | None = None,
    found: Sequence[Found] | None = None,
    show_needles: bool = False,
    engine: str = "local",
    scheduler: str | None = None,
    probes: Path | None = None,
    cache: bool = True,
    say: Callable[[str], None] = lambda line: None,
) -> ReportFiles:
    """Run the benchmark and write the report into ``out`` (and nowhere else).

    ``found``: a user's own transcripts (:func:`snapshot.transcript.discover.find`)
    instead of the demo or ``corpus``; the report then lists every path found
    and says at the top that it is private. ``show_needles``: quote examples of
    the needles (text from the sessions) in the report. ``probes`` is a folder of
    live needle-probe records (``snapshot probe``): they join the needle-recall
    tables as one more reader per probed profile. ``cache``: keep each
    conversation's results in ``out/.cache`` and reuse those of unchanged files
    (:mod:`snapshot.report.cache`). ``say`` hears, before any work, each
    optional part the run goes on without (:mod:`snapshot.report.preflight`).
    """
    from snapshot.report.preflight import missing_markdown, missing_parts

    if readme is not None:
        from snapshot.report.readme import readme_block

        readme_block(readme)  # a README without the block is refused before the long run
    missing = missing_parts(models, settings or Settings(), use_ocr=use_ocr, legibility=legibility)
    for part in missing:
        say(part.line())
    out.mkdir(parents=True, exist_ok=True)
    live = _probe_columns(probes, models) if probes is not None else []
    given: list[SourceRef] | None = None
    inventory: list[tuple[str, str]] = []
    if found is not None:
        given, units = path_sources(found, limit=limit)
        if not given:
            reasons = [f"{u.path}: {u.reason}" for u in units if u.reason][:3]
            raise InputError(
                f"no importable conversation in the {len(units)} path(s) given"
                + (f" ({'; '.join(reasons)})" if reasons else "")
                + "; give files or folders of agent sessions"
            )
        inventory.append(("Sources: the paths read", inventory_markdown(units)))
        write_inventory(units, out / "sources.json")
    # The legibility lab is one process of work: it runs beside the conversations
    # (which take the other cores) instead of after them.
    lab = (
        _Lab(out, legibility, out / CACHE_DIR if cache else None) if legibility != "none" else None
    )
    try:
        result = run(
            corpus,
            models=models,
            settings=settings,
            workers=workers,
            limit=limit,
            use_ocr=use_ocr,
            command=command,
            given=given,
            engine=engine,
            scheduler=scheduler,
            cache=out / CACHE_DIR if cache else None,
        )
    except BaseException:
        if lab is not None:
            lab.abandon()
        raise
    results = out / "results.json"
    save_json(result, results, probes=live)
    figures = _figures(result, out, out / CACHE_DIR if cache else None)
    sections: list[tuple[str, str]] = list(inventory)
    if given is not None and show_needles:
        sections.append(("Needle examples", _needle_examples(given, settings or Settings())))
    if missing:
        sections.append(("Optional parts missing", missing_markdown(missing)))
    if lab is not None:
        # The legibility lab writes its own figures (legibility against resample
        # scale, generational loss) and returns markdown sections for them.
        try:
            sections.extend(lab.result())
        except Exception as exc:  # the conversations' results are kept: never a late failure
            say(f"the legibility lab failed ({type(exc).__name__}: {exc}); the report goes on")
            sections.append(
                (
                    "Legibility lab: not run to the end",
                    f"The legibility lab failed ({type(exc).__name__}: {exc}); its sections "
                    "are missing from this report, every other figure is complete.",
                )
            )
        sections.append(_lab_note(legibility))
    notice = PRIVACY_NOTICE if found is not None else None
    report = markdown.write(
        result, out, figures=figures, sections=sections, notice=notice, probes=live
    )
    if readme is not None:
        from snapshot.report.readme import rewrite_readme

        rewrite_readme(readme, results)
    return ReportFiles(report, results, figures, result)


def _needle_examples(refs: Sequence[SourceRef], settings: Settings, per_source: int = 3) -> str:
    """A few of the needles drawn from each conversation: text quoted from the sessions."""
    from snapshot.report.matrix import needles_for

    lines = ["| conversation | kind | needle |", "|---|---|---|"]
    for source in (ref.load() for ref in refs):
        for needle in needles_for(source, settings)[:per_source]:
            text = needle.text.replace("|", "\\|").replace("\n", " ")[:80]
            lines.append(f"| `{source.id}` | {needle.kind} | `{text}` |")
    return "\n".join(lines)


def _probe_columns(folder: Path, models: Sequence[str]) -> list[Any]:
    """The needle-probe records in ``folder`` as reader columns (checked before the long run)."""
    from snapshot.report.needle_probe import load_records
    from snapshot.report.needle_recall import probe_recall

    return probe_recall(load_records(folder), models)


def sessions_to_read(
    paths: Sequence[str], discover: bool, *, corpus: Path | None, say: Callable[[str], None]
) -> list[Found] | None:
    """The user's own transcripts ``snapshot report mine PATH… / --discover`` reads, listed first.

    ``None`` when neither is given (the demo or ``corpus``). Each place found and
    each path (read or skipped, with why) goes to ``say`` before anything is read.

    >>> sessions_to_read([], False, corpus=None, say=print) is None
    True
    >>> sessions_to_read(["x"], False, corpus=Path("m.json"), say=print)
    Traceback (most recent call last):
    ...
    snapshot.errors.InputError: give either PATH arguments/--discover or --corpus, not both
    """
    from snapshot.transcript.discover import find, usual_places

    if not paths and not discover:
        return None
    if corpus is not None:
        raise InputError("give either PATH arguments/--discover or --corpus, not both")
    targets = list(paths)
    if discover:
        places = usual_places()
        if not places and not targets:
            raise InputError(
                "--discover found no agent sessions in the usual places on this machine; "
                "give the folder that holds them as PATH"
            )
        for place, path in places:
            say(f"found {place.agent} sessions in {path}")
        targets += [str(path) for _, path in places]
    found = find(targets)
    readable = [f for f in found if f.importable]
    say(f"will read {len(readable)} transcript(s); {len(found) - len(readable)} path(s) skipped:")
    for f in found:
        say(f"  {f.format or 'skip'}: {f.path}{'' if f.importable else f' ({f.reason})'}")
    return found


def report_command(
    out: Path | None,
    options: ReportOptions | None = None,
    *,
    say: Callable[[str], None] = lambda line: None,
) -> ReportFiles:
    """What ``snapshot report`` runs: its checks, the paths it reads, then :func:`make_report`.

    Parameters
    ----------
    out : Path or None
        The report folder; ``None``: :func:`~snapshot.out_folder.default_report_folder`
        (the user's data folder, never the current folder, which may be a checkout).
    options : ReportOptions, optional
        What to run on and how (:class:`~snapshot.report.options.ReportOptions`;
        default: its defaults, the demo transcripts).
    say : callable
        Where the list of paths to read and the optional parts the run goes on
        without go (the CLI: standard error).

    Raises
    ------
    InputError
        A missing manifest or probe folder, PATHs together with ``corpus``,
        ``discover`` finding nothing, or an unknown page reader.

    Examples
    --------
    >>> from snapshot.report.options import ReportOptions
    >>> report_command(Path("r"), ReportOptions(corpus=Path("/no/such.manifest.json")))
    Traceback (most recent call last):
    ...
    snapshot.errors.InputError: --corpus /no/such.manifest.json: no such manifest file (give .../benchmark.manifest.json)
    """
    from dataclasses import replace

    from snapshot.out_folder import default_report_folder
    from snapshot.report.options import ReportOptions

    opts = ReportOptions() if options is None else options
    if out is None:
        out = default_report_folder()
    corpus, probes = opts.corpus, opts.probes
    if corpus is not None and not corpus.is_file():
        raise InputError(
            f"--corpus {corpus}: no such manifest file (give .../benchmark.manifest.json)"
        )
    if probes is not None and not probes.is_dir():
        raise InputError(f"--probes {probes}: no such folder of probe records")
    found = sessions_to_read(opts.paths, opts.discover, corpus=corpus, say=say)
    settings = opts.settings
    if opts.readers is not None:
        from snapshot.report.reader_plan import reader_settings

        r = opts.readers
        settings = reader_settings(
            settings,
            readers=r.readers,
            corpus=corpus is not None or bool(opts.paths) or opts.discover,
            models=tuple(opts.models or DEFAULT_MODELS),
            pages=r.pages,
            band_rows=r.band_rows,
            conversations=r.conversations,
            jitter=r.jitter,
            resample=r.resample,
        )
    spec = ",".join(settings.page_readers)
    readers: tuple[str, ...] = ()
    if spec.strip():  # the readers' module (and what it imports) only when one is asked for
        from snapshot.legibility.page_readers import parse_reader_names

        readers = parse_reader_names(spec)
    chosen = replace(settings, page_readers=readers)
    models = tuple(opts.models or DEFAULT_MODELS)
    if readers:
        say(reader_plan_line(chosen, models))
    check_tier(models, chosen.tier, chosen.priced_on, chosen.profiles_file)
    return make_report(
        corpus,
        out,
        models=models,
        settings=chosen,
        found=found,
        probes=probes,
        say=say,
        workers=opts.workers,
        limit=opts.limit,
        use_ocr=chosen.ocr_rows > 0,
        legibility=opts.legibility,
        command=opts.command,
        readme=opts.readme,
        show_needles=opts.show_needles,
        engine=opts.engine,
        scheduler=opts.scheduler,
        cache=opts.cache,
    )


def reader_plan_line(settings: Settings, models: Sequence[str]) -> str:
    """What the whole-page readers will read, and its reader CPU estimated by construction
    (:meth:`~snapshot.report.reader_plan.ReaderPlan.cpu_estimate`).

    >>> from snapshot.report.matrix import Settings
    >>> s = Settings(page_readers=("tesseract-x2",), reader_band_rows=6, reader_conversations=1,
    ...              reader_jitter=False, reader_resample=False)
    >>> print(reader_plan_line(s, ["gemini-3.8-flash"]))  # doctest: +ELLIPSIS
    readers: tesseract-x2 read 1 band of 6 text rows ... about 4 s reader CPU (estimated ...)
    """
    from snapshot.report.reader_plan import plan_of, profile_geometries

    plan = plan_of(settings)
    cpu = plan.cpu_estimate(profile_geometries(models))
    return (
        f"readers: {plan.describe()}; about {cpu:.0f} s reader CPU "
        "(estimated from measured per-page costs; a reader not installed is named and skipped)"
    )
