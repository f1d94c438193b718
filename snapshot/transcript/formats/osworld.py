"""OSWorld-style computer-use runs: ``traj.jsonl`` plus one PNG per action.

A run folder holds ``traj.jsonl`` (one line per executed action:
``step_num``, ``action_idx``, the model's raw ``prediction``, the executed
``action`` (pyautogui code), ``reward``, ``done``, ``screenshot_file``),
``initial_obs.png`` (the screen before the first step) and, in SCUBA's
layout, a ``runtime.log`` whose ``Instruction:`` line is the task. PATH may be
``traj.jsonl``, its run folder, or a task folder holding run folders (one
conversation per run; ``--select run=ID`` picks one).

Rebuilt conversation: the user gives the instruction and the initial
screenshot; for each step the assistant's prediction is its text and each
executed action a tool call (``pyautogui``, input ``{"code": ...}``); the
screenshot taken after the action is that call's result, an image referenced
by path with its size read from the PNG header. The agent may have kept fewer
screenshots in its prompt (UI-TARS's ``history_n``); this rebuild keeps all.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript.files import RefusedFileError, check_inside, open_inside
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    image_from_file,
    iter_jsonl,
    pairing_warnings,
)
from snapshot.transcript.model import (
    Block,
    Conversation,
    ImageBlock,
    Message,
    TextBlock,
    ToolCall,
    ToolResult,
)

NAME = "osworld-traj"
TRAJ = "traj.jsonl"
INITIAL = "initial_obs.png"
_INSTRUCTION = re.compile(r"^Instruction:\s?(.*)$")


def _runs(path: Path) -> list[Path]:
    """Run folders (each holding traj.jsonl) that PATH names."""
    if path.is_file():
        if path.name != TRAJ:
            raise TranscriptError(f"{path}: OSWorld-style runs are logged in {TRAJ}")
        return [path.parent]
    if (path / TRAJ).is_file():
        return [path]
    runs = sorted(p for p in path.iterdir() if p.is_dir() and (p / TRAJ).is_file())
    if not runs:
        raise TranscriptError(f"{path}: no {TRAJ} here or in its subfolders")
    return runs


def _image(path: Path, origin: str, warns: list[str], run: Path) -> Block:
    if not path.is_file():
        warns.append(f"{path}: screenshot missing")
        return TextBlock(f"[screenshot {origin} missing]")
    try:
        return image_from_file(path, origin, roots=[run])  # a record may say ../../secret
    except TranscriptError as exc:
        warns.append(str(exc))
        return TextBlock(f"[screenshot {origin} could not be read]")


def _instruction(run: Path) -> str | None:
    log = run / "runtime.log"
    if not log.is_file():
        return None
    try:
        with io.TextIOWrapper(open_inside(log, run), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                m = _INSTRUCTION.match(line.rstrip("\n"))
                if m:
                    return m.group(1)
    except (OSError, TranscriptError):
        return None
    return None


def conversation_from_run(run: Path) -> Conversation:
    traj = run / TRAJ
    warns: list[str] = []
    messages: list[Message] = []

    def add(mid: str, role: Any, blocks: list[Block], meta: dict[str, Any]) -> None:
        parent = messages[-1].id if messages else None
        messages.append(Message(mid, parent, role, tuple(blocks), meta))

    first: list[Block] = []
    instruction = _instruction(run)
    if instruction:
        first.append(TextBlock(instruction))
    else:
        warns.append(f"{run}: no runtime.log Instruction line; the task text is unknown")
    if (run / INITIAL).is_file():
        first.append(_image(run / INITIAL, INITIAL, warns, run))
    if first:
        add("task", "user", first, {"kind": "task"})

    steps: dict[int, list[tuple[int, Mapping[str, Any]]]] = {}
    for lineno, rec in iter_jsonl(traj, warns):
        if not isinstance(rec, Mapping) or "step_num" not in rec:
            warns.append(f"{traj}:{lineno}: not a step record; skipped")
            continue
        try:
            step = int(rec["step_num"])
        except (TypeError, ValueError):
            warns.append(f"{traj}:{lineno}: step_num {rec['step_num']!r} is not a number; skipped")
            continue
        steps.setdefault(step, []).append((lineno, rec))
    for step in sorted(steps):
        records = steps[step]
        prediction = str(records[0][1].get("prediction") or "")
        blocks: list[Block] = [TextBlock(prediction)] if prediction else []
        results: list[tuple[str, Mapping[str, Any]]] = []
        for lineno, rec in records:
            call_id = f"step{step}-{rec.get('action_idx', lineno)}"
            blocks.append(ToolCall(call_id, "pyautogui", {"code": str(rec.get("action") or "")}))
            results.append((call_id, rec))
        add(f"step{step}", "assistant", blocks, {"step": step})
        for call_id, rec in results:
            shot = rec.get("screenshot_file")
            content: tuple[TextBlock | ImageBlock, ...] = ()
            if isinstance(shot, str) and shot:
                img = _image(run / shot, shot, warns, run)
                assert isinstance(img, TextBlock | ImageBlock)
                content = (img,)
            meta = {k: rec[k] for k in ("reward", "done", "info") if k in rec}
            add(f"{call_id}-obs", "tool", [ToolResult(call_id, content)], meta)
    if not messages:
        raise TranscriptError(f"{traj}: no steps")
    warns.extend(pairing_warnings(messages, str(traj)))
    return Conversation(
        id=f"{run.parent.name}/{run.name}",
        messages=tuple(messages),
        tip=messages[-1].id,
        format=NAME,
        source=str(run),
        meta={"run": run.name, "task": run.parent.name, "steps": len(steps)},
        warnings=tuple(warns),
    )


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    runs, refused = [], []
    for run in _runs(path):
        try:  # a run folder listed in the folder given must not lead out of it
            if path.is_dir():
                check_inside(run / TRAJ, path, None)
            runs.append(run)
        except RefusedFileError as exc:
            refused.append(f"{exc}; run skipped")
        except FileNotFoundError:
            refused.append(f"{run / TRAJ}: no such file; run skipped")
    if not runs:
        raise TranscriptError(refused[0])
    unknown = set(options.select) - {"run"}
    if unknown:
        raise TranscriptError(f"{path}: runs can only be selected by run=ID")
    wanted = options.select.get("run")
    convs = [conversation_from_run(r) for r in runs if wanted is None or r.name == wanted]
    if convs and refused:
        convs[0] = replace(convs[0], warnings=convs[0].warnings + tuple(refused))
    return convs


def score(path: Path, head: bytes) -> float:
    """0.85 for a run folder holding ``traj.jsonl`` (or a task folder of runs), or that file
    with its ``step_num`` records; else 0.

    >>> score(Path("traj.jsonl"), b'{"step_num": 1, "action": "click"}')
    0.85
    """
    if path.is_dir():
        if (path / TRAJ).is_file():
            return 0.85
        try:
            return 0.85 if any((p / TRAJ).is_file() for p in path.iterdir() if p.is_dir()) else 0.0
        except OSError:
            return 0.0
    return 0.85 if path.name == TRAJ and b'"step_num"' in head else 0.0


FORMAT = Format(
    name=NAME,
    description="OSWorld-style run: traj.jsonl + screenshot PNGs (a run or task folder)",
    score=score,
    load=load,
)
