"""What a family's default layout rests on: model evidence and OCR evidence, side by side.

The default rule (:func:`snapshot.profiles.default_rule.choose_default`) decides: model
evidence (published batteries, canary records) where it speaks, else the weakest qualified
reader relative to its control page; :func:`rests_on` carries its verdict (``default``).
Model evidence here is a profile's ``evidence`` (what peers published or measured with
the models themselves). OCR evidence is what
independent whole-page readers measured on the default's real page
(:func:`~snapshot.legibility.weakest.profile_readability`, the weakest reader
beside each figure). Where a layout of similar density (at least
:data:`~snapshot.legibility.weakest.SIMILAR_DENSITY` × the default's) reads better by every OCR reader that
measured both, and no model evidence names it, that is said, as OCR evidence
only: a candidate for the next model measurement, not a new default.

``snapshot profiles --model M`` prints :func:`readability_line` and
:func:`~snapshot.legibility.weakest.better_line`; the report prints :func:`rests_on_lines` for its profiles.

>>> from snapshot.legibility.weakest import better_line
>>> better_line({"layout": "snap5x9 gray gap 0x0 1568x728", "density_vs_default": 0.89}, [])
'OCR evidence: every reader that measured both reads snap5x9 gray gap 0x0 1568x728 better at this page (0.89× the density), and no model evidence here names it; a candidate default pending model evidence'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def readability_line(r: Mapping[str, Any]) -> str:
    """The OCR evidence of :func:`~snapshot.legibility.weakest.profile_readability` in one line.

    >>> readability_line({"measured": False, "layout": "x", "why": "not measured at this page"})
    'readability (OCR, whole page): x not measured at this page'
    """
    if not r.get("measured"):
        return f"readability (OCR, whole page): {r.get('layout', '')} {r['why']}".replace("  ", " ")

    def fig(key: str) -> str:
        v = r.get(key)
        if not isinstance(v, list):
            return "not measured"
        if len(v) == 4:  # [reader, text, relative to its control, absolute]
            return f"{v[2]:.3f} of control, {v[3]:.3f} absolute ({v[0]}, {v[1]})"
        return f"{v[2]:.3f} ({v[0]}, {v[1]})"

    return (
        f"readability (OCR, whole page, measured in {r['source']}): {r['layout']}: weakest "
        f"qualified reader of {', '.join(r['readers'])} (texts: {', '.join(r['texts'])}): chars "
        f"{fig('weakest_chars')}, hard tokens {fig('weakest_hard_tokens')}, ×0.9 chars "
        f"{r.get('resampled') or fig('weakest_resampled_chars')}; {r['verdict']}"
    )


def rests_on(model: str, points_file: Path | None = None) -> dict[str, Any]:
    """Both kinds of evidence behind ``model``'s default layout.

    >>> r = rests_on("gpt-6.1-sol", Path("/nonexistent.jsonl"))
    >>> sorted(r), r["ocr"]["measured"], len(r["model_evidence"]) > 0, r["default"]["kind"]
    (['better', 'default', 'model', 'model_evidence', 'ocr'], False, True, 'none')
    """
    from snapshot import profiles
    from snapshot.legibility.default_evidence import profile_choice
    from snapshot.legibility.frontier import PointCache
    from snapshot.legibility.weakest import committed_points, profile_readability

    evidence = list(profiles.profile_for(model, warn=False).as_dict()["evidence"])
    ocr = profile_readability(model, points_file)
    src = points_file or committed_points()
    points = PointCache(src).points() if src.is_file() else []
    return {
        "model": model,
        "model_evidence": evidence,
        "ocr": ocr,
        "better": ocr.get("better_ocr_line", ""),
        "default": profile_choice(model, points).as_dict(),
    }


def rests_on_lines(models: Sequence[str], points_file: Path | None = None) -> list[str]:
    """Markdown for the report: per profile, its model evidence, then its OCR evidence."""
    lines = [
        "## What each default layout rests on",
        "",
        "The default rule decides each default: the densest layout the model's own reads "
        "accept (published batteries, canary records) or, where they are silent, whose weakest "
        "qualified whole-page reader reads >= 0.95 of its control page at the real page and "
        "±4 px on both hidden texts (`rests on`, from the committed "
        "`reports/frontier-points.jsonl`; not this run's pages). OCR readers are proxies with "
        "cliffs of their own: a model measurement (`snapshot probe`, `snapshot proxy "
        "--canary`) outweighs them.",
        "",
    ]
    for m in models:
        r = rests_on(m, points_file)
        lines.append(
            f"- **{m}**: default `{r['default']['layout']}` rests on {r['default']['rests_on']}"
        )
        for e in r["model_evidence"]:
            lines.append(
                f"  - model evidence [{e['label']}, {e['date']}]: {e['claim']} ({e['source']})"
            )
        if not r["model_evidence"]:
            lines.append("  - model evidence: none recorded")
        lines.append(f"  - {readability_line(r['ocr'])}")
        if r["better"]:
            lines.append(f"  - {r['better']}")
    return [*lines, ""]


__all__ = ["readability_line", "rests_on", "rests_on_lines"]
