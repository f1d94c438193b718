"""A pass across models of one conversation: Gemini CLI switches between flash and pro
models mid-session (its router), all in one conversation.

Two models that draw the same pages share one pass (each request after a switch still
sends the previous pass's items first, counted in its own model's tokens); two models
of different layouts each keep a pass of their own, so neither is sent pages drawn for
the other's reader, and each still reuses its own pass after the other's turn. Planner
only (no server), Gemini CLI-shaped bodies from ``harness_bodies``, the free rungs as
the snapshot rung alone so every pass draws pages.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator
from itertools import pairwise
from typing import Any

import pytest
from harness_bodies import gemini_cli, gemini_step

from snapshot.ladder.target import target_for
from snapshot.proxy.identity import identify
from snapshot.proxy.planner import Planner, RequestPlan, pass_key
from snapshot.proxy.shapes import GEMINI

TURNS = 56
WINDOW = 24_000


@pytest.fixture
def pages_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The free rungs as the snapshot rung alone, so every pass draws pages."""
    import snapshot.proxy.planner as planner

    monkeypatch.setattr(planner, "FREE_RUNGS", ("snapshot",))
    yield


def _pages(body: dict[str, Any]) -> list[str]:
    """The inline images of a Gemini body, in order, by digest."""
    return [
        hashlib.sha256(base64.b64decode(part["inlineData"]["data"])).hexdigest()
        for item in body["contents"]
        for part in item.get("parts", ())
        if isinstance(part, dict) and "inlineData" in part
    ]


def _alternate(models: tuple[str, str]) -> list[tuple[str, dict[str, Any], RequestPlan]]:
    """One conversation, the two models taking turns: (model, client body, plan) per
    compacted request."""
    planner = Planner(window=WINDOW)
    session = gemini_cli(models[0])
    out = []
    for turn in range(TURNS):
        gemini_step(session)
        body = session.body()
        model = models[turn % 2]
        raw = json.dumps(body).encode()
        plan = planner.plan(
            GEMINI, body, model, identify(GEMINI, body, {}), raw_bytes=len(raw), raw=raw
        )
        # Under the threshold whether it reached its pass's goal or not.
        assert not plan.over_limit and plan.tokens_after <= 0.8 * WINDOW, plan
        if plan.changed:
            out.append((model, body, plan))
    return out


def _reuses(previous: dict[str, Any], now: dict[str, Any], client: dict[str, Any]) -> bool:
    """Whether ``now`` starts, item for item, with ``previous``'s history up to its
    verbatim tail (the harness suite's measure, from bodies)."""
    before, sent = previous["contents"], client["contents"]
    tail = 0
    while tail < min(len(before), len(sent)) and before[-1 - tail] == sent[-1 - tail]:
        tail += 1
    prefix = before[: len(before) - tail]
    return now["contents"][: len(prefix)] == prefix


def test_models_of_one_layout_share_the_pass(pages_only: None) -> None:
    models = ("gemini-3-flash-preview", "gemini-3.8-flash")
    key = ("c", "main")
    assert pass_key(key, target_for(models[0])) == pass_key(key, target_for(models[1]))
    rows = _alternate(models)
    assert len(rows) >= 20 and sum(p.pages > 0 for _, _, p in rows) == len(rows)
    # Every compacted request follows one for the other model: reusing the previous pass
    # is reusing the other model's.
    shared = [_reuses(a[2].body, b[2].body, b[1]) for a, b in pairwise(rows)]
    assert all(a[0] != b[0] for a, b in pairwise(rows))
    assert sum(shared) >= 0.5 * len(shared), shared
    assert sum(p.reused_pass for _, _, p in rows) >= 0.5 * len(rows)


def test_models_of_two_layouts_keep_a_pass_each(pages_only: None) -> None:
    models = ("gemini-3.1-pro-preview", "gemini-3-flash-preview")
    key = ("c", "main")
    layouts = {m: pass_key(key, target_for(m)) for m in models}
    assert layouts[models[0]] != layouts[models[1]]
    rows = _alternate(models)
    # Each page a model is sent was drawn by a pass planned for its own layout.
    drawn_for: dict[str, set[tuple[str, ...]]] = {}
    for model, _, plan in rows:
        pages = _pages(plan.body)
        assert pages
        if not plan.reused_pass:
            for page in pages:
                drawn_for.setdefault(page, set()).add(layouts[model])
        foreign = [p for p in pages if layouts[model] not in drawn_for.get(p, set())]
        assert not foreign, f"{model} was sent {len(foreign)} pages drawn for another layout"
    # The other model's turn does not erase a model's pass: each reuses its own.
    for model in models:
        own = [(body, plan) for m, body, plan in rows if m == model]
        reused = [_reuses(a[1].body, b[1].body, b[0]) for a, b in pairwise(own)]
        assert sum(reused) >= 0.5 * len(reused), (model, reused)
