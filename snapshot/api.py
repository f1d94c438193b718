"""The researcher's surface: import a transcript, compact it, export a request, store it.

Each name here is the one way to do its job from a script; the command line
calls the same functions. The worked examples run as doctests in CI, on the
package's bundled demo transcripts. Every import returns a :class:`Conversation`
of :class:`Message` objects. ``run_ladder`` takes a resolved reader
(``target_for(model)``: profile, text counter and prices in one):

>>> from importlib import resources
>>> demo = resources.files("snapshot.demo") / "transcripts" / "demo-coding.json"
>>> conv = import_conversation(demo)
>>> result = run_ladder(conv, target_for("gemini-3.8-flash"), 3000)
>>> result.fits, result.rungs_taken, result.tokens_after < result.tokens_before
(True, ('elide',), True)

With no summarizer the ladder stops at the free rungs: nothing stands in for a
summary it cannot write, and what one would weigh is a figure labelled modelled:

>>> short = run_ladder(conv, target_for("gemini-3.8-flash"), 800)
>>> short.fits, short.rungs_taken
(False, ('elide', 'snapshot'))
>>> print(short.steps[-1].notes[0])  # doctest: +ELLIPSIS
not taken: no summarizer given; a summary would bring the request to ... tokens (modelled only, nothing sent)

A store keeps conversations and their session tree across runs:

>>> import tempfile
>>> store = Store(tempfile.mkdtemp())
>>> store.save(conv).name
'main.jsonl'
>>> store.load(conv.id).id == conv.id
True
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.ladder.compact import CompactOptions, CompactOutcome
from snapshot.ladder.compact import compact as _compact
from snapshot.ladder.ladder import LadderResult, run_ladder
from snapshot.ladder.target import target_for
from snapshot.transcript.model import Conversation, Message
from snapshot.transcript.store import Store

__all__ = [
    "CompactOptions",
    "CompactOutcome",
    "Conversation",
    "LadderResult",
    "Message",
    "Store",
    "compact",
    "export_request",
    "import_conversation",
    "import_conversations",
    "run_ladder",
    "target_for",
]


def import_conversations(
    path: str | os.PathLike[str] | Any,
    *,
    format: str | None = None,
    select: Mapping[str, str] | None = None,
) -> list[Conversation]:
    """Every conversation in a transcript file or folder (subagents are their own).

    Parameters
    ----------
    path
        A transcript file, or a folder for formats that keep files beside the log.
    format
        A format name (``snapshot import --help`` lists them); detected when omitted.
    select
        ``KEY=VALUE`` pairs picking conversations out of a multi-conversation file.

    Returns
    -------
    list of Conversation
        The main conversation first where the format has one.

    Raises
    ------
    TranscriptError
        If nothing importable is there, or the format does not read it.

    Examples
    --------
    >>> from importlib import resources
    >>> demo = resources.files("snapshot.demo") / "transcripts" / "demo-support.json"
    >>> [c.agent for c in import_conversations(demo)]
    ['main']
    """
    from snapshot.transcript.formats import import_path

    return list(import_path(Path(str(path)), format=format, select=dict(select or {}) or None))


def import_conversation(
    path: str | os.PathLike[str] | Any,
    *,
    format: str | None = None,
    select: Mapping[str, str] | None = None,
) -> Conversation:
    """The main conversation of a transcript (see :func:`import_conversations` for all).

    Raises
    ------
    TranscriptError
        If nothing importable is there.

    Examples
    --------
    >>> from importlib import resources
    >>> demo = resources.files("snapshot.demo") / "transcripts" / "demo-browse.json"
    >>> import_conversation(demo).path()[0].role
    'system'
    """
    convs = import_conversations(path, format=format, select=select)
    if not convs:
        raise TranscriptError(f"{path}: no conversation in it")
    return next((c for c in convs if c.agent == "main"), convs[0])


def export_request(conv: Conversation, to: str, *, model: str | None = None) -> Any:
    """The request body a provider accepts for a conversation.

    Parameters
    ----------
    conv
        The conversation (its current path is exported).
    to
        ``anthropic``, ``openai``, ``openai-responses``, ``gemini`` or ``markdown``.
    model
        The model id written into the body, where the provider's body names one.

    Returns
    -------
    dict or str
        The body (Markdown is a string). Repairs (a call whose result is missing)
        are answered the documented way; :func:`snapshot.transcript.export.export`
        also returns their notes.

    Examples
    --------
    >>> from importlib import resources
    >>> demo = resources.files("snapshot.demo") / "transcripts" / "demo-coding.json"
    >>> body = export_request(import_conversation(demo), "anthropic", model="claude-sonnet-5-5")
    >>> body["model"], body["messages"][0]["role"]
    ('claude-sonnet-5-5', 'user')
    """
    from snapshot.transcript.export import export

    return export(conv, to, model=model).body


def compact(
    conv: Conversation, model: str, budget: int | None = None, options: CompactOptions | None = None
) -> CompactOutcome:
    """Climb the ladder until ``conv`` fits ``budget`` tokens of ``model``; the request and pages.

    ``options`` is a :class:`CompactOptions` (keep turns, a factsheet, a summarizer,
    the OpenAI request shape, a simulated provider's limit, a share of the context
    window instead of ``budget``, a profiles file, a schema check); its defaults
    otherwise. Offline, with no summarizer, it stops at the free rungs and says so.

    Examples
    --------
    >>> from importlib import resources
    >>> demo = resources.files("snapshot.demo") / "transcripts" / "demo-coding.json"
    >>> conv = import_conversation(demo)
    >>> out = compact(conv, "gpt-5.5", 4000)
    >>> out.result.tokens_after < out.result.tokens_before, out.api
    (True, 'openai')
    >>> compact(conv, "gpt-5.5", 4000, CompactOptions(openai_api="responses")).api
    'openai-responses'
    """
    return _compact(conv, model, budget, options)
