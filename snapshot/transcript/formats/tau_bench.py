"""tau-bench historical trajectories: a JSON list of runs, each ``traj`` of OpenAI chat messages.

One file holds many runs; ``--select task_id=3 --select trial=0`` picks one
(any scalar key of a run can be used). The conversations are OpenAI chat
(``format = "openai-chat"``); the run's ``reward`` and ``info`` go into
``Conversation.meta``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import head_text, starts_like_tau_runs
from snapshot.transcript.formats._json_stream import JSONDocument
from snapshot.transcript.formats._openai_messages import OPENAI_CHAT, conversation_from_openai
from snapshot.transcript.model import Conversation

NAME = "tau-bench"


def _matches(run: Mapping[str, Any], select: Mapping[str, str]) -> bool:
    for key, want in select.items():
        if key not in run:
            return False
        value = run[key]
        if isinstance(value, dict | list) or str(value) != want:
            return False
    return True


def conversations_from_runs(
    runs: Iterable[Any], path: Path, options: ImportOptions
) -> list[Conversation]:
    """The runs' conversations, converted as ``runs`` gives them (each kept on disk,
    in one file, when the file is at least ``SPILL_BYTES``)."""
    file = spill.SpillFile() if path.stat().st_size >= spill.SPILL_BYTES else None
    known: set[str] = set()
    out: list[Conversation] = []
    for index, run in enumerate(runs):
        if isinstance(run, Mapping):
            known.update(k for k in run if k != "traj")
        where = f"{path}: run {index}"
        if not isinstance(run, Mapping) or not isinstance(run.get("traj"), list):
            if not options.select:
                raise TranscriptError(f"{where}: not a tau-bench run (no 'traj' list)")
            continue
        if options.select and not _matches(run, options.select):
            continue
        task, trial = run.get("task_id"), run.get("trial")
        conv_id = (
            f"{path.stem}/task{task}-trial{trial}" if task is not None else f"{path.stem}/{index}"
        )
        meta = {
            "container": NAME,
            "run_index": index,
            **{k: v for k, v in run.items() if k != "traj"},
        }
        out.append(
            conversation_from_openai(
                run["traj"],
                conv_id=conv_id,
                source=str(path),
                where=f"{where} (task_id={task}, trial={trial})",
                format_name=OPENAI_CHAT,
                meta=meta,
                spill_file=file,
            )
        )
    # Checked once every run is read; a run that does not match is skipped until then.
    unknown = [k for k in options.select if k not in known]
    if unknown:
        raise TranscriptError(
            f"{path}: cannot select by {', '.join(unknown)}; runs have {', '.join(sorted(known))}"
        )
    return out


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    if path.is_dir():
        raise TranscriptError(f"{path}: a folder; tau-bench imports a trajectories JSON file")
    # A list of runs: read one run at a time.
    doc = JSONDocument(path, None)
    if doc.shape != "array":
        raise TranscriptError(f"{path}: a tau-bench file is a JSON list of runs")
    return conversations_from_runs(doc.items(), path, options)


def score(path: Path, head: bytes) -> float:
    """0.8 for a list of runs keyed like tau-bench's, with a ``task_id``; else 0.

    >>> score(Path("runs.json"), b'[{"task_id": 3, "reward": 1.0, "traj": []}]')
    0.8
    """
    if path.is_dir():
        return 0.0
    text = head_text(head)
    return 0.8 if starts_like_tau_runs(text) and '"task_id"' in text else 0.0


FORMAT = Format(
    name=NAME,
    description="tau-bench trajectories: a list of runs of OpenAI chat messages (select task_id, trial)",
    score=score,
    load=load,
)
