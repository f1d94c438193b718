"""The whole corpus checked: every conversation exported to every shape and validated,
and compacted for a Claude, an OpenAI and a Gemini 3 model.

What the report states as "the validation count": :func:`validate_corpus` returns
how many bodies were checked, how many problems they had, and how many calls
compaction answered with a synthetic result although the source had a real one
(each must be zero). The files, the counts and the exports are validation's
(:mod:`snapshot.transcript.validate.corpus`); the compactions are the ladder's, here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from snapshot.ladder.compact import compact
from snapshot.ladder.target import target_for
from snapshot.profiles import current_default_models
from snapshot.transcript.model import Conversation
from snapshot.transcript.validate import validate
from snapshot.transcript.validate.corpus import (
    CorpusFile,
    CorpusValidation,
    check_exports,
    corpus_conversations,
    synthetic_over_real,
)

#: Models compaction is checked for: today's Claude, OpenAI and Gemini 3 report defaults.
COMPACT_MODELS = current_default_models()
#: The compaction budget, as a share of the conversation's own token count.
BUDGET_SHARE = 0.5


def check_compactions(
    conv: Conversation,
    label: str,
    result: CorpusValidation,
    repairs: dict[str, int],
    *,
    models: Sequence[str] = COMPACT_MODELS,
) -> None:
    """Compact ``conv`` for each model and validate the request bodies, counting into ``result``.

    ``repairs``: the synthetic results each plain export of ``conv`` needs, by shape
    (:func:`~snapshot.transcript.validate.corpus.check_exports`); a compaction may
    need no more.

    >>> from snapshot.transcript.model import linear, TextBlock
    >>> conv = linear("c", [("u", "user", [TextBlock("hi " * 50)]),
    ...                     ("a", "assistant", [TextBlock("yo")])])
    >>> result = CorpusValidation()
    >>> check_compactions(conv, "c", result, {}, models=["gpt-4o"])
    >>> result.compactions, result.compacted_bodies, result.problems, result.synthetic_over_real
    (1, 2, 0, 0)
    """
    from snapshot.transcript.export import export

    for model in models:
        budget = max(1, int(target_for(model).tokens(conv.path()) * BUDGET_SHARE))
        outcome = compact(conv, model, budget)  # no summarizer: the free rungs
        result.compactions += 1
        invented = synthetic_over_real(conv, outcome.result.conversation)
        # The exporter's own count too: no more repairs than the source itself needs.
        extra = len(outcome.synthetic_results) - repairs.get(outcome.api, 0)
        if extra > 0 and not invented:
            invented = list(outcome.synthetic_results)
        result.synthetic_over_real += len(invented)
        if invented:
            result.failures.append(
                f"{label} compacted for {model}: synthetic results for {invented}"
            )
        bodies = [(outcome.api, outcome.body)]
        if outcome.api == "openai":  # compact --api responses writes the same ladder result
            again = export(outcome.result.conversation, "openai-responses", model=model)
            bodies.append(("openai-responses", again.body))
        result.compacted_bodies += len(bodies)
        for shape, body in bodies:
            found = validate(body, shape, model=outcome.target.model).problems
            result.problems += len(found)
            result.failures += [f"{label} compacted for {model} ({shape}): {p}" for p in found[:5]]


def validate_corpus(
    root: Path,
    *,
    models: Sequence[str] = COMPACT_MODELS,
    files: Iterable[CorpusFile] | None = None,
) -> CorpusValidation:
    """Export, validate and compact every corpus conversation; the counts.

    Parameters
    ----------
    root
        The corpus folder (``../shared/corpus``).
    models
        Models to compact for (none: exports only).
    files
        A subset of :func:`~snapshot.transcript.validate.corpus.corpus_files`
        (default: all).

    Returns
    -------
    CorpusValidation
        Counts; ``.ok`` when no body has a problem and no compaction invents a result.

    Examples
    --------
    >>> import tempfile
    >>> validate_corpus(Path(tempfile.mkdtemp())).summary()
    '0 exported + 0 compacted request bodies from 0 conversations (0 of 0 files import): 0 validation problems; 0 compactions, 0 synthetic results over real ones'
    """
    result = CorpusValidation()
    for label, conv in corpus_conversations(root, result, files):
        repairs = check_exports(conv, label, result)
        check_compactions(conv, label, result, repairs, models=models)
    return result
