"""The corpus as validation sees it: its files, the counts, and each conversation's exports.

What the report states as "the validation count" is
:func:`snapshot.ladder.corpus_check.validate_corpus`: every conversation exported to
every shape and validated (here: :func:`check_exports`), and compacted for a Claude,
an OpenAI and a Gemini 3 model (the ladder's part; this layer imports nothing of the
ladder). :class:`CorpusValidation` counts bodies, problems and calls compaction
answered with a synthetic result although the source had a real one (each must be zero).

Files come from ``formats/MANIFEST.json`` (every sample, all its agents) and
``benchmark.manifest.json`` (each entry with its ``select``); a file no
importer reads yet is counted as not imported, not as a failure.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from snapshot.errors import SnapshotError
from snapshot.transcript.model import Conversation, tool_pairing
from snapshot.transcript.validate import SHAPES, validate


@dataclass(frozen=True)
class CorpusFile:
    """One corpus entry: its path and the ``--select`` pairs the manifest gives it."""

    path: Path
    select: dict[str, str] = field(default_factory=dict)


@dataclass
class CorpusValidation:
    """Counts over the corpus; ``failures`` names each problem found (file, agent, shape)."""

    files: int = 0
    imported: int = 0
    conversations: int = 0
    bodies: int = 0
    compactions: int = 0
    compacted_bodies: int = 0  # request bodies of the compactions, also validated
    problems: int = 0
    synthetic_over_real: int = 0
    not_imported: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.problems == 0 and self.synthetic_over_real == 0

    def summary(self) -> str:
        """One line for a report.

        >>> CorpusValidation(files=2, imported=1, conversations=3, bodies=12).summary()
        '12 exported + 0 compacted request bodies from 3 conversations (1 of 2 files import): 0 validation problems; 0 compactions, 0 synthetic results over real ones'
        """
        return (
            f"{self.bodies} exported + {self.compacted_bodies} compacted request bodies from "
            f"{self.conversations} conversations ({self.imported} of {self.files} files "
            f"import): {self.problems} validation problems; {self.compactions} compactions, "
            f"{self.synthetic_over_real} synthetic results over real ones"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "imported": self.imported,
            "conversations": self.conversations,
            "bodies": self.bodies,
            "compactions": self.compactions,
            "compacted_bodies": self.compacted_bodies,
            "problems": self.problems,
            "synthetic_over_real": self.synthetic_over_real,
            "not_imported": self.not_imported,
            "failures": self.failures,
        }


def corpus_files(root: Path) -> list[CorpusFile]:
    """Every file of ``root/formats/MANIFEST.json`` and ``root/benchmark.manifest.json``."""
    out: list[CorpusFile] = []
    formats = root / "formats" / "MANIFEST.json"
    if formats.is_file():
        for entry in json.loads(formats.read_text(encoding="utf-8"))["files"]:
            out.append(CorpusFile(root / "formats" / entry["path"]))
    bench = root / "benchmark.manifest.json"
    if bench.is_file():
        for entry in json.loads(bench.read_text(encoding="utf-8")):
            select = {str(k): str(v) for k, v in (entry.get("select") or {}).items()}
            out.append(CorpusFile(root / entry["path"], select))
    return out


def synthetic_over_real(source: Conversation, compacted: Conversation) -> list[str]:
    """Calls left unanswered by compaction that the source answers (an exporter would invent them).

    >>> from snapshot.transcript.model import linear, ToolCall, ToolResult, TextBlock
    >>> src = linear("c", [("a", "assistant", [ToolCall("t", "ls")]),
    ...                    ("r", "user", [ToolResult("t", (TextBlock("x"),))])])
    >>> synthetic_over_real(src, linear("c", [("a", "assistant", [ToolCall("t", "ls")])]))
    ['t']
    """
    missing = set(tool_pairing(source.path()).unanswered_calls)
    return [c for c in tool_pairing(compacted.path()).unanswered_calls if c not in missing]


def check_exports(conv: Conversation, label: str, result: CorpusValidation) -> dict[str, int]:
    """Export ``conv`` to every shape and validate each body, counting into ``result``.

    Returns the synthetic results each plain export needs, by shape (a compaction
    may need no more than these).

    >>> from snapshot.transcript.model import linear, TextBlock
    >>> conv = linear("c", [("u", "user", [TextBlock("hi")]), ("a", "assistant", [TextBlock("yo")])])
    >>> result = CorpusValidation()
    >>> check_exports(conv, "c", result)
    {'anthropic': 0, 'openai': 0, 'openai-responses': 0, 'gemini': 0}
    >>> result.conversations, result.bodies, result.problems
    (1, 4, 0)
    """
    from snapshot.transcript.export import export

    result.conversations += 1
    repairs: dict[str, int] = {}
    for shape in SHAPES:
        try:
            exported = export(conv, shape)
        except SnapshotError as exc:
            result.failures.append(f"{label} → {shape}: not exported: {exc}")
            continue
        result.bodies += 1
        repairs[shape] = len(exported.synthetic_results)
        found = validate(exported.body, shape).problems
        result.problems += len(found)
        result.failures += [f"{label} → {shape}: {p}" for p in found[:5]]
    return repairs


def corpus_conversations(
    root: Path, result: CorpusValidation, files: Iterable[CorpusFile] | None = None
) -> Iterator[tuple[str, Conversation]]:
    """Each conversation of the corpus a provider could be sent, with its label.

    Counts files, imported files and files no importer reads into ``result``.

    Parameters
    ----------
    root
        The corpus folder (``../shared/corpus``).
    result
        The counts to add to.
    files
        A subset of :func:`corpus_files` (default: all).

    >>> import tempfile
    >>> result = CorpusValidation()
    >>> list(corpus_conversations(Path(tempfile.mkdtemp()), result)), result.files
    ([], 0)
    """
    from snapshot.progress import progress
    from snapshot.transcript.formats import import_path

    entries = list(files if files is not None else corpus_files(root))
    for entry in progress(entries, desc="validating corpus", unit="file"):
        result.files += 1
        try:
            convs = import_path(entry.path, select=entry.select or None)
        except SnapshotError as exc:
            result.not_imported.append(f"{entry.path}: {exc}")
            continue
        result.imported += 1
        for conv in convs:
            if not any(m.role != "system" for m in conv.path()):
                continue  # nothing a provider could be sent
            yield f"{entry.path.relative_to(root)} ({conv.agent})", conv
