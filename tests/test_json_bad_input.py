"""Store files, profile files and manifests that Python's JSON reader refuses give clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from snapshot.errors import SnapshotError

HUGE_INT = '{"id": ' + "9" * 5000 + "}"
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("text", [HUGE_INT, DEEP, "{not json"])
def test_store_file(tmp_path: Path, text: str) -> None:
    from snapshot.transcript.store import Store

    (tmp_path / "conv").mkdir()
    (tmp_path / "conv" / "main.json").write_text(text, encoding="utf-8")
    with pytest.raises(SnapshotError, match=r"main\.json"):
        Store(tmp_path).load("conv", "main")


@pytest.mark.parametrize("text", [HUGE_INT, DEEP])
def test_profile_file(tmp_path: Path, text: str) -> None:
    from snapshot.profiles import load_profiles

    path = tmp_path / "p.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SnapshotError, match=r"p\.json"):
        load_profiles(path)


@pytest.mark.parametrize("text", [HUGE_INT, DEEP])
def test_manifest(tmp_path: Path, text: str) -> None:
    from snapshot.report.sources import read_manifest

    path = tmp_path / "m.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SnapshotError, match=r"m\.json"):
        read_manifest(path)
