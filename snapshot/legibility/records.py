"""Dated JSON records of live probes, written with every API key redacted.

A record is what one probe run leaves behind: which model read which page (by
its sha256), the questions, the answers and their scores. Records are
committed to ``reports/`` and shared, so every string that came back from a
provider (an answer, an error message) goes through :func:`snapshot.providers.keys.redact`
first: a key that leaks into a record leaks into git history.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from snapshot.errors import InputError
from snapshot.providers.keys import MIN_SECRET_CHARS, redact_value

SCHEMA = "snapshot.probe/1"

Score = Literal["exact", "abstained", "wrong"]
SCORES: tuple[Score, ...] = ("exact", "abstained", "wrong")


@dataclass(frozen=True)
class QuestionResult:
    """One question of a battery, what the model answered, and the verdict."""

    qid: int
    kind: str
    question: str
    expected: str
    answer: str | None
    score: Score
    # Edit distance between the value read and the expected value: a wrong
    # answer at distance 1-2 is a glyph substitution, a large one a confabulation.
    distance: int | None = None


@dataclass(frozen=True)
class ProbeRecord:
    """Everything needed to audit and compare one live probe."""

    model: str
    provider: str
    api: str
    profile: str | None
    font: str
    page_sha256: str
    page_size: tuple[int, int]
    seed: int
    battery: str
    image_options: dict[str, str]
    questions: tuple[QuestionResult, ...]
    reply: str
    timestamp: str
    duration_s: float
    usage: dict[str, int]
    snapshot_version: str
    # The profile family (snapshot.profiles) the page was drawn for.
    family: str | None = None
    schema: str = SCHEMA

    def counts(self) -> dict[str, int]:
        """How many questions got each score."""
        out: dict[str, int] = dict.fromkeys(SCORES, 0)
        for q in self.questions:
            out[q.score] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["page_size"] = list(self.page_size)
        data["counts"] = self.counts()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ProbeRecord:
        if data.get("schema") != SCHEMA:
            raise InputError(
                f"not a probe record (schema {data.get('schema')!r}, expected {SCHEMA!r})"
            )
        fields = {f.name for f in dataclasses.fields(cls)}
        kw = {k: v for k, v in data.items() if k in fields}
        kw["page_size"] = tuple(kw["page_size"])
        kw["questions"] = tuple(QuestionResult(**q) for q in kw["questions"])
        return cls(**kw)

    def to_json(self, secrets: Iterable[str] = ()) -> str:
        """The record as JSON, redacted (see :func:`snapshot.providers.keys.redact`)."""
        return json.dumps(redact_value(self.to_dict(), secrets), indent=2, ensure_ascii=False)


def record_name(record: ProbeRecord) -> str:
    """``YYYY-MM-DD-<model>-<pagehash8>``: sortable by date, one page per name."""
    day = record.timestamp[:10]
    model = re.sub(r"[^A-Za-z0-9.\-]+", "_", record.model).strip("_") or "model"
    return f"{day}-{model}-{record.page_sha256[:8]}"


def save(record: ProbeRecord, out_dir: str | os.PathLike[str], secrets: Iterable[str] = ()) -> Path:
    """Write ``record`` to ``out_dir`` as a new dated JSON file and return its path.

    An earlier record of the same model, page and day is kept: the new file
    gets a ``-2``, ``-3`` ... suffix, because repeated runs are the data.
    The write is atomic, so a crash never leaves half a record.
    """
    secrets = tuple(secrets)
    text = record.to_json(secrets) + "\n"
    # Belt and braces: redaction above must have removed every secret.
    if any(s and len(s) >= MIN_SECRET_CHARS and s in text for s in secrets):
        raise AssertionError("a secret survived redaction; refusing to write the record")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    base = record_name(record)
    fd, tmp = tempfile.mkstemp(prefix=".probe-", suffix=".json", dir=out)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        n = 1
        while True:
            path = out / (f"{base}.json" if n == 1 else f"{base}-{n}.json")
            try:
                # link + unlink rather than rename: rename would silently
                # replace a record written in the meantime.
                os.link(tmp, path)
                break
            except FileExistsError:
                n += 1
        return path
    finally:
        os.unlink(tmp)


@dataclass(frozen=True)
class SavedRecord:
    """A probe record, the file it was saved to, and its redacted JSON document.

    ``document`` is what ``snapshot probe --json`` prints: the record as
    written (every key in the environment redacted) plus ``record_path``.

    Examples
    --------
    >>> saved = SavedRecord(record=None, path=Path("r.json"), document={"record_path": "r.json"})
    >>> saved.document["record_path"] == str(saved.path)
    True
    """

    record: Any
    path: Path
    document: dict[str, Any]


def saved_record(record: Any, path: Path, secrets: Iterable[str]) -> SavedRecord:
    """Bundle a saved ``record`` (anything with ``to_json(secrets)``) with its document.

    The document is ``record.to_json(secrets)`` parsed, plus ``record_path``.

    Examples
    --------
    >>> class R:
    ...     def to_json(self, secrets):
    ...         return '{"reply": "%s"}' % ("[REDACTED]" if "s3cret-key" in secrets else "s3cret-key")
    >>> saved_record(R(), Path("out/r.json"), ["s3cret-key"]).document
    {'reply': '[REDACTED]', 'record_path': 'out/r.json'}
    """
    data = json.loads(record.to_json(tuple(secrets)))
    data["record_path"] = str(path)
    return SavedRecord(record=record, path=path, document=data)


def load(path: str | os.PathLike[str]) -> ProbeRecord:
    """Read a record written by :func:`save`."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read probe record {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise InputError(f"{path} is not a probe record (not a JSON object)")
    return ProbeRecord.from_dict(data)
