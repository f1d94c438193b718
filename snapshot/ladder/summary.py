"""Rung 4, the summary: one model call that keeps a narrative and loses what it did not pick.

Three summarizers share one interface:

- :class:`LiveSummarizer` calls a real model through the official SDK (the
  ``[live]`` extra) when a key is configured.
- :class:`CorpusSummarizer` serves the real compaction summaries that Claude
  Code wrote into the corpus transcripts (``meta["compact_summary"]``).
- :class:`ModelledSummarizer` prices the call (its input tokens plus an output
  size taken from the real summaries) and returns no text: its readability is
  reported as not measured. No invented summary is ever presented as a model's.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from snapshot.errors import SnapshotError
from snapshot.ladder.serialize import serialize
from snapshot.providers.keys import guarded_call, redact_reply
from snapshot.transcript.model import Conversation, Message

SummarySource = Literal["model", "corpus", "modelled"]

# Output size of a real compaction summary, used only where nothing better is known:
# `snapshot compact` offline, and a report whose own conversations hold no real
# summary (the report measures the size on its run's real summaries otherwise,
# snapshot/report/summaries.py). Measured with this importer on the 7 real Claude
# Code compaction summaries in the benchmark corpus (claude_code_spotter, 5 sessions;
# tielec_ja_agent_sdk, 2 logs) on 2026-12-01: mean 14,295 characters.
MEASURED_SUMMARY_CHARS = 14_295
MEASURED_SUMMARY_SOURCE = (
    "mean of the 7 real Claude Code compaction summaries in the benchmark corpus "
    "(measured 2026-12-01)"
)

SUMMARY_PROMPT = (
    "Summarize the conversation below so that work can continue from the summary alone. "
    "Keep the goal, constraints, decisions, exact identifiers (paths, ids, hashes, numbers, "
    "error messages) and the next steps."
)


@dataclass(frozen=True)
class Summary:
    """A summary of a span, or (``text is None``) only the modelled cost of one."""

    text: str | None
    source: SummarySource
    input_chars: int
    output_chars: int
    model: str | None = None
    note: str = ""
    # The provider's own usage of a live call (input, cache_read, cache_write, output).
    usage: dict[str, int] | None = None
    # Live calls made (a long span is summarized in several requests, each fitting
    # ``request_limit`` tokens; the largest counted ``largest_request`` tokens).
    calls: int = 1
    largest_request: int | None = None
    request_limit: int | None = None

    @property
    def readable(self) -> bool:
        return self.text is not None


class Summarizer(Protocol):
    @property
    def name(self) -> str: ...

    def summarize(self, conv: Conversation, span: Sequence[Message]) -> Summary: ...


def real_summaries(conv: Conversation) -> list[Message]:
    """The conversation's real compaction summaries, in recording order."""
    return [m for m in conv.messages if m.meta.get("compact_summary")]


@dataclass(frozen=True)
class CorpusSummarizer:
    """The summary Claude Code really wrote when this conversation was compacted.

    Bound to that text when made (:func:`corpus_summarizer`), so it still serves
    after a rung has re-linked the path and the summary message is off it.
    """

    text: str
    model: str = "claude-code"
    name: str = "corpus"

    def summarize(self, conv: Conversation, span: Sequence[Message]) -> Summary:
        return Summary(
            text=self.text,
            source="corpus",
            input_chars=len(serialize(span)),
            output_chars=len(self.text),
            model=self.model,
            note="real compaction summary recorded in the transcript",
        )


def corpus_summarizer(conv: Conversation) -> CorpusSummarizer | None:
    """A summarizer serving the conversation's first real compaction summary, if it has one."""
    found = real_summaries(conv)
    if not found:
        return None
    return CorpusSummarizer(found[0].text(), str(found[0].meta.get("model") or "claude-code"))


@dataclass(frozen=True)
class ModelledSummarizer:
    """Cost only: the call's input is the span, its output the measured mean size."""

    name: str = "modelled"
    output_chars: int = MEASURED_SUMMARY_CHARS
    size_source: str = MEASURED_SUMMARY_SOURCE

    def summarize(self, conv: Conversation, span: Sequence[Message]) -> Summary:
        return Summary(
            text=None,
            source="modelled",
            input_chars=len(serialize(span)) + len(SUMMARY_PROMPT),
            output_chars=self.output_chars,
            note=f"cost modelled, readability not measured; output size: {self.size_source}",
        )


