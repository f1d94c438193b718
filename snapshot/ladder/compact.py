"""Provider-ready output: one conversation compacted into a request the provider accepts.

The ladder decides what to send; the exporter writes it in the provider's own
shape (Anthropic Messages, OpenAI chat or Responses, Gemini); the pages and a
JSON record of every rung go beside it. The request is checked against the
provider's image-count and byte budgets before it is written.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from snapshot.errors import InputError
from snapshot.ladder.ladder import FREE_RUNGS, LadderOptions, LadderResult, recover, run_ladder
from snapshot.ladder.provider import SimulatedProvider
from snapshot.ladder.sheets import SheetOptions
from snapshot.ladder.summary import Summarizer
from snapshot.ladder.target import Target, target_for
from snapshot.transcript.model import Conversation

if TYPE_CHECKING:
    from snapshot.transcript.resolve import ConversationHandle

# Which request shape each provider takes; OpenAI-compatible APIs take chat bodies.
REQUEST_SHAPES = {"anthropic": "anthropic", "openai": "openai", "google": "gemini"}


@dataclass(frozen=True)
class CompactOptions:
    """How :func:`compact` builds the request, besides the model and the budget.

    Every field has the default ``snapshot compact`` uses without the flag.

    Attributes
    ----------
    window_share : float, optional
        The budget as this share of the model's context window (in (0, 1]), in
        place of a token budget; the window's source and date go into the record.
    profiles_file : str or Path, optional
        A JSON/TOML profiles file (``snapshot tune``) whose profiles win over the tables.
    keep_turns : int
        Recent turns kept verbatim (default 2).
    factsheet_chars : int
        Exact identifiers written beside the pages, within this many characters
        (default 0: none).
    summarizer : str or Summarizer, optional
        ``"none"`` (default: no summary rung), ``"auto"`` (the conversation's own
        real compaction summary where it has one), ``"live:MODEL"`` (needs the
        ``[live]`` extra and a key; :func:`snapshot.ladder.summary.summarizer_for`),
        or a :class:`~snapshot.ladder.summary.Summarizer` of your own.
    openai_api : str
        The OpenAI request shape: ``"chat"`` (default) or ``"responses"``.
    provider_limit : int, optional
        Check the request with a simulated provider (an offline stand-in) that
        counts exactly and rejects above this many tokens; the ladder recovers
        with the free rungs.
    check : bool
        Validate the request against the provider's published schema and
        documented rules; the result goes into ``CompactOutcome.validation``.

    Examples
    --------
    >>> from importlib import resources
    >>> from snapshot.transcript.formats import import_path
    >>> demo = resources.files("snapshot.demo") / "transcripts" / "demo-coding.json"
    >>> [conv] = import_path(Path(str(demo)))
    >>> options = CompactOptions(keep_turns=1, openai_api="responses", check=True)
    >>> out = compact(conv, "gpt-5.5", 4000, options)
    >>> out.api, out.validation["ok"]
    ('openai-responses', True)
    """

    window_share: float | None = None
    profiles_file: str | Path | None = None
    keep_turns: int = 2
    factsheet_chars: int = 0
    summarizer: str | Summarizer = "none"
    openai_api: str = "chat"
    provider_limit: int | None = None
    check: bool = False


@dataclass(frozen=True)
class CompactOutcome:
    """What :func:`compact` made: the reader, the ladder's result and the request body.

    ``api`` is the request's shape (``anthropic``, ``openai``, ``openai-responses``,
    ``gemini``); ``notes`` are what the exporter and the image budgets said;
    ``checked_by`` names the simulated provider that checked it, if any;
    :meth:`record` is ``record.json`` and :meth:`write` writes the pages, the
    request and the record into a folder.

    >>> from importlib import resources
    >>> from snapshot.transcript.formats import import_path
    >>> demo = resources.files("snapshot.demo") / "transcripts" / "demo-coding.json"
    >>> [conv] = import_path(Path(str(demo)))
    >>> out = compact(conv, "claude-opus-5", 4000)
    >>> out.api, out.result.fits, out.body["messages"][0]["role"]
    ('anthropic', True, 'user')
    >>> out.record("request.json", [])["rungs_taken"]
    ['elide', 'snapshot']
    """

    target: Target
    result: LadderResult
    api: str
    body: Any
    notes: tuple[str, ...]
    checked_by: str | None
    # Calls the request answers with a synthetic error result: the source has no result.
    synthetic_results: tuple[str, ...] = ()
    # The body checked against the provider's schema and rules (``check=True``), as JSON.
    validation: dict[str, Any] | None = None
    # How the budget was set: the tokens asked, or a share of the model's context window.
    budget_from: dict[str, Any] | None = None

    def record(self, request_file: str, page_files: list[str]) -> dict[str, Any]:
        r = self.result
        return {
            "model": self.target.model,
            "api": self.api,
            "budget": r.budget,
            "tokens_before": r.tokens_before,
            "tokens_after": r.tokens_after,
            "text_tokens": self.target.text_estimate_label,
            "fits": r.fits,
            "failure": r.failure,
            "rungs_taken": list(r.rungs_taken),
            "rungs": [s.to_json() for s in r.steps],
            "summary": None
            if r.summary is None
            else {
                "source": r.summary.source,
                "chars": r.summary.output_chars,
                "note": r.summary.note,
            },
            "model_calls": r.model_calls,
            "estimator_correction": r.correction,
            "checked_by": self.checked_by,
            "pages": page_files,
            "request_file": request_file,
            "notes": list(self.notes),
            "synthetic_results": list(self.synthetic_results),
            "validation": self.validation,
            "budget_from": self.budget_from,
        }

    def write(
        self,
        out: Path,
        *,
        saved: dict[str, Any] | None = None,
        history: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Write the pages, request.json and record.json: all of them, or none (a full disk).

        A previous run's pages are removed first (they would sit beside a record that
        does not list them); the pages written are every page the request carries,
        those an earlier pass drew included.
        """
        written: list[Path] = []
        try:
            out.mkdir(parents=True, exist_ok=True)
            for old in out.glob("page-[0-9][0-9][0-9].png"):
                old.unlink()
            pngs = [
                img.data
                for m in self.result.conversation.path()
                if m.meta.get("kind") == "snapshot"
                for img in m.images()
                if img.data is not None
            ]
            pages = []
            for i, png in enumerate(pngs, start=1):
                name = f"page-{i:03d}.png"
                written.append(out / name)  # before writing: a partial file is removed too
                (out / name).write_bytes(png)
                pages.append(name)
            request = out / "request.json"
            written.append(request)
            request.write_text(json.dumps(self.body, ensure_ascii=False) + "\n", encoding="utf-8")
            record = {**self.record(request.name, pages), "saved": saved}
            if history is not None:
                record["history"] = history
            written.append(out / "record.json")
            (out / "record.json").write_text(
                json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
            )
        except OSError as exc:
            for path in written:
                with contextlib.suppress(OSError):
                    path.unlink(missing_ok=True)
            where = written[-1] if written else out
            raise InputError(
                f"cannot write {where}: {exc.strerror or exc}; removed the {len(written)} "
                "file(s) this run had written, so no partial result is left"
            ) from exc
        return record


