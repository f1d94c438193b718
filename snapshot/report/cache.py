"""The report's result cache: a conversation whose file, code and settings are unchanged is not run again.

Each conversation's rows and statistics are stored as JSON under a key made
of the sha256 of its file (or the manifest entry / demo it comes from), its
position in that file, the package version and a digest of the package's own
source, the profiles and every setting. Adding one session to a folder and
running the report again runs that one session; every other result is read
back, field for field the same. JSON, not pickle: a cache folder is data, and
reading it never runs code.

>>> import tempfile
>>> cache = ResultCache(Path(tempfile.mkdtemp()), salt="s")
>>> key = cache.key("demo:0", 0)
>>> cache.get(key) is None
True
>>> from snapshot.report.matrix import MatrixRow
>>> row = MatrixRow("a", "demo", "m", "full", 10, 10, 0.5, 0)
>>> cache.put(key, ([row], None, "broken", {}))
>>> cache.get(key)[0][0] == row, cache.get(key)[2]
(True, 'broken')
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from snapshot.report.source_stats import SourceStats

#: Bumped when what a cache entry holds changes shape.
FORMAT = 1

Result = tuple[list[Any], "SourceStats | None", "str | None", dict[str, Any]]


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """sha256 over the package's own files (code and data): a changed line is a new cache.

    >>> len(code_digest())
    64
    """
    import snapshot

    root = Path(snapshot.__file__).parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def file_digest(path: str | os.PathLike[str]) -> str:
    """sha256 of a file's bytes (read in 1 MB blocks), or of every file under a folder."""
    h = hashlib.sha256()
    top = Path(path)
    files = sorted(p for p in top.rglob("*") if p.is_file()) if top.is_dir() else [top]
    for file in files:
        h.update(str(file.relative_to(top)).encode() if file != top else b"")
        with open(file, "rb") as f:
            while block := f.read(1 << 20):
                h.update(block)
    return h.hexdigest()


def run_salt(models: Any, settings: Any, use_ocr: bool) -> str:
    """What every key of one run shares: format, version, code, profiles and settings."""
    from snapshot import __version__

    parts = {
        "format": FORMAT,
        "version": __version__,
        "code": code_digest(),
        "models": list(models),
        "settings": asdict(settings),
        "use_ocr": use_ocr,
    }
    return json.dumps(parts, sort_keys=True, default=str)


class ResultCache:
    """Results by key in ``folder`` (one JSON file each); ``salt`` is :func:`run_salt`."""

    def __init__(self, folder: Path, salt: str) -> None:
        self.folder = folder
        self.salt = salt
        self.hits = 0
        self.misses = 0

    def key(self, origin: str, index: int) -> str:
        """The key of conversation ``index`` of ``origin`` (a file digest, ``demo:N``, ...)."""
        return hashlib.sha256(f"{self.salt}\0{origin}\0{index}".encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def get_json(self, key: str) -> Any:
        """The JSON stored under ``key``, or None (absent or unreadable: computed again)."""
        try:
            return json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def put_json(self, key: str, data: Any) -> None:
        """Store ``data``; a cache that cannot be written only costs the next run time."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            tmp = self._path(key).with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
            tmp.replace(self._path(key))
        except OSError:
            pass

    def get(self, key: str) -> Result | None:
        """The stored result of one conversation, or None."""
        from snapshot.report.matrix import MatrixRow
        from snapshot.report.source_stats import SourceStats

        data = self.get_json(key)
        try:
            rows = [MatrixRow.from_json(r) for r in data["rows"]]
            stats = SourceStats(**data["stats"]) if data["stats"] is not None else None
            result: Result = (rows, stats, data["error"], data["infos"])
        except (TypeError, KeyError):
            self.misses += 1
            return None
        self.hits += 1
        return result

    def put(self, key: str, result: Result) -> None:
        """Store the result of one conversation."""
        rows, stats, error, infos = result
        self.put_json(
            key,
            {
                "rows": [r.to_json() for r in rows],
                "stats": asdict(stats) if stats is not None else None,
                "error": error,
                "infos": infos,
            },
        )
