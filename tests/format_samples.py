"""Shared by the tests of the importers for users' own agent formats (issue 9).

The samples live in ``../shared/corpus/formats`` beside the repository (or
``$SNAPSHOT_CORPUS/formats``), with ``MANIFEST.json`` holding counts made by
hand from the raw files. Without them the tests skip, saying why.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from snapshot.transcript.export import TARGETS, export
from snapshot.transcript.formats import detect, get_format, import_path
from snapshot.transcript.model import Conversation, Message, tool_pairing

REPO = Path(__file__).resolve().parents[1]


def _formats() -> Path:
    """Where the samples are: $SNAPSHOT_FORMATS, else $SNAPSHOT_CORPUS/formats, else beside the repo."""
    if os.environ.get("SNAPSHOT_FORMATS"):
        return Path(os.environ["SNAPSHOT_FORMATS"])
    env = os.environ.get("SNAPSHOT_CORPUS")
    return (Path(env) if env else REPO.parent / "shared" / "corpus") / "formats"


#: The samples' folder (whether or not it is there).
FORMATS = _formats()
#: The samples' folder when its MANIFEST.json is there, else None.
ROOT = FORMATS if (FORMATS / "MANIFEST.json").is_file() else None
SKIP = pytest.mark.skipif(
    ROOT is None,
    reason=f"format samples not found at {FORMATS}: put them at ../shared/corpus/formats "
    "beside the repository or set SNAPSHOT_CORPUS (or SNAPSHOT_FORMATS)",
)
needs_samples = SKIP


def manifest(fmt: str | None = None) -> list[dict[str, Any]]:
    """The MANIFEST entries (of one format, by its ``format`` field); empty without the samples."""
    if ROOT is None:
        return []
    files = json.loads((ROOT / "MANIFEST.json").read_text(encoding="utf-8"))["files"]
    assert isinstance(files, list)
    return [f for f in files if fmt is None or f["format"] == fmt]


def within(got: int, want: int, share: float = 0.05) -> bool:
    """``got`` within ``share`` of the hand count ``want`` (exact when small)."""
    return abs(got - want) <= max(share * want, 0)


@cache
def _entries() -> dict[str, dict[str, Any]]:
    if ROOT is None:
        return {}
    manifest = json.loads((ROOT / "MANIFEST.json").read_text(encoding="utf-8"))
    return {e["path"]: e for e in manifest["files"]}


def samples(folder: str) -> list[str]:
    """The MANIFEST paths of one format folder (empty without the samples)."""
    return sorted(p for p in _entries() if p.split("/", 1)[0] == folder)


def sample(path: str) -> tuple[Path, dict[str, Any]]:
    """The sample's file (or folder) and its hand counts."""
    assert ROOT is not None
    return ROOT / path, _entries()[path]["expected"]


def near(ours: int, expected: int, *, tolerance: float = 0.05) -> bool:
    """Within ``tolerance`` of the hand count (exact when the count is small)."""
    return abs(ours - expected) <= tolerance * expected


def imported(path: Path, fmt: str) -> list[Conversation]:
    """Import ``path``, checking detection picks ``fmt``."""
    assert detect(path).name == fmt, f"{path} detected as {detect(path).name}, not {fmt}"
    convs = import_path(path)
    assert convs and all(c.format == fmt for c in convs)
    return convs


def assert_linked(conv: Conversation, *, unanswered_ok: int = 0) -> None:
    """Every tool result answers a call before it; at most ``unanswered_ok`` calls lack one."""
    pairing = tool_pairing(conv.path())
    assert not pairing.orphan_results, pairing.orphan_results[:5]
    assert len(pairing.unanswered_calls) <= unanswered_ok, pairing.unanswered_calls[:5]


def assert_exports(conv: Conversation) -> None:
    """Every exporter takes the conversation, and none has to invent a tool result."""
    for target in TARGETS:
        out = export(conv, target)
        assert out.body
        synthetic = [n for n in out.notes if "synthetic" in n or "has no call" in n]
        unanswered = len(tool_pairing(conv.path()).unanswered_calls)
        assert len(synthetic) <= unanswered, synthetic[:3]


def messages(conv: Conversation) -> Iterator[Message]:
    yield from conv.path()


def truncated_copy(path: Path, tmp_path: Path, *, keep: float = 0.6) -> Path:
    """A copy of a JSONL file cut in the middle of a line, as if still being written."""
    raw = path.read_bytes()
    cut = int(len(raw) * keep)
    while raw[cut - 1 : cut] == b"\n":
        cut += 1  # cut inside a line, never just after one
    out = tmp_path / path.name
    out.write_bytes(raw[:cut])
    return out


def load_as(path: Path, fmt: str) -> list[Conversation]:
    from snapshot.transcript.formats import ImportOptions

    return get_format(fmt).load(path, ImportOptions())
