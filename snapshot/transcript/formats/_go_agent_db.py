"""The SQLite store of opencode (Go) and of Crush, its successor → the neutral model.

opencode (``github.com/opencode-ai/opencode``, archived) keeps a project's
sessions in ``.opencode/opencode.db``; Crush (``github.com/charmbracelet/crush``)
forked it and keeps the same tables in ``.crush/crush.db``:

- ``sessions(id, parent_session_id, title, message_count, prompt_tokens,
  completion_tokens, cost, summary?, created_at, ...)``: one per conversation;
  a session started by the agent tool has a ``parent_session_id``;
- ``messages(id, session_id, role, parts, model, provider?, created_at,
  finished_at, is_summary_message?, ...)``: ``role`` is ``user``,
  ``assistant``, ``tool`` or ``system``; ``parts`` is a JSON list of
  ``{"type": T, "data": {...}}`` (``internal/message`` of either project):
  ``text`` {text}, ``reasoning`` {thinking, signature}, ``image_url`` {url},
  ``binary`` {Path, MIMEType, Data (base64)}, ``tool_call`` {id, name, input
  (a JSON string)}, ``tool_result`` {tool_call_id, name, content, data?,
  mime_type?, is_error}, ``finish`` {reason, time}; Crush also writes
  ``shell_command`` {command, output, exit_code} and, from 2026, stores
  ``parts`` zstd-compressed (a row starting with the zstd magic).

Each session is one conversation, its messages in ``created_at`` order (row
order breaks ties), each continuing from the one before; a session with a
``parent_session_id`` (the agent tool's, whose id is the call's) takes its
parent's id and its own id as ``agent``. A ``tool_call`` on
an assistant message is answered by the ``tool_result`` with its id in the
``tool`` message after it. ``finish`` parts become ``meta["finish_reason"]``.

The database is opened read-only through a ``file:`` URI: with
``immutable=1`` when no write-ahead log lies beside it (nothing is locked or
written, so a read-only folder works too); when a ``-wal`` file is there its
newest pages matter, so the database and its log are copied to a temporary
folder and opened there (``mode=ro``), never touching the user's files.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import importlib
import json
import shutil
import sqlite3
import tempfile
import urllib.parse
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript.files import check_inside
from snapshot.transcript.formats import ImportOptions
from snapshot.transcript.formats._common import (
    Warnings,
    add_pairing_warnings,
    image_from_bytes,
    image_from_data_url,
    matches_select,
)
from snapshot.transcript.model import (
    Block,
    Conversation,
    ImageBlock,
    Message,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
)

SQLITE_MAGIC = b"SQLite format 3\x00"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_ROLES: dict[str, Role] = {
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
    "system": "system",
}

# The family's own tables and the columns the importer reads.
_SESSION_COLUMNS = {"id", "title"}
_MESSAGE_COLUMNS = {"id", "session_id", "role", "parts"}
# Columns only Crush added to messages (opencode (Go) never had them).
CRUSH_ONLY_COLUMNS = frozenset({"provider", "is_summary_message"})


def guarded(path: Path) -> Path:
    """``path`` once the one guarded reader passes it (a regular file inside its folder)."""
    return check_inside(path, path.parent, limit=None)


def _uri(path: Path, params: str) -> str:
    return f"file:{urllib.parse.quote(str(path.resolve()))}?{params}"


@contextlib.contextmanager
def connect(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection to the database at ``path`` (see the module docstring).

    Raises
    ------
    TranscriptError
        Not a readable SQLite database.
    """
    real = guarded(path)
    wal = real.with_name(real.name + "-wal")
    with contextlib.ExitStack() as stack:
        try:
            if wal.is_file() and wal.stat().st_size > 0:
                folder = Path(
                    stack.enter_context(tempfile.TemporaryDirectory(prefix="snapshot-db-"))
                )
                copy = folder / real.name
                shutil.copyfile(real, copy)
                shutil.copyfile(check_inside(wal, real.parent, limit=None), folder / wal.name)
                con = sqlite3.connect(_uri(copy, "mode=ro"), uri=True)
            else:
                con = sqlite3.connect(_uri(real, "mode=ro&immutable=1"), uri=True)
        except (sqlite3.Error, OSError) as exc:
            raise TranscriptError(f"{path}: cannot be opened as an SQLite database: {exc}") from exc
        stack.callback(con.close)
        yield con


