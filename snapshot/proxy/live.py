"""The proxy's compaction as a library, for harness authors (the same code the proxy runs).

A :class:`LiveSession` keeps one conversation as the API's own request body.
Append each turn's items; ask for the body to send to a model (as it is, or
compacted with the free rungs at a threshold of the model's window or at a token
budget); hand it the provider's rejection and get the body to retry with.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from snapshot.errors import SnapshotError
from snapshot.providers.overflow import parse_overflow
from snapshot.proxy.planner import Planner, RequestPlan
from snapshot.proxy.recovery import LearnedLimits
from snapshot.proxy.shapes import SHAPES, Shape
from snapshot.proxy.turns import TurnRecorder
from snapshot.transcript.store import Store


def _shape(api: str) -> Shape:
    for shape in SHAPES:
        if shape.name == api:
            return shape
    names = ", ".join(s.name for s in SHAPES)
    raise SnapshotError(f"unknown API {api!r}; use one of: {names}")


class LiveSession:
    """One live conversation in the shape of ``api`` (anthropic, openai, openai-responses, gemini).

    Parameters
    ----------
    api
        The request shape; ``body`` holds every other field (system, tools, ...).
    store
        A store folder: :meth:`end_turn` records each turn there, and the maxima
        providers state are kept in ``proxy-limits.json`` beside it.
    threshold, window
        Compact at ``threshold`` × the model's window (``window`` overrides the
        data table's).

    Examples
    --------
    >>> session = LiveSession("openai", {"model": "gpt-5.5", "messages": [
    ...     {"role": "system", "content": "You are a coding agent."},
    ...     {"role": "user", "content": "Summarize the logs."}]})
    >>> for i in range(6):
    ...     session.append({"role": "assistant", "content": None, "tool_calls": [{
    ...         "id": f"call_{i}", "type": "function",
    ...         "function": {"name": "cat", "arguments": json.dumps({"path": f"log{i}"})}}]},
    ...         {"role": "tool", "tool_call_id": f"call_{i}", "content": f"line {i}\\n" * 150})
    >>> body = session.request("gpt-5.5", budget=2000)
    >>> session.last.changed, session.last.rungs, session.last.tokens_after <= 2000
    (True, ('elide',), True)
    >>> body["messages"][0] == session.body["messages"][0]  # untouched items are the client's own
    True
    >>> error = {"error": {"code": "context_length_exceeded", "type": "invalid_request_error",
    ...     "message": "This model's maximum context length is 1500 tokens. However, your "
    ...     "messages resulted in 1800 tokens. Please reduce the length of the messages."}}
    >>> retry = session.reject("gpt-5.5", 400, error)  # the free rungs cannot reach 1,425
    >>> retry is None, "over the budget of 1,425" in session.last.failure
    (True, True)
    >>> session.planner.window("gpt-5.5")  # the stated maximum is this model's window now
    1500
    """

    def __init__(
        self,
        api: str,
        body: dict[str, Any] | None = None,
        *,
        conversation: str = "live",
        agent: str = "main",
        store: str | Path | None = None,
        threshold: float = 0.8,
        window: int | None = None,
        upstream: str = "",
    ) -> None:
        self.shape = _shape(api)
        self.body: dict[str, Any] = dict(body or {})
        self.body.setdefault(self.shape.history_key, [])
        self.key = (conversation, agent)
        folder = Path(store) if store is not None else None
        self.turns = TurnRecorder(Store(folder)) if folder is not None else None
        limits = LearnedLimits(folder / "proxy-limits.json" if folder is not None else None)
        self.planner = Planner(threshold=threshold, limits=limits, upstream=upstream, window=window)
        self.last: RequestPlan | None = None

    def append(self, *items: Any) -> None:
        """Add items (messages, contents or Responses items) to the history."""
        self.body[self.shape.history_key].extend(items)

    def request(self, model: str, *, budget: int | None = None) -> dict[str, Any]:
        """The body to send: as it is, or compacted (at ``budget`` tokens, else the threshold)."""
        raw = len(json.dumps(self.body, ensure_ascii=False).encode())
        self.last = self.planner.plan(
            self.shape, self.body, model, self.key, raw_bytes=raw, budget=budget
        )
        return self.last.body

    def reject(self, model: str, status: int, error: Any) -> dict[str, Any] | None:
        """The body to retry with after the provider's rejection, or None.

        None: the error is not an overflow, or the free rungs cannot fit the
        stated limit (send nothing more; the error stands). Either way the stated
        maximum and the count are remembered for this model.
        """
        overflow = parse_overflow(self.shape.provider, status, error)
        if overflow is None:
            return None
        if self.last is None:
            self.request(model)
        assert self.last is not None
        self.last = self.planner.recover(
            self.shape, self.body, model, self.key, overflow, self.last
        )
        return self.last.body if self.last.changed and self.last.fits else None

    def end_turn(self, *reply: Any) -> None:
        """The reply's items: appended to the history, and the turn stored (with a store)."""
        if self.turns is not None:
            self.turns.record(
                self.shape, self.body, list(reply), conversation=self.key[0], agent=self.key[1]
            )
        self.append(*reply)
