"""The conversations the report runs on: the bundled demo, or the benchmark corpus.

With no corpus the report runs on the package's own demo transcripts (written
for the project). With ``--corpus .../benchmark.manifest.json`` it imports every
manifest entry from the corpus folder beside the manifest.

A transcript that Claude Code really compacted is benchmarked as it stood at
that moment: the path up to its first ``compact_boundary``. The real summary
written then is the summary rung's output for it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from snapshot.errors import InputError
from snapshot.ladder.record import linear_copy
from snapshot.transcript.formats import import_path
from snapshot.transcript.model import Conversation


@dataclass(frozen=True)
class Source:
    """One benchmark conversation and what the manifest says about it."""

    id: str
    category: str
    conversation: Conversation
    reference: Mapping[str, Any] = field(default_factory=dict)

    @property
    def has_real_summary(self) -> bool:
        return any(m.meta.get("compact_summary") for m in self.conversation.messages)


def benchmark_view(conv: Conversation) -> Conversation:
    """The path as it stood when the conversation was first compacted (or all of it).

    The messages after the boundary stay in ``conv.messages`` so the real summary
    can still be found; only the path (what gets compacted) is cut.
    """
    path = conv.path()
    for i, m in enumerate(path):
        if m.meta.get("kind") == "compact_boundary" and i > 0:
            kept = linear_copy(conv, path[:i])
            extra = tuple(x for x in conv.messages if x.meta.get("compact_summary"))
            return kept.with_messages((*kept.messages, *extra), tip=kept.tip)
    return linear_copy(conv, path)


def demo_sources() -> list[Source]:
    folder = resources.files("snapshot.demo").joinpath("transcripts")
    out: list[Source] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        with resources.as_file(entry) as path:
            for conv in import_path(path):
                out.append(
                    Source(
                        id=f"demo/{entry.name}", category="demo", conversation=benchmark_view(conv)
                    )
                )
    return out


def read_manifest(manifest: Path) -> list[dict[str, Any]]:
    try:
        entries = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise InputError(f"{manifest}: not a readable benchmark manifest ({exc})") from exc
    if not isinstance(entries, list) or not all(
        isinstance(e, dict) and "path" in e for e in entries
    ):
        raise InputError(f"{manifest}: expected a JSON list of entries with a 'path'")
    return entries


def corpus_sources(manifest: Path, *, start: int = 0, limit: int | None = None) -> Iterator[Source]:
    """Import manifest entries ``start``… (lazily: the corpus is large)."""
    root = manifest.parent
    entries = read_manifest(manifest)[start:]
    for entry in entries[:limit] if limit is not None else entries:
        select = {str(k): str(v) for k, v in (entry.get("select") or {}).items()}
        convs = import_path(root / entry["path"], select=select or None)
        main = next((c for c in convs if c.agent == "main"), convs[0])
        yield Source(
            id=str(entry.get("id", entry["path"])),
            category=str(entry.get("category", "")),
            conversation=benchmark_view(main),
            reference=entry,
        )
