"""What a report runs on and how: the one options type of :func:`snapshot.report.main.report_command`.

``snapshot report`` builds a :class:`ReportOptions` from its flags and makes
one call; a script builds the same object. Its ``settings`` are the
per-conversation measurement's own (:class:`~snapshot.report.matrix.Settings`).

>>> opts = ReportOptions(models=("gpt-5.1",), limit=1, legibility="none")
>>> opts.models, opts.settings.budget_ratio, opts.cache
(('gpt-5.1',), 0.3, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from snapshot.report.matrix import Settings


@dataclass(frozen=True)
class ReaderRequest:
    """Which page readers read which sample (the command's ``--page-readers``,
    ``--all-readers``, ``--reader-*`` flags); every ``None`` is the budgeted plan's
    (:func:`~snapshot.report.reader_plan.reader_settings`).

    >>> ReaderRequest(readers="none").readers, ReaderRequest().pages
    ('none', None)
    """

    readers: str | None = None
    pages: int | None = None
    band_rows: int | None = None
    conversations: int | None = None
    jitter: bool | None = None
    resample: bool | None = None


@dataclass(frozen=True)
class ReportOptions:
    """The sources, profiles, engine and extras of one report; every default is the command's.

    Attributes
    ----------
    corpus : Path, optional
        A benchmark manifest (``--corpus .../benchmark.manifest.json``); it must exist.
        With neither ``corpus`` nor ``paths``/``discover``: the package's demo transcripts.
    paths : tuple of str
        A user's own transcripts: files, folders (walked) or glob patterns.
    discover : bool
        Also read the places agents write sessions on this machine.
    probes : Path, optional
        A folder of ``snapshot probe`` records, joined as one more reader column.
    models : tuple of str
        The profiles (empty: :data:`snapshot.report.run.DEFAULT_MODELS`).
    settings : Settings
        The measurement's settings (budget ratio, readers, tier, date, profiles
        file, ...); ``settings.page_readers`` may be ``("all",)``, checked and
        expanded by :func:`~snapshot.report.main.report_command`. Page rows read
        by OCR (``settings.ocr_rows`` > 0) need the ``[ocr]`` extra.
    workers : int, optional
        Processes (default: one per core).
    limit : int, optional
        Only the first N conversations.
    legibility : str
        How much of the legibility lab runs: ``"quick"`` (default), ``"full"`` or ``"none"``.
    show_needles : bool
        Quote needle examples (text from the sessions) in REPORT.md.
    engine : str
        ``"local"`` (a process pool, default) or ``"dask"`` (the ``[dask]`` extra).
    scheduler : str, optional
        With ``engine="dask"``: an existing scheduler's address.
    cache : bool
        Reuse the results of unchanged files kept in ``OUT/.cache`` (default True).
    readme : Path, optional
        A README whose results block is rewritten from the run.
    command : str
        The command line recorded in results.json (empty for a script).
    readers : ReaderRequest, optional
        The page readers' plan, applied to ``settings`` by
        :func:`~snapshot.report.main.report_command` (``None``: ``settings`` as given).

    Examples
    --------
    >>> from dataclasses import replace
    >>> quick = ReportOptions(legibility="none", settings=Settings(budget_ratio=0.5))
    >>> replace(quick, limit=2).limit, quick.settings.budget_ratio, quick.engine
    (2, 0.5, 'local')
    """

    corpus: Path | None = None
    paths: tuple[str, ...] = ()
    discover: bool = False
    probes: Path | None = None
    models: tuple[str, ...] = ()
    settings: Settings = field(default_factory=Settings)
    workers: int | None = None
    limit: int | None = None
    legibility: str = "quick"
    show_needles: bool = False
    engine: str = "local"
    scheduler: str | None = None
    cache: bool = True
    readme: Path | None = None
    command: str = ""
    readers: ReaderRequest | None = None