def columns(con: sqlite3.Connection) -> dict[str, set[str]]:
    """Table name → its column names."""
    out: dict[str, set[str]] = {}
    for (table,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        out[table] = {row[1] for row in con.execute(f'PRAGMA table_info("{table}")')}
    return out


def family_columns(path: Path, head: bytes) -> set[str] | None:
    """The ``messages`` columns when ``path`` is a database of this family, else None.

    Cheap enough for detection (the schema only); never raises.
    """
    if not head.startswith(SQLITE_MAGIC) or path.is_dir():
        return None
    try:
        with connect(path) as con:
            tables = columns(con)
    except (TranscriptError, sqlite3.Error, OSError):
        return None
    return tables["messages"] if _is_family(tables) else None


def _is_family(tables: Mapping[str, set[str]]) -> bool:
    """Has the sessions and messages tables with the columns the importer reads."""
    return tables.get("sessions", set()).issuperset(_SESSION_COLUMNS) and tables.get(
        "messages", set()
    ).issuperset(_MESSAGE_COLUMNS)


def _decompress(raw: bytes) -> bytes | None:
    """A zstd-compressed ``parts`` row as JSON, or None without a zstd decoder (Python < 3.14)."""
    try:
        zstd = importlib.import_module("compression.zstd")  # Python 3.14+
    except ImportError:
        return None
    data: bytes = zstd.decompress(raw)
    return data


class _Reader:
    """One session's rows → messages, counting what is not read."""

    def __init__(self, path: Path, warnings: Warnings) -> None:
        self.path = path
        self.warnings = warnings
        self.unknown: Counter[str] = Counter()

    def parts(self, raw: Any, where: str) -> list[Mapping[str, Any]]:
        data = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw or b"[]")
        if data.startswith(_ZSTD_MAGIC):
            plain = _decompress(data)
            if plain is None:
                self.unknown["zstd-compressed parts (need Python 3.14's compression.zstd)"] += 1
                return []
            data = plain
        try:
            parts = json.loads(data.decode("utf-8", errors="replace"))
        except (ValueError, RecursionError):
            self.warnings.add(f"{where}: parts are not JSON; message skipped", "parts")
            return []
        if not isinstance(parts, list):
            self.warnings.add(f"{where}: parts are not a list; message skipped", "parts")
            return []
        return [p for p in parts if isinstance(p, Mapping)]

    def blocks(
        self, parts: list[Mapping[str, Any]], where: str, meta: dict[str, Any]
    ) -> list[Block]:
        out: list[Block] = []
        for part in parts:
            kind, data = part.get("type"), part.get("data")
            if not isinstance(data, Mapping):
                self.unknown[f"{kind} without data"] += 1
                continue
            if kind == "text":
                if str(data.get("text") or "").strip():
                    out.append(TextBlock(str(data["text"])))
            elif kind == "reasoning":
                if str(data.get("thinking") or "").strip():
                    out.append(ThinkingBlock(str(data["thinking"]), data.get("signature") or None))
            elif kind == "tool_call":
                out.append(self.call(data))
            elif kind == "tool_result":
                out.append(self.result(data, where))
            elif kind == "image_url":
                out.append(self.image_url(str(data.get("url") or ""), where))
            elif kind == "binary":
                out.append(self.binary(data, where))
            elif kind == "shell_command":
                out.append(
                    TextBlock(
                        f"$ {data.get('command', '')}\n{data.get('output', '')}\n"
                        f"(exit code {data.get('exit_code', '')})"
                    )
                )
            elif kind == "finish":
                meta["finish_reason"] = data.get("reason")
            else:
                self.unknown[str(kind)] += 1
        return out

    @staticmethod
    def call(data: Mapping[str, Any]) -> ToolCall:
        raw = data.get("input")
        try:
            parsed = json.loads(raw) if isinstance(raw, str) and raw.strip() else {}
        except (ValueError, RecursionError):
            parsed = None
        args = parsed if isinstance(parsed, dict) else {"input": raw}
        return ToolCall(str(data.get("id") or ""), str(data.get("name") or ""), args)

    def result(self, data: Mapping[str, Any], where: str) -> ToolResult:
        content: list[TextBlock | ImageBlock] = [TextBlock(str(data.get("content") or ""))]
        if data.get("data") and str(data.get("mime_type") or "").startswith("image/"):
            try:
                content.append(
                    image_from_bytes(base64.b64decode(str(data["data"])), f"{where} tool image")
                )
            except (binascii.Error, ValueError):
                self.unknown["tool image that is not base64"] += 1
        return ToolResult(
            str(data.get("tool_call_id") or ""), tuple(content), bool(data.get("is_error"))
        )

    def image_url(self, url: str, where: str) -> Block:
        if url.startswith("data:"):
            try:
                return image_from_data_url(url, f"{where} image")
            except TranscriptError:
                self.unknown["image data URL that does not decode"] += 1
        return TextBlock(f"[image: {url[:200]}]")

    def binary(self, data: Mapping[str, Any], where: str) -> Block:
        mime, name = str(data.get("MIMEType") or ""), str(data.get("Path") or "")
        try:
            raw = base64.b64decode(str(data.get("Data") or ""))
        except (binascii.Error, ValueError):
            self.unknown["attachment that is not base64"] += 1
            return TextBlock(f"[attachment {name}: not decodable]")
        if mime.startswith("image/"):
            return image_from_bytes(raw, f"{where} {name or 'attachment'}")
        if mime.startswith("text/"):
            # As the tool sends a text attachment to the model: inside a file tag.
            return TextBlock(
                f"<file path='{name}'>\n{raw.decode('utf-8', errors='replace')}\n</file>"
            )
        self.unknown[f"{mime or 'binary'} attachment"] += 1
        return TextBlock(f"[attachment {name} ({mime}, {len(raw):,} bytes) not imported]")


