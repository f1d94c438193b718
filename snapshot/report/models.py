"""The report's profile and reader of each model it prices (a profiles file's overrides and
any usage-probe record applied).
"""

from __future__ import annotations

from typing import Any

__all__ = ["profile_of", "reader_for"]


def profile_of(model: str, profiles_file: str | None = None) -> Any:
    """The report's profile of ``model``: a profiles file's overrides applied, with any
    usage-probe record that settles a disputed fact.

    >>> profile_of("gpt-5.5").canonical
    'gpt-5.5'
    """
    from snapshot.profiles.options import resolve_profile, with_evidence

    return with_evidence(resolve_profile(model, profiles_file=profiles_file))


def reader_for(model: str, profiles_file: str | None = None) -> Any:
    """The report's reader of ``model`` (:func:`profile_of` as a target).

    >>> reader_for("gpt-5.5").model
    'gpt-5.5'
    """
    from snapshot.ladder.target import target_for

    return target_for(profile_of(model, profiles_file))
