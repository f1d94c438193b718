"""Model id → its context window, resolved the way :func:`profile_for` resolves ids.

An id no table resolves raises :class:`~snapshot.errors.UnknownModelError` naming
the nearest current ids (the same message as :func:`profile_for`). A known model
no source states a window for gives ``None``: callers decide what to do without
one, nothing guesses a sibling's window. A ``[1m]`` variant id
(``claude-sonnet-4-5[1m]``) is the 1M-token window of the same model.

>>> w = context_window("us.anthropic.claude-sonnet-4-6")
>>> w.model, w.tokens
('claude-sonnet-4-6', 1000000)
>>> context_window("claude-sonnet-4-5[1m]").tokens
1000000
>>> context_window("grok-4") is None
True
"""

from __future__ import annotations

from snapshot.billing.providers import (
    CONTEXT_WINDOWS,
    VARIANT_1M_SOURCE,
    VARIANT_1M_TOKENS,
    VARIANT_SUFFIXES,
    ContextWindow,
)
from snapshot.errors import UnknownModelError
from snapshot.profiles.resolution import _unknown_message, resolve_id


def context_window(model_id: str) -> ContextWindow | None:
    """The context window of ``model_id`` (id, alias, dated id or gateway route).

    Raises :class:`~snapshot.errors.UnknownModelError` (a ``SnapshotError``) for an
    id no table resolves, naming the nearest current ids; returns ``None`` for a
    known model whose window no source states.

    >>> context_window("claude-opus-4-5-20251101").tokens
    200000
    >>> context_window("anthropic/claude-opus-4.6").cite().split(" (")[0]
    'claude-opus-4-6: 1,000,000 tokens'
    """
    found = resolve_id(model_id)
    if found is None:
        raise UnknownModelError(_unknown_message(model_id))
    model = found.model.model
    suffix = next((f for p, f in VARIANT_SUFFIXES if p.search(found.inner_id or model_id)), None)
    if suffix is not None:
        return ContextWindow(model, VARIANT_1M_TOKENS, VARIANT_1M_SOURCE, suffix.date, suffix.note)
    return CONTEXT_WINDOWS.get(model)
