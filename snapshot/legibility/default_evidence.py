"""The rule's inputs from the lab's readings: layouts beside their control pages, per profile.

:func:`snapshot.profiles.default_rule.choose_default` decides a profile's default from
readings relative to each reader's own control page and from model evidence. This module
builds those inputs from measured :class:`~snapshot.legibility.frontier.Point` records
(``reports/frontier-points.jsonl``): every layout reading at a profile's real page or
±4 px is paired with the same reader's reading of the control page
(:func:`~snapshot.legibility.controls.control_layout`: same text, seed, page size and ink), and
the model evidence is the family's published batteries
(:data:`snapshot.profiles.families.MODEL_READS`) plus any canary records given. A reading
with no control beside it is not a reading the rule can use: it is left out, never filled in.

>>> from snapshot.legibility.gate import gate_layout
>>> relative_readings([], gate_layout("gemini-3.8-flash"))
[]
>>> choice = profile_choice("gemini-3.8-flash", [])
>>> choice.kind, choice.layout
('model evidence', 'snap5x8 1-bit gap 0x0')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from snapshot.legibility.hardlines import HELD_OUT_SEED
from snapshot.profiles.default_rule import (
    HIDDEN_TEXTS,
    Candidate,
    Choice,
    ModelRead,
    Reading,
    choose_default,
    jittered,
)

if TYPE_CHECKING:
    from snapshot.legibility.frontier import CandidateLayout, Point

#: Faces new pages are no longer drawn in, each with the face that replaced it: their
#: readings stay in the cache (stored pages still use them) but no longer stand for a layout
#: the package would draw, so no default and no "reads better" line rests on them.
SUPERSEDED_FACES: dict[str, str] = {"snap5x9": "snap5x9v2"}


def style_of(layout: CandidateLayout) -> str:
    """The layout's key without its page: what candidates and readings are matched by.

    >>> from snapshot.legibility.gate import gate_layout
    >>> style_of(gate_layout("gemini-3.8-flash"))
    'snap5x8 1-bit gap 0x0'
    """
    return layout.key.replace(f" {layout.page[0]}x{layout.page[1]}", "", 1)


def relative_readings(points: Iterable[Point], layout: CandidateLayout) -> list[Reading]:
    """Every native held-out reading of ``layout`` at its page and ±4 px that has its
    control beside it (same reader version, text and page), newest first per reader."""
    from snapshot.legibility.controls import control_layout, reader_id

    native = [p for p in points if p.scale == 1.0 and p.seed == HELD_OUT_SEED and p.pages == 1]
    by_key: dict[tuple[str, str, tuple[str, str, Any]], Point] = {}
    for p in sorted(native, key=lambda q: q.measured_at):
        by_key[(p.layout.key, p.text, reader_id(p))] = p  # the newest reading wins
    out: list[Reading] = []
    seen: set[tuple[tuple[int, int], str, str]] = set()
    for size in jittered(layout.page):
        at = layout.with_page(size)
        control = control_layout(at).key
        for (key, text, reader), p in sorted(
            by_key.items(), key=lambda kv: kv[1].measured_at, reverse=True
        ):
            if key != at.key or text not in HIDDEN_TEXTS or (size, text, reader[0]) in seen:
                continue
            c = by_key.get((control, text, reader))
            if c is None:
                continue
            seen.add((size, text, reader[0]))
            out.append(
                Reading(style_of(layout), size, text, reader[0], p.char_accuracy, c.char_accuracy)
            )
    return out


def candidate_layouts(model: str, points: Iterable[Point]) -> list[CandidateLayout]:
    """``model``'s default layout at its real page and every denser layout read there
    (faces no longer drawn, lab-only strokes and control pages left out), densest first."""
    from snapshot.legibility.gate import CONTROL_FONT, gate_layout

    default = gate_layout(model, warn=False)
    found = {default}
    for p in points:
        lay = p.layout
        if (
            lay.page == default.page
            and lay.font not in SUPERSEDED_FACES
            and lay.font != CONTROL_FONT
            and not lay.stroke
            and lay.chars_per_kpx > default.chars_per_kpx
        ):
            found.add(lay)
    return sorted(found, key=lambda lay: (-lay.chars_per_kpx, lay.key))


def canary_reads(groups: Iterable[Any], model: str) -> list[ModelRead]:
    """``snapshot proxy --canary`` records of ``model``, judged
    (:func:`snapshot.proxy.evidence.judge` groups), as model evidence; offline
    stand-ins are not the model and are left out."""
    return [
        ModelRead(
            "canary records (band crops)",
            f"{g.reader}, {g.layout}",
            g.n,
            g.passing,
            font=g.layout.split()[0],
        )
        for g in groups
        if g.model == model and not g.stand_in
    ]


def profile_choice(
    model: str, points: Iterable[Point], canaries: Sequence[ModelRead] = ()
) -> Choice:
    """The rule applied to ``model``'s real page: its candidates, their readings relative to
    their controls, and the model evidence (its family's batteries and ``canaries``)."""
    from snapshot import profiles
    from snapshot.legibility.gate import gate_layout
    from snapshot.profiles.families import model_reads
    from snapshot.rendering.glyphs import is_bundled

    points = list(points)
    default = gate_layout(model, warn=False)
    layouts = candidate_layouts(model, points)
    candidates = [
        Candidate(style_of(lay), lay.cell, lay.chars_per_kpx, shipped=is_bundled(lay.font))
        for lay in layouts
    ]
    readings = [r for lay in layouts for r in relative_readings(points, lay)]
    family = profiles.profile_for(model, warn=False).family
    return choose_default(
        candidates,
        readings,
        [*model_reads(family), *canaries],
        page=default.page,
        default=style_of(default),
    )


@dataclass(frozen=True)
class FamilyDefault:
    """A vision family's default page: the model that stands for the family (its member
    the report benchmarks by default, else its newest current one) and that model's
    default layout on its real page."""

    family: str
    model: str
    layout: CandidateLayout


def family_defaults() -> list[FamilyDefault]:
    """Every vision family's default page, in the model table's order (provider, status,
    newest release): the pages issue 40's done-when asks about.

    >>> fams = {f.family: f for f in family_defaults()}
    >>> fams["gemini-3-flash"].model, fams["gemini-3-flash"].layout.key
    ('gemini-3.8-flash', 'snap5x8 1-bit gap 0x0 1568x728')
    >>> fams["openai-patches"].model  # the report's default model stands for its family
    'gpt-6.1-sol'
    """
    from snapshot import profiles
    from snapshot.legibility.gate import gate_layout

    benchmarked = set(profiles.current_default_models())
    members: dict[str, list[str]] = {}
    for model in profiles.lineup():
        profile = profiles.profile_for(model, warn=False)
        if profile.vision:
            members.setdefault(profile.family, []).append(model)
    out = []
    for family, models in members.items():
        model = next((m for m in models if m in benchmarked), models[0])
        out.append(FamilyDefault(family, model, gate_layout(model, warn=False)))
    return out


def choices(points: Iterable[Point], models: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Per model, :func:`profile_choice` as a dict (what the verdicts file holds)."""
    points = list(points)
    return {m: profile_choice(m, points).as_dict() for m in models}


__all__ = [
    "SUPERSEDED_FACES",
    "FamilyDefault",
    "canary_reads",
    "candidate_layouts",
    "choices",
    "family_defaults",
    "profile_choice",
    "relative_readings",
    "style_of",
]
