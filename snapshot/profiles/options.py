"""The profile, the profile list and the page a command's model options name.

Commands take the same four options to pick a reader: ``--model`` (an id,
alias or gateway route), ``--profile`` (a JSON/TOML file overriding or adding
profiles), ``--fallback`` (the conservative profile for an unknown id) and
``--detail`` (OpenAI detail / Gemini 3 media_resolution level). This module
turns them into a :class:`~snapshot.profiles.profile.Profile`, the records
``snapshot profiles`` lists, or the page :class:`~snapshot.rendering.geometry.Geometry`
``snapshot render`` draws on; the command line only parses and prints.

>>> resolve_profile("claude-opus-5").canonical
'claude-opus-5'
>>> g = page_geometry(font="misc-5x8", cols=40, rows=6, lines=True)
>>> g.cols, g.rows, g.flow
(40, 6, False)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from snapshot.billing.uncertain import DEFAULT_EVIDENCE_DIR, load_settled
from snapshot.errors import InputError
from snapshot.profiles.cost_policy import cost_policy
from snapshot.profiles.defaults import lineup
from snapshot.profiles.overrides import load_profiles
from snapshot.profiles.profile import Profile
from snapshot.profiles.resolution import profile_for
from snapshot.rendering.geometry import DEFAULT_PAGE, Geometry
from snapshot.rendering.glyphs import default_font_name, load_font

__all__ = ["page_geometry", "profile_records", "resolve_profile", "with_evidence"]


def resolve_profile(
    model: str,
    *,
    profiles_file: str | Path | None = None,
    fallback: bool = False,
    detail: str | None = None,
    evidence: str | Path | None = DEFAULT_EVIDENCE_DIR,
) -> Profile:
    """The profile ``model`` resolves to, with a profiles file's overrides applied.

    Parameters
    ----------
    model : str
        Model id, alias or gateway route.
    profiles_file : str or Path, optional
        JSON/TOML profiles file (see :func:`~snapshot.profiles.load_profiles`);
        its profiles win over the tables.
    fallback : bool
        Use the conservative fallback profile when no table knows ``model``.
    detail : str, optional
        OpenAI detail or Gemini 3 media_resolution level; default: the profile's own.
    evidence : str or Path, optional
        Directory of usage-probe records (``snapshot probe --battery usage``); a
        record for this model settles its disputed scheme field. None: ignore them.

    Returns
    -------
    Profile
        The resolved reader profile.

    Raises
    ------
    UnknownModelError
        ``model`` is unknown and ``fallback`` is false (names the nearest ids).
    InputError
        The profiles file or the detail level is invalid.

    Examples
    --------
    >>> p = resolve_profile("gpt-4o", detail="low")
    >>> p.canonical, p.image_tokens(1024, 1024)
    ('gpt-4o', 85)
    """
    overrides = load_profiles(profiles_file) if profiles_file else None
    profile = profile_for(model, fallback=fallback, overrides=overrides, detail=detail)
    return with_evidence(profile, evidence)


def with_evidence(profile: Profile, evidence: str | Path | None = DEFAULT_EVIDENCE_DIR) -> Profile:
    """``profile`` with a usage-probe record's measured value, where one settles its range.

    >>> with_evidence(resolve_profile("gpt-6-sol", evidence=None), None).settled is None
    True
    """
    if profile.resolved_by in ("override", "fallback"):
        return profile
    settled = load_settled(evidence).get(profile.canonical)
    return profile if settled is None else profile.with_settled(settled)


def profile_records(
    model: str | None = None,
    *,
    profiles_file: str | Path | None = None,
    fallback: bool = False,
    detail: str | None = None,
    current_only: bool = False,
    evidence: str | Path | None = DEFAULT_EVIDENCE_DIR,
) -> list[dict[str, Any]]:
    """The records ``snapshot profiles`` lists (``Profile.as_dict()``).

    Parameters
    ----------
    model : str, optional
        One model only (resolved as :func:`resolve_profile` does).
    profiles_file : str or Path, optional
        Without ``model``: list this file's profiles instead of the lineup.
        With ``model``: overrides for its resolution.
    fallback, detail
        As for :func:`resolve_profile` (used with ``model`` only).
    current_only : bool
        Without ``model`` or ``profiles_file``: only ids current today.

    Returns
    -------
    list of dict
        One record per profile, in the lineup's order (provider, status, release).

    Examples
    --------
    >>> [r["model"] for r in profile_records("claude-opus-5")]
    ['claude-opus-5']
    >>> all(r["status"] == "current" for r in profile_records(current_only=True))
    True
    """
    if model:
        profile = resolve_profile(
            model, profiles_file=profiles_file, fallback=fallback, detail=detail, evidence=evidence
        )
        record = profile.as_dict()
        record["cost_mode"] = cost_policy(profile).record()
        if record["vision"]:  # the weakest OCR reader at its real page, from measured points
            from snapshot.profiles.readability import default_choice, readability_of

            record["readability"] = readability_of(record["model"])
            record["default"] = default_choice(record["canonical"])
        return [record]
    if profiles_file:
        records = [p.as_dict() for p in load_profiles(profiles_file).values()]
    else:
        profiles = [
            with_evidence(profile_for(m, warn=False), evidence)
            for m in lineup(current_only=current_only)
        ]
        records = [{**p.as_dict(), "cost_mode": cost_policy(p).record()} for p in profiles]
    from snapshot.profiles.readability import default_choice, weakest_reader_column

    # The listing's "weakest OCR reader": the lab's verdict at each record's own layout;
    # "default": the default rule's verdict and the evidence it rests on.
    weakest = weakest_reader_column([r for r in records if r["vision"]])
    for r in records:
        if r["vision"]:
            r["weakest_ocr_reader"] = weakest.get(str(r["model"]))
            r["default"] = default_choice(str(r["canonical"]))
    return records


def page_geometry(
    *,
    font: str | None = None,
    model: str | None = None,
    profiles_file: str | Path | None = None,
    detail: str | None = None,
    fallback: bool = False,
    cols: int | None = None,
    rows: int | None = None,
    lines: bool = False,
) -> Geometry:
    """The page ``snapshot render`` draws on: a font's default page or a model's.

    Without a model the font (default: the dense project font) fills the
    default page. With ``model`` (or a profiles file holding one profile) the
    page is that profile's; ``font`` then refits the same page. ``cols`` /
    ``rows`` override the grid (the page shrinks or grows to it); ``lines``
    switches to lines mode.

    Parameters
    ----------
    font : str, optional
        Font name or file.
    model : str, optional
        Take the page geometry of this model's profile.
    profiles_file : str or Path, optional
        JSON/TOML profiles file; alone, it must hold exactly one profile.
    detail : str, optional
        With a model: the detail / media_resolution level to size the page for.
    fallback : bool
        With a model: the conservative fallback profile if no table knows it.
    cols, rows : int, optional
        Cells per row and rows per page (header included).
    lines : bool
        Lines mode (each source line starts a row) instead of flow.

    Returns
    -------
    Geometry
        The page grid and size.

    Raises
    ------
    InputError
        A profiles file with several profiles and no model, ``detail`` without a
        model, or a grid that is not positive.

    Examples
    --------
    >>> g = page_geometry(font="misc-5x8")
    >>> g.size, g.flow
    ((1568, 728), True)
    >>> page_geometry(detail="low")
    Traceback (most recent call last):
    ...
    snapshot.errors.InputError: --detail needs --model: which model's detail level to use
    """
    overrides = None
    if profiles_file:
        overrides = load_profiles(profiles_file)
        if not model and len(overrides) != 1:
            raise InputError(
                f"{profiles_file} holds {len(overrides)} profiles; pick one with --model"
            )
    model = model or (next(iter(overrides)) if overrides else None)
    if detail and not model:
        raise InputError("--detail needs --model: which model's detail level to use")
    if model:
        profile = profile_for(model, overrides=overrides, detail=detail, fallback=fallback)
        geometry = profile.geometry()
        if font:
            geometry = Geometry.fit(load_font(font), *geometry.size, padding=geometry.padding)
    else:
        geometry = Geometry.fit(load_font(font or default_font_name()), *DEFAULT_PAGE)
    if cols or rows or lines:
        grid_cols = cols or geometry.cols
        grid_rows = rows or geometry.rows
        for name, value in (("--cols", grid_cols), ("--rows", grid_rows)):
            if value < 1:
                raise InputError(f"{name} must be positive, got {value}")
        # an asked grid sizes the page itself; lines mode alone keeps the page
        page_size = None if (cols or rows) else geometry.page_size
        geometry = Geometry(
            geometry.font,
            cols=grid_cols,
            rows=grid_rows,
            padding=geometry.padding,
            flow=not lines,
            page_size=page_size,
        )
    return geometry