def request_shape(target: Target, openai_api: str) -> str:
    """The request body a target's provider takes (``openai_api``: chat or responses)."""
    provider = getattr(target.profile, "provider", "openai")
    shape = REQUEST_SHAPES.get(provider, "openai")
    if shape == "openai" and openai_api == "responses":
        return "openai-responses"
    return shape


def _check_budgets(body: Any, target: Target) -> list[str]:
    """Image count and per-image bytes in the written body, against the provider's limits."""
    text = json.dumps(body)
    notes = []
    images = (
        text.count('"image/png"')
        + text.count('"image/jpeg"')
        + text.count('"image/webp"')
        + text.count('"image/gif"')
    )
    if images > target.max_images:
        notes.append(
            f"request carries {images} images; {target.model} takes at most {target.max_images}"
        )
    return notes


def budget_for(
    profile: Any, budget: int | None, window_share: float | None
) -> tuple[int, dict[str, Any]]:
    """The token budget asked (``budget``) or ``window_share`` of the model's context window.

    Raises :class:`~snapshot.errors.InputError` when neither or both are given, or
    when no source states the model's window.

    >>> from snapshot.profiles import profile_for
    >>> tokens, how = budget_for(profile_for("claude-sonnet-4-6"), None, 0.5)
    >>> tokens, how["window_tokens"], how["share"]
    (500000, 1000000, 0.5)
    """
    from snapshot.profiles import context_window

    if (budget is None) == (window_share is None):
        raise InputError("give a token budget or a share of the context window, not both")
    if budget is not None:
        return budget, {"tokens": budget}
    assert window_share is not None
    if not 0.0 < window_share <= 1.0:
        raise InputError(f"the window share must be in (0, 1], got {window_share}")
    window = context_window(profile.canonical)
    if window is None:
        raise InputError(
            f"no source states the context window of {profile.canonical}; give --budget"
        )
    tokens = max(1, int(window.tokens * window_share))
    return tokens, {
        "share": window_share,
        "window_tokens": window.tokens,
        "window_source": window.source,
        "window_date": window.date,
        "tokens": tokens,
    }


