"""WebVoyager task folders: ``interact_messages.json`` plus ``screenshotN.png``.

WebVoyager keeps only the last three screenshots in its saved context: older
observations are replaced by "(Omitted in context.)" text and the kept ones by
the placeholder URL ``data:image/png;base64,{b64_img}``. Every screenshot is
still on disk, and the k-th user message is the observation of
``screenshot{k}.png`` (the first user message, the task, carries the first
screenshot). The importer rebuilds that full history: each user message gets
its screenshot as an :class:`ImageBlock` referencing the file, with width and
height read from the PNG header (pixels are not decoded).

``screenshotN_no_box.png`` files (the page without the element labels the
model was shown) are not part of the conversation; they are counted in meta.
There are no tool calls: the model answers in text ("Action: Click [5]").
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    image_from_file,
    image_url_of,
    load_json,
    pairing_warnings,
)
from snapshot.transcript.formats._openai_messages import messages_from_openai
from snapshot.transcript.model import Block, Conversation, Message, TextBlock

NAME = "webvoyager"
MESSAGES_FILE = "interact_messages.json"
_PLACEHOLDER = "{b64_img}"
_SHOT = re.compile(r"^screenshot(\d+)\.png$")
_SHOT_NO_BOX = re.compile(r"^screenshot(\d+)_no_box\.png$")


def _folder(path: Path) -> Path:
    if path.is_dir():
        if not (path / MESSAGES_FILE).is_file():
            raise TranscriptError(f"{path}: no {MESSAGES_FILE} in this folder")
        return path
    if path.name != MESSAGES_FILE:
        raise TranscriptError(f"{path}: WebVoyager logs are named {MESSAGES_FILE}")
    return path.parent


def _strip_placeholders(records: list[Any]) -> tuple[list[Any], set[int]]:
    """Records without the placeholder image parts, and the indexes that had one."""
    out: list[Any] = []
    had: set[int] = set()
    for i, rec in enumerate(records):
        content = rec.get("content") if isinstance(rec, Mapping) else None
        if isinstance(content, list):
            kept = []
            for part in content:
                url = image_url_of(part) if isinstance(part, Mapping) else None
                if isinstance(url, str) and _PLACEHOLDER in url:
                    had.add(i)
                    continue
                kept.append(part)
            rec = copy.copy(dict(rec))
            rec["content"] = kept
        out.append(rec)
    return out, had


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    folder = _folder(path)
    log = folder / MESSAGES_FILE
    if options.select:
        raise TranscriptError(
            f"{folder}: a WebVoyager folder holds one conversation; drop --select"
        )
    data = load_json(log, inside=folder if path.is_dir() else None)
    if not isinstance(data, list):
        raise TranscriptError(f"{log}: expected a JSON list of chat messages")
    records, placeholder_at = _strip_placeholders(data)
    messages, warns, skipped = messages_from_openai(records, where=str(log))

    shots: dict[int, Path] = {}
    no_box = 0
    for entry in folder.iterdir():
        m = _SHOT.match(entry.name)
        if m:
            shots[int(m.group(1))] = entry
        elif _SHOT_NO_BOX.match(entry.name):
            no_box += 1

    rebuilt: list[Message] = []
    k = 0
    used: set[int] = set()
    for index, msg in zip(_record_indexes(records), messages, strict=True):
        if msg.role != "user":
            rebuilt.append(msg)
            continue
        k += 1
        shot = shots.get(k)
        meta = dict(msg.meta)
        meta["screenshot"] = k
        meta["image_in_saved_context"] = index in placeholder_at
        blocks: list[Block] = list(msg.blocks)
        if shot is None:
            warns.append(f"{log}: message {index}: screenshot{k}.png is missing; no image")
        else:
            used.add(k)
            try:
                blocks.append(image_from_file(shot, shot.name, roots=[folder]))
            except TranscriptError as exc:
                warns.append(f"{shot}: not kept: {exc}")
                blocks.append(TextBlock(f"[screenshot{k}.png could not be read]"))
        rebuilt.append(Message(msg.id, msg.parent, msg.role, tuple(blocks), meta))
    extra = sorted(set(shots) - used)
    if extra:
        names = ", ".join(f"screenshot{n}.png" for n in extra)
        warns.append(f"{folder}: screenshots with no user message: {names}")
    warns.extend(pairing_warnings(rebuilt, str(log)))
    conv_meta: dict[str, Any] = {
        "screenshots": len(shots),
        "screenshots_no_box": no_box,
        "images_in_saved_context": len(placeholder_at),
    }
    if skipped:
        conv_meta["skipped"] = skipped
    return [
        Conversation(
            id=folder.name,
            messages=tuple(rebuilt),
            tip=rebuilt[-1].id if rebuilt else None,
            format=NAME,
            source=str(folder),
            meta=conv_meta,
            warnings=tuple(warns),
        )
    ]


def _record_indexes(records: list[Any]) -> list[int]:
    """Index in the file of each message ``messages_from_openai`` kept."""
    roles = ("system", "developer", "user", "assistant", "tool", "function")
    return [i for i, r in enumerate(records) if isinstance(r, Mapping) and r.get("role") in roles]


def score(path: Path, head: bytes) -> float:
    """0.85 for a task folder holding ``interact_messages.json``, or that file; else 0.

    >>> score(Path("interact_messages.json"), b"[]")
    0.85
    """
    if path.is_dir():
        return 0.85 if (path / MESSAGES_FILE).is_file() else 0.0
    return 0.85 if path.name == MESSAGES_FILE else 0.0


FORMAT = Format(
    name=NAME,
    description="WebVoyager task folder: interact_messages.json + screenshotN.png (full image history)",
    score=score,
    load=load,
)
