"""Hostile inputs made from real samples, for the bounded fuzz test and the long bench run.

Shared by ``tests/test_fuzz_hostile_inputs.py`` (a few cases per importer,
seconds) and ``bench/test_fuzz_long.py`` (hundreds per importer and every
command on them, nice'd). A seed is one real sample per format of
``../shared/corpus/formats`` (``$SNAPSHOT_CORPUS/formats``), trimmed small;
a case mutates it the ways broken and hostile files are broken:

- structure-aware, when the file is JSON or JSON lines: a field given the
  wrong type, deleted, wrapped in a list, replaced by NaN, a huge number
  (more digits than Python converts), nesting thousands deep, a huge string;
- bytes: a BOM in front, CRLF line ends, invalid UTF-8, a NUL, a cut end.

:func:`check_case` imports the case (the format forced, then detected) and
stores and exports every conversation; anything but a
:class:`~snapshot.errors.SnapshotError` is a bug, and a case running longer
than its bound raises :class:`TimeoutError` (a hang), never a timing figure.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from snapshot.errors import SnapshotError
from snapshot.transcript.export import TARGETS, export
from snapshot.transcript.formats import detect, import_path
from snapshot.transcript.model import conversation_to_dict

REPO = Path(__file__).resolve().parents[1]


def formats_root() -> Path | None:
    env = os.environ.get("SNAPSHOT_CORPUS")
    root = (Path(env) if env else REPO.parent / "shared" / "corpus") / "formats"
    return root if (root / "MANIFEST.json").is_file() else None


def seeds() -> dict[str, tuple[str, Path]]:
    """One real sample per format folder: ``{folder: (format name, path)}``."""
    root = formats_root()
    if root is None:
        return {}
    out: dict[str, tuple[str, Path]] = {}
    for entry in json.loads((root / "MANIFEST.json").read_text(encoding="utf-8"))["files"]:
        folder = entry["path"].split("/", 1)[0]
        path = root / entry["path"]
        if folder in out or not path.exists():
            continue
        try:
            out[folder] = (detect(path).name, path)
        except SnapshotError:
            continue
    return out


def _trim(value: Any, depth: int = 0) -> Any:
    """A small copy of a real record: lists cut to 6 items, strings to 400 characters."""
    if isinstance(value, dict):
        return {k: _trim(v, depth + 1) for k, v in list(value.items())[:40]}
    if isinstance(value, list):
        return [_trim(v, depth + 1) for v in value[:6]]
    if isinstance(value, str):
        return value[:400]
    return value


def small_copy(src: Path, dest: Path) -> Path:
    """``src`` (a file or a folder log) copied to ``dest`` trimmed small; the copy's path."""
    if src.is_dir():
        shutil.copytree(src, dest, symlinks=False)
        files = sorted(p for p in dest.rglob("*") if p.is_file())
        for extra in files[40:]:  # a folder of many events: its first ones are enough
            extra.unlink()
        for f in files[:40]:
            f.write_bytes(_small_bytes(f.read_bytes(), f.suffix))
        return dest
    dest.write_bytes(_small_bytes(src.read_bytes(), src.suffix))
    return dest


def _small_bytes(raw: bytes, suffix: str) -> bytes:
    text = raw.decode("utf-8", errors="replace")
    try:
        return (json.dumps(_trim(json.loads(text)), ensure_ascii=False) + "\n").encode()
    except ValueError:
        pass
    lines = [line for line in text.splitlines() if line.strip()][:12]
    try:
        return "".join(
            json.dumps(_trim(json.loads(x)), ensure_ascii=False) + "\n" for x in lines
        ).encode()
    except ValueError:
        return text[:8000].encode()


def main_file(case: Path) -> Path:
    """The file of a case that is mutated: the case itself, or its folder's largest file."""
    if case.is_file():
        return case
    return max((p for p in case.rglob("*") if p.is_file()), key=lambda p: p.stat().st_size)


# --- mutations -------------------------------------------------------------------------

HOSTILE_TEXT = ["\ud83d", "\x1b]0;t\x07\x1b[2J", "\x00", "../../etc/passwd", "", "\u202e"]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


# Placeholders swapped for raw JSON text after dumping (json.dumps cannot write them).
_DEEP, _HUGE_INT = "\x00deep\x00", "\x00hugeint\x00"