def compact(
    conv: Conversation,
    model: str,
    budget: int | None = None,
    options: CompactOptions | None = None,
) -> CompactOutcome:
    """Compact ``conv`` for ``model`` to ``budget`` tokens (or a share of its context window).

    A request never carries a summary without text: offline (no summarizer, or
    a summarizer that only models its size) the ladder stops at the free rungs
    and the result says "not met" when they cannot fit. ``options``: see
    :class:`CompactOptions` (default: its defaults; ``window_share`` in place of ``budget``).
    """
    from snapshot.ladder.summary import summarizer_for
    from snapshot.profiles.options import resolve_profile
    from snapshot.transcript.export import export

    opts = CompactOptions() if options is None else options
    summarizer: Summarizer | None = (
        summarizer_for(opts.summarizer, conv)
        if isinstance(opts.summarizer, str)
        else opts.summarizer
    )
    profile = resolve_profile(model, profiles_file=opts.profiles_file)
    target = target_for(profile)
    budget, budget_from = budget_for(profile, budget, opts.window_share)
    ladder_options = LadderOptions(
        keep_turns=opts.keep_turns, sheets=SheetOptions(factsheet_chars=opts.factsheet_chars)
    )
    free = replace(ladder_options, rungs=FREE_RUNGS)
    checked_by = None
    offline = False
    if opts.provider_limit is not None:
        provider = SimulatedProvider(limit=opts.provider_limit, image_tokens=target.image_tokens)
        result = recover(conv, target, budget, provider, options=free)
        checked_by = provider.name
    else:
        with_summary = (
            None
            if summarizer is None
            else run_ladder(conv, target, budget, summarizer=summarizer, options=ladder_options)
        )
        if with_summary is None or (
            with_summary.summary is not None and with_summary.summary.text is None
        ):
            # Offline there is no summary to send: a provider-ready request stops at the
            # free rungs and says so, rather than carrying a placeholder for one.
            result, offline = run_ladder(conv, target, budget, options=free), True
        else:
            result = with_summary
    if offline and not result.fits:
        result = replace(
            result,
            failure=f"{result.failure}; the next rung is a summary, and no summarizer is "
            "available offline (use --summarizer live:MODEL)",
        )
    api = request_shape(target, opts.openai_api)
    exported = export(result.conversation, api, model=target.model)
    notes = [*exported.notes, *_check_budgets(exported.body, target)]
    validation = None
    if opts.check:
        from snapshot.transcript.validate import validate

        validation = validate(exported.body, api, model=target.model).to_json()
    return CompactOutcome(
        target,
        result,
        api,
        exported.body,
        tuple(notes),
        checked_by,
        exported.synthetic_results,
        validation,
        budget_from,
    )


