"""A text file drawn into a folder of page PNGs: the ``snapshot render`` command's library.

:func:`render_files` picks the page (a font's default page or a model's, see
:func:`snapshot.profiles.options.page_geometry`), reads the input in bounded
memory (:class:`snapshot.rendering.text.TextReader`; without a file, the bundled demo
session), streams the pages (:func:`snapshot.rendering.page.iter_pages`) and writes them
all or none (:func:`snapshot.rendering.pagefiles.write_pages`). A file in flow mode with
more than one worker is instead drawn on worker processes, each writing its own
pages (:func:`snapshot.rendering.span_procs.write_plan_pages`): the same files. The result carries what
the command prints: the pages written and what the input needed (replaced
characters, kept runs, normalization, invalid UTF-8).

>>> import tempfile
>>> out = Path(tempfile.mkdtemp())
>>> done = render_files(None, out, font="misc-5x8", cols=60, rows=10)
>>> done.label, len(done.written) > 1, done.as_dict()["grid"]
('bundled demo session', True, [60, 10])
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from snapshot.profiles.options import page_geometry
from snapshot.rendering.geometry import Geometry
from snapshot.rendering.page import iter_pages
from snapshot.rendering.pagefiles import WrittenPage, check_page_size, write_pages
from snapshot.rendering.parallel import default_workers, processes_available
from snapshot.rendering.span_procs import write_plan_pages
from snapshot.rendering.spans import plan_spans
from snapshot.rendering.text import KeptSpan, NormalizedText, TextReader

__all__ = ["DEMO", "MAX_INPUT", "RenderedFiles", "default_max_input", "render_files"]

#: The bundled demo session drawn when no file is given (in ``snapshot/demo/``).
DEMO = "session.txt"
#: Default input ceiling, bytes.
MAX_INPUT = 1 << 30


def default_max_input(out: Path) -> int:
    """The default input ceiling: 1 GiB, or a sixth of the free space where ``out`` will be.

    Pages take about 3 bytes per input character, and while they are drawn a
    text that takes one stream (stdin, lines mode, wide glyphs...; a plain file
    in flow mode is laid out span by span, :mod:`snapshot.rendering.spans`) waits past 12 M
    characters in a temporary file (about 2 bytes a character,
    :class:`snapshot.rendering.page.PageStream`): a sixth of the free space keeps a huge
    input from filling the disk. Never below 1 MiB.

    Parameters
    ----------
    out : Path
        The output folder (need not exist yet: its nearest existing parent is measured).

    Returns
    -------
    int
        The ceiling in bytes.

    Examples
    --------
    >>> import tempfile
    >>> 1 << 20 <= default_max_input(Path(tempfile.mkdtemp()) / "not" / "yet") <= MAX_INPUT
    True
    """
    probe = out
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        free = shutil.disk_usage(probe).free
    except OSError:
        return MAX_INPUT
    return max(1 << 20, min(MAX_INPUT, free // 6))


def _demo_text() -> str:
    return resources.files("snapshot").joinpath("demo", DEMO).read_text(encoding="utf-8")


@dataclass(frozen=True)
class RenderedFiles:
    """What one :func:`render_files` run drew and wrote.

    ``source`` is the file as given (``"-"``: stdin; ``None``: the demo),
    ``label`` how to name it to a person. ``chars`` counts the normalized text,
    ``replaced`` the characters no font draws (by character), ``kept`` the runs
    kept as text, ``normalized`` what normalization changed, ``invalid_utf8``
    the byte sequences replaced by U+FFFD.
    """

    source: str | None
    label: str
    out: Path
    geometry: Geometry
    written: tuple[WrittenPage, ...]
    chars: int
    replaced: dict[str, int]
    kept: tuple[KeptSpan, ...]
    normalized: dict[str, int]
    invalid_utf8: int

    @property
    def png_bytes(self) -> int:
        """Bytes of all page files together."""
        return sum(w.bytes for w in self.written)

    def as_dict(self) -> dict[str, Any]:
        """The JSON summary ``snapshot render --json`` prints.

        Returns
        -------
        dict
            ``pages`` (file, width, height, chars per page), ``chars``, ``replaced``,
            ``source`` (``"demo"`` without a file), ``font``, ``cell``, ``grid``,
            ``mode``, ``invalid_utf8``, ``normalized``, ``kept`` (1-based page).
        """
        g = self.geometry
        width, height = g.size
        return {
            "pages": [
                {"file": str(w.path), "width": width, "height": height, "chars": w.chars}
                for w in self.written
            ],
            "chars": self.chars,
            "replaced": self.replaced,
            "source": "demo" if self.source is None else self.source,
            "font": g.font.name,
            "cell": list(g.cell),
            "grid": [g.cols, g.rows],
            "mode": "flow" if g.flow else "lines",
            "invalid_utf8": self.invalid_utf8,
            "normalized": self.normalized,
            "kept": [
                {"text": k.text, "start": k.start, "page": k.page + 1, "row": k.row, "col": k.col}
                for k in self.kept
            ],
        }


def render_files(
    file: str | None,
    out: str | Path,
    *,
    font: str | None = None,
    model: str | None = None,
    profiles_file: str | Path | None = None,
    detail: str | None = None,
    fallback: bool = False,
    cols: int | None = None,
    rows: int | None = None,
    lines: bool = False,
    keep: bool = False,
    workers: int | None = None,
    max_input: int | None = None,
) -> RenderedFiles:
    """Draw ``file`` (``"-"``: stdin; ``None``: the demo session) as ``out/page-NNN.png``.

    Limits and bad input fail before any file is written (the stream's first
    pass); ``page-NNN.png`` files already in ``out`` are replaced, and after an
    error no page of this run is left.

    Parameters
    ----------
    file : str or None
        UTF-8 text file, ``"-"`` for stdin, ``None`` for the bundled demo.
    out : str or Path
        Folder for the pages (created if missing).
    font, model, profiles_file, detail, fallback, cols, rows, lines
        The page, as :func:`snapshot.profiles.options.page_geometry` takes them.
    keep : bool
        Keep runs no font can draw as text instead of replacing them.
    workers : int, optional
        Workers drawing, encoding and writing pages (default: one per core):
        processes for a file in flow mode on Linux (:mod:`snapshot.rendering.span_procs`),
        threads otherwise; one draws in this process.
    max_input : int, optional
        Refuse longer input, bytes (default: :func:`default_max_input`).

    Returns
    -------
    RenderedFiles
        The pages written and what the input needed.

    Raises
    ------
    InputError
        Bad page options, a page too large to read back, or unreadable or
        too long input (names the file and the limit).

    Examples
    --------
    >>> import tempfile
    >>> src = Path(tempfile.mkdtemp()) / "note.txt"
    >>> _ = src.write_text("caf\\u00e9\\tbar\\n", encoding="utf-8")
    >>> done = render_files(str(src), src.parent / "pages", font="misc-5x8", cols=20, rows=4)
    >>> [w.path.name for w in done.written], done.chars, done.normalized
    (['page-001.png'], 12, {'tabs': 1})
    """
    out = Path(out)
    geometry = page_geometry(
        font=font,
        model=model,
        profiles_file=profiles_file,
        detail=detail,
        fallback=fallback,
        cols=cols,
        rows=rows,
        lines=lines,
    )
    check_page_size(geometry)
    reader = None
    source: str | Iterable[str]
    workers = workers or default_workers()
    unrenderable = "keep" if keep else "replace"
    if file is None:
        source, label = _demo_text(), "bundled demo session"
    else:
        reader = TextReader(file, max_bytes=max_input or default_max_input(out))
        label = reader.label
        if workers > 1 and file != "-" and processes_available():
            done = _render_on_processes(file, reader, geometry, out, unrenderable, workers)
            if done is not None:
                return done
        # stdin can be read once: a one-shot iterator, spooled by the page stream
        source = iter(reader) if file == "-" else reader
    stream = iter_pages(source, geometry, unrenderable=unrenderable, workers=workers, encode=True)
    stream.total  # noqa: B018 (the first pass: limits and bad input fail before any file)
    invalid = reader.invalid_utf8 if reader is not None else 0
    changes = stream.normalized.changes()
    written = write_pages(stream, out)
    return RenderedFiles(
        source=file,
        label=label,
        out=out,
        geometry=geometry,
        written=tuple(written),
        chars=stream.chars,
        replaced=stream.replaced,
        kept=stream.kept,
        normalized=changes,
        invalid_utf8=invalid,
    )


def _render_on_processes(
    file: str, reader: TextReader, geometry: Geometry, out: Path, unrenderable: str, workers: int
) -> RenderedFiles | None:
    """A file whose pages can be cut span by span, drawn on worker processes
    (:mod:`snapshot.rendering.span_procs`); ``None`` when its pages take one stream."""
    plan = plan_spans(reader, geometry, unrenderable=unrenderable, workers=workers, processes=True)
    if plan is None:
        return None
    written = write_plan_pages(plan, out, workers=workers)
    counts = NormalizedText("", **plan.counts, nfc_changed=plan.nfc_changed)
    return RenderedFiles(
        source=file,
        label=reader.label,
        out=out,
        geometry=geometry,
        written=tuple(written),
        chars=plan.chars,
        replaced=dict(plan.replaced),
        kept=(),
        normalized=counts.changes(),
        invalid_utf8=reader.invalid_utf8,
    )