@dataclass(frozen=True)
class LiveSummarizer:
    """A real summary from a real model via the official Anthropic or OpenAI SDK."""

    model: str
    name: str = "live"
    max_output_tokens: int = 4096
    base_url: str | None = None  # a gateway or a local test server; default: the provider's
    timeout: float = 600.0

    def summarize(self, conv: Conversation, span: Sequence[Message]) -> Summary:
        prompt = f"{SUMMARY_PROMPT}\n\n{serialize(span)}"
        text, usage = self.ask(prompt)
        return Summary(
            text=text,
            source="model",
            input_chars=len(prompt),
            output_chars=len(text),
            model=self.model,
            note="live model call",
            usage=usage,
        )

    def ask(self, prompt: str) -> tuple[str, dict[str, int] | None]:
        """One call: the model's reply to ``prompt`` (keys redacted) and its usage."""
        claude = self.model.startswith(("claude", "anthropic"))
        call = self._anthropic if claude else self._openai
        # No key in the summary, the request file or an error, even if the server echoes it.
        reply, usage = guarded_call(f"{self.model}: live summary", lambda: call(prompt))
        return redact_reply(reply), usage

    def _anthropic(self, prompt: str) -> tuple[str, dict[str, int] | None]:
        if not os.environ.get("ANTHROPIC_API_KEY"):
            raise SnapshotError("a live summary needs ANTHROPIC_API_KEY in the environment")
        try:
            import anthropic
        except ImportError:
            raise SnapshotError("a live summary needs: pip install 'snapshot[live]'") from None
        client = anthropic.Anthropic(base_url=self.base_url, timeout=self.timeout, max_retries=1)
        reply = client.messages.create(
            model=self.model,
            max_tokens=self.max_output_tokens,
            messages=[{"role": "user", "content": prompt}],
        )
        text = "".join(getattr(b, "text", "") for b in reply.content)
        u = reply.usage
        usage = {
            "input": u.input_tokens,
            "cache_read": u.cache_read_input_tokens or 0,
            "cache_write": u.cache_creation_input_tokens or 0,
            "output": u.output_tokens,
        }
        return text, usage

    def _openai(self, prompt: str) -> tuple[str, dict[str, int] | None]:
        if not os.environ.get("OPENAI_API_KEY"):
            raise SnapshotError("a live summary needs OPENAI_API_KEY in the environment")
        try:
            import openai
        except ImportError:
            raise SnapshotError("a live summary needs: pip install 'snapshot[live]'") from None
        client = openai.OpenAI(base_url=self.base_url, timeout=self.timeout, max_retries=1)
        reply = client.chat.completions.create(
            model=self.model, messages=[{"role": "user", "content": prompt}]
        )
        text = reply.choices[0].message.content or ""
        u = reply.usage
        if u is None:
            return text, None
        details = u.prompt_tokens_details
        cached = (details.cached_tokens or 0) if details is not None else 0
        usage = {
            "input": u.prompt_tokens - cached,
            "cache_read": cached,
            "cache_write": 0,
            "output": u.completion_tokens,
        }
        return text, usage


def summarizer_for(spec: str, conv: Conversation) -> Summarizer | None:
    """The summarizer ``compact --summarizer SPEC`` names: ``auto``, ``none`` or ``live:MODEL``.

    ``auto`` serves the conversation's own real compaction summary when it has
    one (else no summary rung); ``live:MODEL`` calls the model.

    >>> from snapshot.transcript.model import linear, TextBlock
    >>> conv = linear("c", [("u1", "user", [TextBlock("hi")])])
    >>> summarizer_for("none", conv) is None, summarizer_for("live:gpt-6.1-sol", conv).model
    (True, 'gpt-6.1-sol')
    >>> summarizer_for("magic", conv)
    Traceback (most recent call last):
    ...
    snapshot.errors.InputError: --summarizer 'magic': use auto, none, or live:MODEL
    """
    from snapshot.errors import InputError

    if spec == "none":
        return None
    if spec == "auto":
        return corpus_summarizer(conv)
    if spec.startswith("live:") and len(spec) > 5:
        return LiveSummarizer(spec[5:])
    raise InputError(f"--summarizer {spec!r}: use auto, none, or live:MODEL")