def compact_to(
    out: Path,
    conv: Conversation | ConversationHandle,
    model: str,
    budget: int | None = None,
    options: CompactOptions | None = None,
    *,
    save: bool = False,
    save_anyway: bool = False,
    whole_history: bool = False,
    note: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """What ``snapshot compact`` does: :func:`compact`, then write the outcome into ``out``.

    Parameters
    ----------
    out : Path
        The folder for ``page-NNN.png``, ``request.json`` and ``record.json``.
    conv : Conversation or ConversationHandle
        The conversation, or what CONV resolved to (needed with ``save``).
    model, budget
        The reader and its token budget (or ``options.window_share`` of its context window).
    options : CompactOptions, optional
        How the request is built (:class:`CompactOptions`; the command's
        ``--summarizer`` default is ``"auto"``).
    save : bool
        Store the compacted path as the new tip of the resolved conversation
        (:func:`snapshot.ladder.save.save_compacted`) when it met its budget;
        the record says where, or why it was not stored.
    save_anyway : bool
        With ``save``, store a result that missed its budget too
        (``saved["missed_budget"]`` says so).
    whole_history : bool
        Compact the whole path of a session its harness already compacted,
        every summary inline; by default only its live context
        (:func:`snapshot.transcript.export.live.live_context`). ``record["history"]``
        says which.
    note : callable, optional
        Receives the store's announcements (a file stored for the first time);
        default: the handle's own ``note``.

    Returns
    -------
    dict
        The record written to ``record.json``.

    Examples
    --------
    >>> import tempfile
    >>> from importlib import resources
    >>> from snapshot.transcript.formats import import_path
    >>> demo = resources.files("snapshot.demo") / "transcripts" / "demo-coding.json"
    >>> [conv] = import_path(Path(str(demo)))
    >>> with tempfile.TemporaryDirectory() as d:
    ...     record = compact_to(Path(d), conv, "gpt-5.1", 4000)
    ...     written = sorted(p.name for p in Path(d).iterdir())
    >>> record["fits"], record["request_file"], "record.json" in written
    (True, 'request.json', True)
    """
    from snapshot.transcript.resolve import ConversationHandle
    from snapshot.transcript.session import open_handle

    handle = None
    if isinstance(conv, ConversationHandle):
        handle = open_handle(conv, writes=True, note=note) if save else None
        conv = handle.conv if handle is not None else conv.conv
    elif save:
        raise InputError("--save needs a stored conversation or a file to store, not a value")
    history, conv = _history(conv, whole_history, note)
    outcome = compact(conv, model, budget, options)
    saved = None
    if handle is not None:
        from snapshot.ladder.save import save_result

        saved = save_result(handle, outcome.result.conversation, outcome.result.fits, save_anyway)
    return outcome.write(out, saved=saved, history=history)


def _history(
    conv: Conversation, whole: bool, note: Callable[[str], None] | None
) -> tuple[dict[str, Any], Conversation]:
    """Which history is compacted (``record["history"]``), and that conversation."""
    from snapshot.transcript.export.live import live_context, whole_history_note

    live = live_context(conv)
    line = whole_history_note(conv) if whole else live.note
    if line and note is not None:
        note(f"snapshot: note: {line}")
    history: dict[str, Any] = {
        "whole": whole or live.compactions == 0,
        "compactions": live.compactions,
    }
    if line:
        history["note"] = line
    return history, conv if whole else live.conversation