def _session_rows(con: sqlite3.Connection, tables: Mapping[str, set[str]]) -> list[dict[str, Any]]:
    wanted = [
        c
        for c in ("id", "parent_session_id", "title", "summary", "created_at", "cost")
        if c in tables["sessions"]
    ]
    order = "created_at, rowid" if "created_at" in tables["sessions"] else "rowid"
    rows = con.execute(f"SELECT {', '.join(wanted)} FROM sessions ORDER BY {order}").fetchall()
    return [dict(zip(wanted, row, strict=True)) for row in rows]


def load_sessions(path: Path, options: ImportOptions, name: str, tool: str) -> list[Conversation]:
    """Every session of the database at ``path`` as one conversation (format ``name``).

    Raises
    ------
    TranscriptError
        Not a database of this family, or one that cannot be read.
    """
    if path.is_dir():
        raise TranscriptError(f"{path}: is a folder; give the {tool} database file")
    with connect(path) as con:
        try:
            tables = columns(con)
            if not _is_family(tables):
                raise TranscriptError(
                    f"{path}: not a {tool} database (no sessions and messages tables)"
                )
            return _conversations(con, tables, path, options, name)
        except sqlite3.Error as exc:
            raise TranscriptError(f"{path}: cannot be read as the {tool} database: {exc}") from exc


def _conversations(
    con: sqlite3.Connection,
    tables: Mapping[str, set[str]],
    path: Path,
    options: ImportOptions,
    name: str,
) -> list[Conversation]:
    extra = [
        c
        for c in ("model", "provider", "created_at", "is_summary_message")
        if c in tables["messages"]
    ]
    order = "created_at, rowid" if "created_at" in tables["messages"] else "rowid"
    query = (
        f"SELECT id, role, parts{''.join(', ' + c for c in extra)} FROM messages "
        f"WHERE session_id = ? ORDER BY {order}"
    )
    out: list[Conversation] = []
    for session in _session_rows(con, tables):
        sid = str(session["id"])
        # A session the agent tool started (its id is the tool call's) belongs to its
        # parent: the parent's id, the child's own agent name, as sub-agents are everywhere.
        parent_sid = session.get("parent_session_id")
        conv_id, agent = (str(parent_sid), sid) if parent_sid else (sid, "main")
        select = {
            "id": conv_id,
            "session_id": sid,
            "agent": agent,
            "title": str(session.get("title") or ""),
        }
        if not matches_select(select, options.select):
            continue
        warnings = Warnings()
        reader = _Reader(path, warnings)
        messages: list[Message] = []
        roles: Counter[str] = Counter()
        for row in con.execute(query, (sid,)):
            mid, role, raw = str(row[0]), str(row[1]), row[2]
            where = f"{path} (message {mid})"
            if role not in _ROLES:
                reader.unknown[f"role {role!r}"] += 1
                continue
            facts = dict(zip(extra, row[3:], strict=True))
            meta: dict[str, Any] = {k: v for k, v in facts.items() if v not in (None, "", 0)}
            if meta.pop("is_summary_message", None):
                meta["summary_message"] = True
            blocks = reader.blocks(reader.parts(raw, where), where, meta)
            if not blocks:
                roles["empty"] += 1
                continue
            roles[role] += 1
            parent = messages[-1].id if messages else None
            messages.append(Message(mid, parent, _ROLES[role], tuple(blocks), meta))
        warnings.extend_counts("skipped parts", reader.unknown)
        if roles["empty"]:
            warnings.add(
                f"{path} (session {sid}): {roles['empty']} message(s) with no content skipped"
            )
        add_pairing_warnings(f"{path} (session {sid})", messages, warnings)
        conv_meta = {
            k: session[k]
            for k in ("title", "parent_session_id", "summary", "created_at", "cost")
            if session.get(k) not in (None, "")
        }
        out.append(
            Conversation(
                id=conv_id,
                messages=tuple(messages),
                tip=messages[-1].id if messages else None,
                agent=agent,
                format=name,
                source=str(path),
                meta=conv_meta,
                warnings=warnings.tuple(),
            )
        )
    if not out and not options.select:
        raise TranscriptError(f"{path}: the database holds no sessions")
    return out
