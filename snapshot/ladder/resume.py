"""``snapshot resume``: trim a stored conversation to the newest messages that fit a budget,
counted with a model's own text counter and image bill when one is named.

>>> import tempfile
>>> from snapshot.transcript.model import linear, TextBlock
>>> from snapshot.transcript.resolve import ConversationHandle
>>> from snapshot.transcript.store import Store
>>> store = Store(tempfile.mkdtemp())
>>> conv = linear("c1", [("m1", "user", [TextBlock("x" * 400)]),
...                      ("m2", "assistant", [TextBlock("y" * 40)])])
>>> _ = store.save(conv)
>>> done = resume(ConversationHandle(conv, store, stored=True), 50, model="claude-sonnet-5-5")
>>> done.trim.dropped, done.first_kept
(('m1',), 'm2')
"""

from __future__ import annotations

from snapshot.ladder.context import message_estimator
from snapshot.transcript.resolve import ConversationHandle
from snapshot.transcript.session import Resumed, trim_to_budget

__all__ = ["resume"]


def resume(
    t: ConversationHandle, budget: int, *, model: str | None = None, save: bool = False
) -> Resumed:
    """Trim ``t`` to ``budget`` tokens (see :func:`~snapshot.transcript.session.trim_to_budget`),
    counting with ``model``'s counter and image bill, or characters / 4 without one."""
    return trim_to_budget(t, budget, estimate=message_estimator(t.conv, model), save=save)
