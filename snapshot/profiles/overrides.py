"""Profile files (JSON / TOML) that override or add profiles, and the inverse.

A file names ``model`` and optionally ``base`` (a known id to start from),
``font``, ``page`` [w, h], ``scheme`` {kind, ...}, limits and ``evidence``.
"""

from __future__ import annotations

import dataclasses
import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from snapshot.billing.rows import Evidence, Fact
from snapshot.billing.schemes import scheme_from_dict, scheme_to_dict
from snapshot.errors import InputError, UnknownModelError
from snapshot.profiles.families import FAMILIES
from snapshot.profiles.profile import Profile
from snapshot.profiles.resolution import _build, _unknown_message, fallback_profile, resolve_id

_USER_FACT = Fact("user profile file", "uncertain", "n/a")
INK_STYLES = ("black-on-white", "white-on-black")

_OVERRIDE_KEYS = frozenset(
    {
        "model",
        "base",
        "family",
        "font",
        "page",
        "padding",
        "col_gap",
        "row_gap",
        "ink",
        "font_size",
        "shade",
        "vision",
        "scheme",
        "legible_max",
        "max_images",
        "max_image_bytes",
        "max_request_bytes",
        "evidence",
    }
)


def _pair(value: Any, key: str, where: str) -> tuple[int, int]:
    if (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(isinstance(v, int) and v > 0 for v in value)
    ):
        return int(value[0]), int(value[1])
    raise InputError(f"{where}: {key} must be [width, height] in px, got {value!r}")


def _profile_from_entry(entry: Mapping[str, Any], where: str) -> Profile:
    unknown = sorted(set(entry) - _OVERRIDE_KEYS)
    if unknown:
        raise InputError(
            f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_OVERRIDE_KEYS))}"
        )
    model = entry.get("model")
    if not isinstance(model, str) or not model:
        raise InputError(f"{where}: every profile needs a 'model' id")
    base_id = entry.get("base", model)
    found = resolve_id(str(base_id))
    if found is not None:
        base = _build(
            model, found.model, FAMILIES[found.model.family], found.route, resolution=found
        )
    elif "scheme" in entry:
        base = dataclasses.replace(
            fallback_profile(model), fallback=False, family="custom", resolved_by="override"
        )
    elif "base" in entry:
        raise UnknownModelError(_unknown_message(str(base_id)))
    else:
        raise InputError(
            f"{where}: model {model!r} is not in the tables; give 'base' (a known model id "
            "to start from) or a 'scheme' table"
        )
    changes: dict[str, Any] = {}
    if "scheme" in entry:
        if not isinstance(entry["scheme"], Mapping):
            raise InputError(f"{where}: 'scheme' must be a table with a 'kind'")
        changes["scheme"] = scheme_from_dict(dict(entry["scheme"]))
        changes["scheme_fact"] = _USER_FACT
    for key in ("family", "font"):
        if key in entry:
            changes[key] = str(entry[key])
    if "vision" in entry:
        changes["vision"] = bool(entry["vision"])
    for key in ("padding", "col_gap", "row_gap"):
        if key in entry:
            value = entry[key]
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 64:
                raise InputError(f"{where}: '{key}' must be a whole number of pixels from 0 to 64")
            changes[key] = value
    if "ink" in entry:
        if entry["ink"] not in INK_STYLES:
            raise InputError(f"{where}: 'ink' must be one of {', '.join(INK_STYLES)}")
        changes["ink"] = entry["ink"]
    if "font_size" in entry:  # outline fonts' pixel size (snapshot tune writes it)
        size = entry["font_size"]
        if not isinstance(size, int) or isinstance(size, bool) or not 4 <= size <= 64:
            raise InputError(f"{where}: 'font_size' must be a pixel size from 4 to 64")
        changes["font_size"] = size
    if "shade" in entry:
        from snapshot.rendering.geometry import SHADES

        if entry["shade"] not in SHADES:
            raise InputError(f"{where}: 'shade' must be one of {', '.join(SHADES)}")
        changes["shade"] = entry["shade"]
    if "page" in entry:
        changes["page"] = _pair(entry["page"], "page", where)
    if "legible_max" in entry:
        changes["legible_max"] = _pair(entry["legible_max"], "legible_max", where)
    limit_changes: dict[str, Any] = {
        k: int(entry[k])
        for k in ("max_images", "max_image_bytes", "max_request_bytes")
        if k in entry
    }
    if limit_changes:
        changes["limits"] = dataclasses.replace(base.limits, **limit_changes)
    if "evidence" in entry:
        changes["evidence"] = tuple(Evidence(str(c), _USER_FACT) for c in entry["evidence"])
    profile = dataclasses.replace(base, **changes)
    if profile.page is not None and profile.vision:
        seen = profile.scheme.seen(*profile.page)
        if seen != profile.page:
            w, h = profile.page
            raise InputError(
                f"{where}: page {w}x{h} would be resized to {seen[0]}x{seen[1]} by "
                f"{profile.scheme.describe()}; choose a page the provider passes unchanged"
            )
    return profile


