"""Model id → Profile: billing scheme, request limits, font, page, lifecycle, price, counter.

A :class:`Profile` joins what the tables in :mod:`snapshot.billing.providers`
say about one model id: the billing scheme (decided by the model), the request
limits (decided by the route: the vendor's API, Bedrock, Vertex, OpenRouter),
the default font (decided by the reader evidence of the model's family,
:mod:`~snapshot.profiles.families`), the
lifecycle (current / deprecated / retired, with successor), the price (from
genai-prices, by the id as given) and the text-token counter.

One concept per module: :mod:`~snapshot.profiles.limits`,
:mod:`~snapshot.profiles.solver` (the page), :mod:`~snapshot.profiles.profile`
(the value object), :mod:`~snapshot.profiles.resolution` (id → profile, the text
counter), :mod:`~snapshot.profiles.overrides` (profile files),
:mod:`~snapshot.profiles.defaults` (current lineup, report defaults).

>>> p = profile_for("us.anthropic.claude-sonnet-4-5-20250929-v1:0", warn=False)
>>> p.canonical, p.route, p.limits.max_image_bytes, p.status("2026-12-01")  # Bedrock's dates
('claude-sonnet-4-5', 'bedrock', 3750000, 'deprecated')
>>> image_tokens("gpt-4o", 1024, 1024)
765
"""

from snapshot.profiles.defaults import current_default_models, current_lineup, lineup
from snapshot.profiles.limits import Limits, png_bytes_bound
from snapshot.profiles.overrides import INK_STYLES, load_profiles, profile_to_dict
from snapshot.profiles.profile import Profile
from snapshot.profiles.resolution import (
    Resolution,
    all_profiles,
    count_text_tokens,
    current_ids,
    fallback_profile,
    image_tokens,
    lifecycle_notice,
    nearest_current_ids,
    profile_for,
    resolve,
    resolve_id,
)
from snapshot.profiles.solver import Solution, solve_page
from snapshot.profiles.window import ContextWindow, context_window

__all__ = [
    "INK_STYLES",
    "ContextWindow",
    "Limits",
    "Profile",
    "Resolution",
    "Solution",
    "all_profiles",
    "context_window",
    "count_text_tokens",
    "current_default_models",
    "current_ids",
    "current_lineup",
    "fallback_profile",
    "image_tokens",
    "lifecycle_notice",
    "lineup",
    "load_profiles",
    "nearest_current_ids",
    "png_bytes_bound",
    "profile_for",
    "profile_to_dict",
    "resolve",
    "resolve_id",
    "solve_page",
]