def _mutate_value(doc: Any, data: st.DataObject, huge: int) -> Any:
    paths = [p for p in _paths(doc) if p]
    if not paths:
        return doc
    path = data.draw(st.sampled_from(paths), label="path")
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    op = data.draw(
        st.sampled_from(["type", "delete", "wrap", "nan", "int", "deep", "huge", "text"]),
        label="op",
    )
    if op == "delete":
        del parent[last]
    elif op == "wrap":
        parent[last] = [parent[last]]
    elif op == "nan":
        parent[last] = data.draw(st.sampled_from([float("nan"), float("inf"), -float("inf")]))
    elif op == "int":
        parent[last] = _HUGE_INT
    elif op == "deep":
        parent[last] = _DEEP
    elif op == "huge":
        parent[last] = "x" * huge
    elif op == "text":
        parent[last] = str(parent[last]) + data.draw(st.sampled_from(HOSTILE_TEXT))
    else:
        parent[last] = data.draw(
            st.sampled_from([None, True, 0, -1, 2**63, 1.5, "", "text", [], {}]), label="type"
        )
    return doc


def _dump(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    text = text.replace(json.dumps(_DEEP), "[" * 5000 + "1" + "]" * 5000)
    return text.replace(json.dumps(_HUGE_INT), "9" * 6000)


def mutate(raw: bytes, data: st.DataObject, *, huge: int = 100_000) -> bytes:
    """``raw`` broken in one to three ways, structure-aware where it parses as JSON (lines)."""
    text = raw.decode("utf-8", errors="replace")
    for _ in range(data.draw(st.integers(1, 2), label="structural")):
        try:
            doc = json.loads(text)
            text = _dump(_mutate_value(doc, data, huge)) + "\n"
            continue
        except (ValueError, RecursionError):  # not JSON, or already mutated past reading
            pass
        lines = text.splitlines()
        records = []
        try:
            records = [json.loads(line) for line in lines if line.strip()]
        except (ValueError, RecursionError):
            records = []
        if records:
            k = data.draw(st.integers(0, len(records) - 1), label="record")
            records[k] = _mutate_value({"r": records[k]}, data, huge).get("r", "")
            text = "".join(_dump(r) + "\n" for r in records)
        elif lines:  # text: a line replaced by a hostile or huge one
            k = data.draw(st.integers(0, len(lines) - 1), label="line")
            lines[k] = data.draw(st.sampled_from([*HOSTILE_TEXT, "x" * huge, "#" * 3000]))
            text = "\n".join(lines) + "\n"
    out = text.encode("utf-8", errors="surrogatepass")
    for op in data.draw(
        st.lists(st.sampled_from(["bom", "crlf", "utf8", "nul", "cut"]), max_size=2), label="bytes"
    ):
        if op == "bom":
            out = b"\xef\xbb\xbf" + out
        elif op == "crlf":
            out = out.replace(b"\n", b"\r\n")
        elif op in ("utf8", "nul", "cut") and out:
            at = data.draw(st.integers(0, len(out) - 1), label="offset")
            if op == "utf8":
                out = out[:at] + b"\xff\xc3(" + out[at:]
            elif op == "nul":
                out = out[:at] + b"\x00" + out[at:]
            else:
                out = out[:at]
    return out


# --- the property ----------------------------------------------------------------------


@contextlib.contextmanager
def bounded(seconds: int) -> Iterator[None]:
    """Raise :class:`TimeoutError` in the case when it runs longer than ``seconds`` (a hang)."""

    def hang(signum: int, frame: Any) -> None:
        raise TimeoutError(f"case ran longer than {seconds} s: a hang")

    old = signal.signal(signal.SIGALRM, hang)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def check_case(path: Path, fmt: str | None) -> list[Any]:
    """Import ``path`` (``fmt`` forced, or detected); store and export what it gives.

    Returns the conversations (empty when refused with a SnapshotError); any
    other exception propagates: it is a bug.
    """
    try:
        convs = import_path(path, format=fmt)
    except SnapshotError:
        return []
    for conv in convs:
        json.dumps(conversation_to_dict(conv), ensure_ascii=False).encode("utf-8")
        for target in TARGETS:
            try:
                body = export(conv, target).body
            except SnapshotError:
                continue
            text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
            text.encode("utf-8")
    return list(convs)
