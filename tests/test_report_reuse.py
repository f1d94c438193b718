"""The legibility lab's files kept in the report's cache folder and copied back."""

from __future__ import annotations

from pathlib import Path

from snapshot.report.reuse import LabFiles, lab_inputs


def test_lab_files_are_kept_whole_and_copied_back(tmp_path: Path) -> None:
    cache, out = tmp_path / ".cache", tmp_path / "out"
    out.mkdir()
    kept = LabFiles(cache, "quick")
    assert kept.sections() is None  # nothing kept yet: the lab runs
    staged = cache / "lab.partial"
    staged.mkdir(parents=True)
    (staged / "legibility.md").write_text("| font | read |\n", encoding="utf-8")
    (staged / "vs_scale.png").write_bytes(b"\x89PNG figure")
    sections = [("Legibility against resample scale", "![x](vs_scale.png)")]
    kept.keep(staged, sections)
    assert not staged.exists()

    again = LabFiles(cache, "quick")  # a re-run: same code, size and readers
    assert again.sections() == sections
    again.copy_to(out)
    assert sorted(p.name for p in out.iterdir()) == ["legibility.md", "vs_scale.png"]
    assert (out / "vs_scale.png").read_bytes() == b"\x89PNG figure"
    assert LabFiles(cache, "full").sections() is None  # another size is another lab


def test_the_lab_key_names_the_readers_it_depends_on() -> None:
    inputs = lab_inputs("quick")
    assert inputs["size"] == "quick"
    assert {"rapidocr_onnxruntime", "onnxruntime", "pytesseract"} <= set(inputs["readers"])
