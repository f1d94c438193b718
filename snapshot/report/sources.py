"""The conversations the report runs on: the bundled demo, the benchmark corpus, or yours.

With no corpus the report runs on the package's own demo transcripts (written
for the project). With ``--corpus .../benchmark.manifest.json`` it imports every
manifest entry from the corpus folder beside the manifest. Given paths (files,
folders, globs, found by :mod:`snapshot.transcript.discover`), it imports every
transcript in them with its detected format, no manifest needed
(:func:`path_sources`), and lists every path with what became of it
(:func:`inventory_markdown`).

A transcript its harness really compacted (Claude Code, Codex, pi: the same
rule for each) is benchmarked as it stood at its first compaction: the first
segment of :func:`snapshot.transcript.export.live.segments`, the path up to
the first ``compact_boundary``. The real summary written then is the summary
rung's output for it. ``meta["measured"]`` says how much of the session that
is, and REPORT.md lists it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from snapshot.errors import InputError, SnapshotError
from snapshot.ladder.record import linear_copy
from snapshot.transcript.discover import Found
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
    can still be found; only the path (what gets compacted) is cut. The path is
    held whole, as the ladder that compacts it holds it; the other messages are
    only scanned, one at a time. ``meta["measured"]`` says which segment of how
    many was measured, and its share of the session's characters.
    """
    from dataclasses import replace

    from snapshot.transcript.export.live import segments

    parts = segments(conv)
    if len(parts) == 1:
        return linear_copy(conv, conv.path())
    first = parts[0]
    total = sum(m.chars() for m in conv.iter_path())
    measured = (
        f"segment 1 of {len(parts)} (up to the first of {len(parts) - 1} compaction(s)): "
        f"{sum(m.chars() for m in first):,} of {total:,} characters"
    )
    kept = linear_copy(conv, first)
    extra = tuple(x for x in conv.messages if x.meta.get("compact_summary"))
    out = kept.with_messages((*kept.messages, *extra), tip=kept.tip)
    fresh = replace(out, meta={**out.meta, "measured": measured})
    fresh.__dict__.pop("_index", None)
    return fresh


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


# --- a user's own sessions: files, folders and globs, no manifest -------------------

PRIVACY_NOTICE = (
    "**Private: this report was made from your own agent sessions.** It contains their file "
    "paths and may quote your code and prompts. Share it only as you would share the sessions "
    "themselves. Needle examples are left out unless `--show-needles` is given, and nothing "
    "was written outside the `--out` folder."
)


@dataclass(frozen=True)
class UnitReport:
    """What became of one file or folder log: its conversations, or why none."""

    path: Path
    format: str | None
    session: Path | None = None
    conversations: tuple[dict[str, Any], ...] = ()
    reason: str | None = None


def _conversation_row(conv: Conversation) -> dict[str, Any]:
    from snapshot.transcript.model import stats

    s = stats(conv.path() if conv.tip is not None else ())
    return {
        "id": conv.id,
        "agent": conv.agent,
        "messages": s.messages,
        "tool_calls": s.tool_calls,
        "images": s.images,
        "chars": s.chars,
        "text_kept": conv.meta.get("text_kept"),
        "warnings": len(conv.warnings),
    }


@dataclass(frozen=True)
class SourceRef:
    """One conversation of a user's file, by position: imported again when it is benchmarked.

    Holding references instead of conversations keeps a run over thousands of
    sessions at the memory of one session per process.
    """

    path: str
    index: int
    id: str
    category: str
    chars: int
    #: Characters of each real compaction summary, read when the file was listed
    #: (None: not read; the run imports the conversation again to find them).
    summaries: tuple[int, ...] | None = None

    def load(self) -> Source:
        convs = _imported(self.path)
        if self.index >= len(convs):
            raise InputError(f"{self.path}: changed since it was listed; run the report again")
        return Source(
            id=self.id,
            category=self.category,
            conversation=benchmark_view(convs[self.index]),
            reference={"path": self.path, "format": self.category},
        )


@functools.lru_cache(maxsize=1)
def _imported(path: str) -> tuple[Conversation, ...]:
    """The last file imported (its conversations are benchmarked one after another)."""
    return tuple(import_path(path))