def load_profiles(path: str | Path) -> dict[str, Profile]:
    """Profiles from a JSON or TOML file, keyed by model id.

    Shapes accepted: one profile table; ``{"profile": [...]}`` / ``[[profile]]``;
    or (JSON) a list. A profile names ``model`` and optionally ``base`` (a known id
    to start from), ``font``, ``page`` [w, h], ``scheme`` {kind, ...}, limits,
    ``evidence`` (strings).

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); f = os.path.join(d, "p.toml")
    >>> _ = open(f, "w").write('model = "claude-sonnet-4-6"\\nfont = "snap5x8"\\n')
    >>> load_profiles(f)["claude-sonnet-4-6"].font
    'snap5x8'
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"profile file {p} is not UTF-8 text (bad byte at {exc.start}); save it as UTF-8"
        ) from exc
    except OSError as exc:
        raise InputError(f"cannot read profile file {p}: {exc.strerror or exc}") from exc
    try:
        if p.suffix.lower() == ".toml":
            data: Any = tomllib.loads(text)
        elif p.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            raise InputError(f"profile file {p} must end in .json or .toml")
    except (ValueError, RecursionError) as exc:  # JSON/TOML errors, huge ints, deep nesting
        raise InputError(f"profile file {p} is not valid {p.suffix[1:].upper()}: {exc}") from exc
    if isinstance(data, Mapping) and "profile" in data:
        entries = data["profile"]
    elif isinstance(data, Mapping) and "profiles" in data:
        entries = data["profiles"]
    elif isinstance(data, Mapping):
        entries = [data]
    else:
        entries = data
    if (
        not isinstance(entries, list)
        or not all(isinstance(e, Mapping) for e in entries)
        or not entries
    ):
        raise InputError(f"profile file {p}: expected one profile table or a list of them")
    out: dict[str, Profile] = {}
    for i, entry in enumerate(entries):
        prof = _profile_from_entry(entry, f"{p} (profile {i + 1})")
        out[prof.model] = prof
    return out


def profile_to_dict(profile: Profile) -> dict[str, Any]:
    """A profile as an override entry (round-trips through :func:`load_profiles`)."""
    out: dict[str, Any] = {
        "model": profile.model,
        "family": profile.family,
        "font": profile.font,
        "vision": profile.vision,
        "padding": profile.padding,
        "legible_max": list(profile.legible_max),
        "scheme": scheme_to_dict(profile.scheme),
    }
    if profile.page is not None:
        out["page"] = list(profile.page)
    for key, default in (
        ("col_gap", 0),
        ("row_gap", 0),
        ("ink", "black-on-white"),
        ("font_size", None),
        ("shade", "1-bit"),
    ):
        if getattr(profile, key) != default:
            out[key] = getattr(profile, key)
    return out


__all__ = ["INK_STYLES", "load_profiles", "profile_to_dict"]
