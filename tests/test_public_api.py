"""The public API does what its examples say, with models a user can still call.

- ``snapshot.run_ladder(conv, target, budget)`` with default options never puts a
  modelled summary placeholder into a conversation, nor fits because of one; what
  a summary would weigh stays a figure labelled modelled in the summary step.
- ``Conversation`` and ``Message`` are exported and are what every import returns.
- Every model id the public examples name is current on the run's day (the
  package's own lifecycle table, sourced from providers' deprecation pages).
"""

from __future__ import annotations

import importlib
import re
from importlib import resources

import pytest

import snapshot
from snapshot.ladder.summary import ModelledSummarizer
from snapshot.transcript.model import Conversation, TextBlock, linear

# A long chat with nothing to elide: only a summary brings it to a small budget.
WORDS = " ".join(f"w{i}" for i in range(400))


def _chat(turns: int = 120) -> Conversation:
    return linear(
        "long",
        [
            (f"m{i}", "user" if i % 2 == 0 else "assistant", [TextBlock(f"turn {i}: {WORDS}")])
            for i in range(turns)
        ],
    )


@pytest.mark.parametrize("model", ["deepseek-chat", "gpt-5.5"])  # a text-only and a vision reader
def test_run_ladder_defaults_never_insert_a_modelled_summary(model: str) -> None:
    conv, target = _chat(), snapshot.target_for(model)
    budget = 8_000
    modelled = snapshot.run_ladder(conv, target, budget, summarizer=ModelledSummarizer())
    # The report's opt-in: a summary that only models its size fits on paper here.
    assert modelled.fits and "summary" in modelled.rungs_taken

    result = snapshot.run_ladder(conv, target, budget)
    assert not result.fits
    assert "summary" not in result.rungs_taken and result.summary is None
    assert result.model_calls == 0
    sent = [m.text() for m in result.conversation.path()]
    assert not any("modelled only" in t or "Summary of the earlier" in t for t in sent)
    assert result.tokens_after == target.tokens(result.conversation.path())
    step = result.steps[-1]
    assert step.rung == "summary" and not step.changed
    # The modelled size stays, labelled: the figure the report's modelled run counts.
    assert step.data["modelled_tokens"] == modelled.tokens_after
    assert "modelled only" in step.notes[0]
    assert result.failure is not None
    assert f"{budget:,}" in result.failure and "no summarizer was given" in result.failure


def test_run_ladder_defaults_still_fit_with_free_rungs() -> None:
    conv, target = _chat(10), snapshot.target_for("gpt-5.5")
    result = snapshot.run_ladder(conv, target, 10**6)
    assert result.fits and result.rungs_taken == () and result.failure is None


def test_conversation_and_message_are_what_an_import_returns() -> None:
    demo = resources.files("snapshot.demo") / "transcripts" / "demo-coding.json"
    conv = snapshot.import_conversation(demo)
    assert type(conv) is snapshot.Conversation
    assert all(type(m) is snapshot.Message for m in conv.path())
    assert {"Conversation", "Message"} <= set(snapshot.__all__) <= set(dir(snapshot))


# Ids a public example may name: the families the profiles know.
MODEL_ID = re.compile(
    r"""["']((?:claude|gpt|gemini|grok|deepseek|o\d|pixtral|mistral)[\w.-]*)["']"""
)


def _public_docstrings() -> dict[str, str]:
    """Every export's own docstring and the docstrings of the modules that present them."""
    docs = {
        module: importlib.import_module(module).__doc__ or ""
        for module in ("snapshot", "snapshot.api", "snapshot.proxy.live")
    }
    for name in snapshot.__all__:
        value = getattr(snapshot, name)
        if callable(value):
            docs[f"snapshot.{name}"] = value.__doc__ or ""
    return docs


def _example_model_ids() -> list[tuple[str, str]]:
    found = []
    for where, doc in _public_docstrings().items():
        examples = "\n".join(
            line for line in doc.splitlines() if line.lstrip().startswith((">>>", "..."))
        )
        found += [(where, model) for model in sorted(set(MODEL_ID.findall(examples)))]
    return found


def test_the_public_examples_name_models() -> None:
    where = {w for w, _ in _example_model_ids()}
    assert {"snapshot.api", "snapshot.LiveSession", "snapshot.run_ladder"} <= where


@pytest.mark.parametrize(("where", "model"), _example_model_ids())
def test_every_model_a_public_example_names_is_current(where: str, model: str) -> None:
    from snapshot.profiles import profile_for

    profile = profile_for(model, warn=False)
    life = profile.lifecycle_record()
    assert life["status"] == "current", (
        f"{where} names {model}, {life['status']} ({life['lifecycle_source']}); "
        f"use {life['successor'] or 'a current model'}"
    )
