"""Provider-ready output: one conversation compacted into a request the provider accepts.

The ladder decides what to send; the exporter writes it in the provider's own
shape (Anthropic Messages, OpenAI chat or Responses, Gemini); the pages and a
JSON record of every rung go beside it. The request is checked against the
provider's image-count and byte budgets before it is written.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from snapshot.errors import InputError
from snapshot.ladder.ladder import FREE_RUNGS, LadderOptions, LadderResult, recover, run_ladder
from snapshot.ladder.provider import SimulatedProvider
from snapshot.ladder.sheets import SheetOptions
from snapshot.ladder.summary import Summarizer
from snapshot.ladder.target import Target, target_for
from snapshot.transcript.model import Conversation

# Which request shape each provider takes; OpenAI-compatible APIs take chat bodies.
REQUEST_SHAPES = {"anthropic": "anthropic", "openai": "openai", "google": "gemini"}


@dataclass(frozen=True)
class CompactOutcome:
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
        }

    def write(self, out: Path) -> dict[str, Any]:
        """Write the pages, request.json and record.json: all of them, or none (a full disk)."""
        written: list[Path] = []
        try:
            out.mkdir(parents=True, exist_ok=True)
            pages = []
            for i, page in enumerate(self.result.pages, start=1):
                name = f"page-{i:03d}.png"
                written.append(out / name)  # before writing: a partial file is removed too
                (out / name).write_bytes(page.png())
                pages.append(name)
            request = out / "request.json"
            written.append(request)
            request.write_text(json.dumps(self.body, ensure_ascii=False) + "\n", encoding="utf-8")
            record = self.record(request.name, pages)
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


def compact(
    conv: Conversation,
    model: str,
    budget: int,
    *,
    keep_turns: int = 2,
    factsheet_chars: int = 0,
    summarizer: Summarizer | None = None,
    openai_api: str = "chat",
    provider_limit: int | None = None,
    check: bool = False,
) -> CompactOutcome:
    from snapshot.transcript.export import export

    target = target_for(model)
    options = LadderOptions(
        keep_turns=keep_turns, sheets=SheetOptions(factsheet_chars=factsheet_chars)
    )
    checked_by = None
    if provider_limit is not None:
        provider = SimulatedProvider(limit=provider_limit, image_tokens=target.image_tokens)
        result = recover(conv, target, budget, provider, options=options)
        checked_by = provider.name
    elif summarizer is None:
        # Offline there is no summary to send: a provider-ready request stops at the
        # free rungs and says so, rather than carrying a placeholder for one.
        result = run_ladder(conv, target, budget, options=replace(options, rungs=FREE_RUNGS))
        if not result.fits:
            result = replace(
                result,
                failure=f"{result.failure}; the next rung is a summary, and no summarizer is "
                "available offline (use --summarizer live:MODEL)",
            )
    else:
        result = run_ladder(conv, target, budget, summarizer=summarizer, options=options)
    api = request_shape(target, openai_api)
    exported = export(result.conversation, api, model=target.model)
    notes = [*exported.notes, *_check_budgets(exported.body, target)]
    validation = None
    if check:
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
    )


def compact_to(
    out: Path,
    conv: Conversation,
    model: str,
    budget: int,
    *,
    summarizer: str = "auto",
    **options: Any,
) -> dict[str, Any]:
    """What ``snapshot compact`` does: :func:`compact`, then write the outcome into ``out``.

    Parameters
    ----------
    out : Path
        The folder for ``page-NNN.png``, ``request.json`` and ``record.json``.
    conv : Conversation
    model, budget
        The reader and its token budget.
    summarizer : str
        ``auto``, ``none`` or ``live:MODEL`` (:func:`snapshot.ladder.summary.summarizer_for`).
    **options
        The other options of :func:`compact`.

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
    ...     record = compact_to(Path(d), conv, "gpt-5.1", 4000, summarizer="none")
    ...     written = sorted(p.name for p in Path(d).iterdir())
    >>> record["fits"], record["request_file"], "record.json" in written
    (True, 'request.json', True)
    """
    from snapshot.ladder.summary import summarizer_for

    outcome = compact(conv, model, budget, summarizer=summarizer_for(summarizer, conv), **options)
    return outcome.write(out)
