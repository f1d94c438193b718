"""A large Claude Code session built from a real one, for the import memory benchmark.

``build(path, megabytes)`` writes a session JSONL of about that size by
repeating the records of a real Claude Code session of the shared corpus
(``corpus/claude_code_spotter/fa812bfe-….jsonl``, 3.4 MB, Claude Code 2.1: a
quarter of its bytes are ``message``, a third ``toolUseResult``, a third
``progress`` records) as one long session: every copy gets fresh record
uuids, API message ids, request ids and tool-use ids (so no copy merges with
or answers another), and the first record that opened the session continues
from the last record of the copy before it, so the whole file is one chain.
The ``sessionId`` stays the same. Deterministic: the same size gives the same
bytes. The file goes where the caller says (a temp dir), never into the repo.

Also runnable: ``python bench/claude_code_session.py OUT.jsonl MEGABYTES``.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

SAMPLE = Path("corpus") / "claude_code_spotter" / "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"

_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_IDS = re.compile(rf"{_UUID}|(?:toolu|msg|req)_[A-Za-z0-9]+")


def _fresh(token: str, copy: int, session: str) -> str:
    """The id ``token`` in copy ``copy`` (copy 0 is the sample unchanged)."""
    if copy == 0 or token == session:
        return token
    if "_" in token:  # toolu_…, msg_…, req_…: same prefix, distinct suffix
        return f"{token}c{copy}"
    h = hashlib.md5(f"{token}/{copy}".encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def build(sample: Path, out: Path, megabytes: float) -> dict[str, int]:
    """Write at least ``megabytes`` MB (10^6 bytes) of session, in whole copies, to ``out``."""
    lines = sample.read_bytes().decode("utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    session = next(r["sessionId"] for r in records if isinstance(r.get("sessionId"), str))
    # The record that starts the session's chain (parentUuid null, the first one
    # with the key): in every later copy it continues from the copy before.
    opener = next(i for i, r in enumerate(records) if "parentUuid" in r)
    last_uuid = next(r["uuid"] for r in reversed(records) if isinstance(r.get("uuid"), str))
    target = int(megabytes * 1e6)
    written = copies = n_lines = 0
    with out.open("w", encoding="utf-8") as fh:
        while written < target:
            cache: dict[str, str] = {}

            def sub(m: re.Match[str], copy: int = copies, cache: dict[str, str] = cache) -> str:
                tok = m.group(0)
                if tok not in cache:
                    cache[tok] = _fresh(tok, copy, session)
                return cache[tok]

            for i, line in enumerate(lines):
                text = _IDS.sub(sub, line)
                if i == opener and copies > 0:
                    rec = json.loads(text)
                    rec["parentUuid"] = _fresh(last_uuid, copies - 1, session)
                    text = json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
                fh.write(text + "\n")
                written += len(text.encode("utf-8")) + 1
                n_lines += 1
            copies += 1  # whole copies only: every call keeps its result
    return {"bytes": written, "copies": copies, "lines": n_lines}


if __name__ == "__main__":
    base = Path(__file__).resolve().parent.parent.parent / "shared"
    print(build(base / SAMPLE, Path(sys.argv[1]), float(sys.argv[2])))
