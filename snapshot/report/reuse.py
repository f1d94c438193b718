"""Report outputs that depend only on their inputs and the code, kept in the cache folder.

A figure drawn from the same numbers by the same code is the same file, and the
legibility lab on its fixed seeded sample with the same readers installed writes
the same files: a re-run copies them back from ``OUT/.cache`` instead of drawing
or measuring again (:mod:`snapshot.report.cache` keeps the conversations' results).
Without a cache folder every output is made as before.

>>> import tempfile
>>> cache, one, two = (Path(tempfile.mkdtemp()) for _ in range(3))
>>> def draw(path):
...     path.write_text("drawn"); return path
>>> made = cached_file(cache, ["the numbers"], one / "fig.png", draw)
>>> again = cached_file(cache, ["the numbers"], two / "fig.png", print)  # not drawn: copied
>>> again.read_text()
'drawn'
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any


def input_key(kind: str, inputs: Any) -> str:
    """sha256 of the code, the output's kind and its inputs (``repr`` of plain data).

    >>> input_key("pareto", [1, 2]) == input_key("pareto", [1, 2]) != input_key("pareto", [2, 1])
    True
    """
    from snapshot.report.cache import code_digest

    return hashlib.sha256(f"{code_digest()}\0{kind}\0{inputs!r}".encode()).hexdigest()


def cached_file(
    cache: Path | None, inputs: Any, path: Path, draw: Callable[[Path], Path | None]
) -> Path | None:
    """``draw(path)``, or the file it drew from the same ``inputs`` before, copied to ``path``."""
    if cache is None:
        return draw(path)
    kept = cache / f"{input_key(path.name, inputs)}{path.suffix}"
    if kept.is_file():
        shutil.copyfile(kept, path)
        return path
    made = draw(path)
    if made is not None:
        _keep(made, kept)
    return made


def _keep(source: Path, kept: Path) -> None:
    # A cache that cannot be written only costs the next run time.
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        tmp = kept.with_suffix(kept.suffix + ".tmp")
        shutil.copyfile(source, tmp)
        tmp.replace(kept)
    except OSError:
        pass


def lab_inputs(size: str) -> dict[str, Any]:
    """What the legibility lab's files depend on besides the code: its size and the readers.

    >>> sorted(lab_inputs("quick"))
    ['readers', 'size', 'tesseract']
    """
    import os
    import shutil as sh
    from importlib.metadata import PackageNotFoundError, version

    readers: dict[str, str | None] = {}
    for dist in ("rapidocr_onnxruntime", "onnxruntime", "pytesseract", "numpy", "pillow"):
        try:
            readers[dist] = version(dist)
        except PackageNotFoundError:
            readers[dist] = None
    binary = sh.which("tesseract")
    stat = os.stat(binary) if binary else None
    tesseract = f"{binary}:{stat.st_size}:{stat.st_mtime_ns}" if stat else None
    return {"size": size, "readers": readers, "tesseract": tesseract}


class LabFiles:
    """The lab's files and REPORT.md sections, kept under one key in the cache folder."""

    def __init__(self, cache: Path, size: str) -> None:
        self.folder = cache / f"lab-{input_key('lab', lab_inputs(size))}"

    def sections(self) -> list[tuple[str, str]] | None:
        """The kept sections (None: not kept yet)."""
        try:
            data = json.loads((self.folder / "sections.json").read_text(encoding="utf-8"))
            return [(str(title), str(text)) for title, text in data]
        except (OSError, ValueError, TypeError):
            return None

    def copy_to(self, out: Path) -> None:
        """Put the kept files into the report folder."""
        for path in sorted(self.folder.iterdir()):
            if path.name != "sections.json" and path.is_file():
                shutil.copyfile(path, out / path.name)

    def keep(self, staged: Path, sections: list[tuple[str, str]]) -> None:
        """Keep what the lab wrote into ``staged`` (its own folder) and its sections."""
        (staged / "sections.json").write_text(json.dumps(sections), encoding="utf-8")
        try:
            if self.folder.exists():
                shutil.rmtree(self.folder)
            staged.replace(self.folder)
        except OSError:
            pass