def path_sources(
    found: Sequence[Found], *, limit: int | None = None
) -> tuple[list[SourceRef], list[UnitReport]]:
    """Import every unit ``found``; one that fails is reported with its reason, never fatal.

    Parameters
    ----------
    found
        What :func:`snapshot.transcript.discover.find` returned.
    limit
        Benchmark at most this many conversations (every path is still listed).

    Returns
    -------
    (list of SourceRef, list of UnitReport)
        The conversations to benchmark (main agents and subagents alike, each
        with messages) and one report per path found, sorted by path.
    """
    from snapshot.progress import progress
    from snapshot.report.summaries import real_summary_lengths

    refs: list[SourceRef] = []
    reports: list[UnitReport] = []
    units = [f for f in found if f.importable]
    for f in found:
        if not f.importable:
            reports.append(UnitReport(f.path, None, f.session, reason=f.reason))
    for unit in progress(units, desc="import", unit="file"):
        try:
            convs = import_path(unit.path)  # detected again: the same scores, not a forced format
        except SnapshotError as exc:
            reports.append(UnitReport(unit.path, unit.format, unit.session, reason=str(exc)))
            continue
        except Exception as exc:  # one file never aborts a run over thousands
            why = (
                f"the {unit.format} importer failed ({type(exc).__name__}: {exc}); a bug to report"
            )
            reports.append(UnitReport(unit.path, unit.format, unit.session, reason=why))
            continue
        rows = tuple(_conversation_row(c) for c in convs)
        reports.append(UnitReport(unit.path, unit.format, unit.session, rows))
        for i, conv in enumerate(convs):
            if conv.tip is None or (limit is not None and len(refs) >= limit):
                continue
            agent = "" if conv.agent == "main" else f" [{conv.agent}]"
            name = f"{unit.path}{agent}" if len(convs) == 1 else f"{unit.path}#{conv.id}{agent}"
            chars = rows[i]["chars"]
            # Read now, while the file is imported: the run needs them before it starts.
            summaries = tuple(real_summary_lengths([benchmark_view(conv)]))
            category = conv.format or unit.format or ""
            refs.append(SourceRef(str(unit.path), i, name, category, chars, summaries))
    reports.sort(key=lambda r: str(r.path))
    return refs, reports


def _kept(value: Any) -> str:
    return "" if value is None else f"{value:.0%}"


def inventory_markdown(reports: Sequence[UnitReport]) -> str:
    """The sources section: every path found, its format and conversations, or why it was skipped.

    Subagent files are listed under their session.
    """
    by_session: dict[Path, list[UnitReport]] = {}
    top: list[UnitReport] = []
    paths = {r.path for r in reports}
    for r in reports:
        if r.session is not None and r.session in paths:
            by_session.setdefault(r.session, []).append(r)
        else:
            top.append(r)
    read = sum(1 for r in reports if r.conversations)
    lines = [
        f"{len(reports)} paths found: {read} imported, {len(reports) - read} skipped "
        "(each with its reason). *text kept* is the share of the file's model-visible text the import kept (UI-only text is counted apart).",
        "",
        "| path | format | conversations | messages | tool calls | text kept | note |",
        "|---|---|---|---|---|---|---|",
    ]

    def row(r: UnitReport, indent: str) -> None:
        name = f"{indent}`{r.path}`"
        if r.reason is not None or not r.conversations:
            lines.append(
                f"| {name} | {r.format or '—'} | 0 | | | | skipped: {r.reason or 'no conversations'} |"
            )
            return
        msgs = sum(c["messages"] for c in r.conversations)
        calls = sum(c["tool_calls"] for c in r.conversations)
        kept = _kept(r.conversations[0]["text_kept"])
        agents = [c["agent"] for c in r.conversations if c["agent"] != "main"]
        note = f"subagents: {', '.join(agents[:5])}" if agents else ""
        lines.append(
            f"| {name} | {r.format} | {len(r.conversations)} | {msgs} | {calls} | {kept} | {note} |"
        )

    for r in top:
        row(r, "")
        for sub in by_session.get(r.path, ()):
            row(sub, "↳ ")
    return "\n".join(lines)


def write_inventory(reports: Sequence[UnitReport], path: Path) -> None:
    """Every path found, as JSON: format, session, conversations (counts, text kept) or reason."""
    rows = [
        {
            "path": str(r.path),
            "format": r.format,
            "session": None if r.session is None else str(r.session),
            "conversations": list(r.conversations),
            "skipped": r.reason,
        }
        for r in reports
    ]
    path.write_text(
        json.dumps({"paths": rows}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
