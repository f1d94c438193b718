"""Fuzzing every importer with mutated real records: a conversation or a clear error, nothing else.

Seeds are real records: the first records of the samples under
``../shared/corpus`` (skipped with a reason when absent) plus small records in
the shapes the importer tests use. Hypothesis mutates them the ways broken and
hostile logs do: a field of the wrong type (a list-valued ``type``, an integer
``tool_calls``), a missing key, lone surrogates and control characters in
text, deep nesting, huge integers. Every case must end in either
conversations that can be stored and exported, or a
:class:`~snapshot.errors.SnapshotError`; any other exception is a bug.

Bounded and repeatable: ``derandomize=True``, a modest ``max_examples``, small
seeds; a case that runs longer than :data:`CASE_LIMIT_S` is stopped by an
alarm and reported as a hang (a bound, not a timing assertion).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fuzz_inputs import bounded
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from snapshot.errors import SnapshotError
from snapshot.transcript.encodable import encodable_value
from snapshot.transcript.export import export
from snapshot.transcript.formats import ImportOptions, get_format, import_path
from snapshot.transcript.model import conversation_to_dict

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"
CASE_LIMIT_S = 30  # generous: 2 shared cores; a hang is minutes, not seconds
EXAMPLES = 50

FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)


# --- seeds --------------------------------------------------------------------------

# (format, sample under ../shared/corpus, "jsonl" | "json")
CORPUS_SEEDS: list[tuple[str, str, str]] = [
    ("claude-code-jsonl", "formats/claude-code/dkimuson-5c0375b4.jsonl", "jsonl"),
    ("codex-exec-jsonl", "formats/codex-exec/tielec-aiwa-issue119-scenario-review.jsonl", "jsonl"),
    ("mini-swe-agent-1", "mini_swe_agent_gemini3pro/trajs/psf__requests-1921.traj.json", "json"),
    ("openai-chat", "formats/openai-chat/oh-sdk-litellm-telemetry-haiku-4c3a.json", "json"),
    ("browser-use", "scuba_cua/demo_bu_claude4/trajectory/sales_001_001.json", "json"),
    ("tau-bench", "tau_bench/gpt-4o-airline.json", "json"),
    ("swe-agent-traj", "swe_agent/demonstrations__ctf__rev__rock.traj", "json"),
    ("openhands-events", "openhands/tests__unit__resolver__mock_output__output.jsonl", "jsonl"),
]

BUILTIN_SEEDS: list[tuple[str, str, Any]] = [
    (
        "anthropic-messages",
        "json",
        {
            "model": "claude-x",
            "system": "be terse",
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "running"},
                        {"type": "tool_use", "id": "t1", "name": "bash", "input": {"cmd": "ls"}},
                    ],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a.txt"}],
                },
                {"role": "assistant", "content": "done"},
            ],
        },
    ),
    (
        "openai-chat",
        "json",
        {
            "messages": [
                {"role": "system", "content": "be terse"},
                {"role": "user", "content": "list files"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "ls", "arguments": '{"path": "."}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
                {"role": "assistant", "content": "a.txt"},
            ]
        },
    ),
    (
        "openhands-events",
        "jsonl",
        [{"instance_id": "ok-1", "history": [{"action": "message", "content": "hi"}]}],
    ),
]


def _trim(value: Any, depth: int = 0) -> Any:
    """A small copy of a real record: lists cut to 4 items, strings to 400 chars."""
    if isinstance(value, dict):
        return {k: _trim(v, depth + 1) for k, v in list(value.items())[:40]}
    if isinstance(value, list):
        return [_trim(v, depth + 1) for v in value[:4]]
    if isinstance(value, str):
        return value[:400]
    return value


def _corpus_seed(rel: str, kind: str) -> Any:
    path = CORPUS / rel
    if kind == "jsonl":
        records = []
        with path.open(encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.strip():
                    records.append(_trim(json.loads(line)))
                if len(records) >= 8:
                    break
        return records
    return _trim(json.loads(path.read_text(encoding="utf-8")))


SEEDS: list[tuple[str, str, Any]] = list(BUILTIN_SEEDS)
MISSING: list[str] = []
for _fmt, _rel, _kind in CORPUS_SEEDS:
    if (CORPUS / _rel).is_file():
        SEEDS.append((_fmt, _kind, _corpus_seed(_rel, _kind)))
    else:
        MISSING.append(_rel)


# --- mutations ----------------------------------------------------------------------

HOSTILE_TEXT = [
    "\ud83d",  # half an emoji
    "ok \udc00 tail",
    "\x1b]0;title\x07\x1b[2J",
    "\x00nul",
    "../../../../etc/passwd",
    "",
    "9" * 5000,
]
JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(HOSTILE_TEXT),
    st.text(max_size=20),
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


def _mutate(doc: Any, data: st.DataObject) -> Any:
    doc = json.loads(json.dumps(doc))  # a private copy
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            return data.draw(JSON_VALUES, label="whole document")
        path = data.draw(st.sampled_from(paths), label="path")
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        op = data.draw(st.sampled_from(["replace", "delete", "text", "wrap"]), label="op")
        if op == "delete":
            del parent[last]
        elif op == "text" and isinstance(parent[last], str):
            parent[last] = parent[last] + data.draw(st.sampled_from(HOSTILE_TEXT), label="text")
        elif op == "wrap":
            parent[last] = [parent[last]]  # a list-valued `type`, a list where an object goes
        else:
            parent[last] = data.draw(JSON_VALUES, label="value")
    return doc


# --- the property -------------------------------------------------------------------


def _write(path: Path, kind: str, doc: Any) -> None:
    # Surrogates written as \ud83d escapes, the way JavaScript agents write them.
    if kind == "jsonl" and isinstance(doc, list):
        text = "\n".join(json.dumps(r) for r in doc) + "\n"
    else:
        text = json.dumps(doc)
    path.write_text(text, encoding="utf-8")


def _check_usable(path: Path, fmt: str | None) -> None:
    try:
        convs = import_path(path, format=fmt)
    except SnapshotError:
        return
    for conv in convs:
        record = conversation_to_dict(conv)
        # Every imported conversation can be written as UTF-8 JSON...
        json.dumps(record, ensure_ascii=False).encode("utf-8")
        assert encodable_value(record)[1] == 0
        # ...and exported, or refused with a clear error.
        for target in ("anthropic", "openai", "markdown"):
            try:
                body = export(conv, target).body
            except SnapshotError:
                continue
            if isinstance(body, str):
                body.encode("utf-8")
            else:
                json.dumps(body, ensure_ascii=False).encode("utf-8")


def test_every_seed_imports_before_mutation(tmp_path: Path) -> None:
    if MISSING:
        print(f"fuzz seeds missing (../shared absent?): {', '.join(MISSING)}")
    for i, (fmt, kind, doc) in enumerate(SEEDS):
        path = tmp_path / f"seed{i}.{kind}"
        _write(path, kind, doc)
        # The format's own loader reads every seed (import_path may still refuse a trimmed
        # seed forced through it for keeping too little of its text: that is detection's call).
        convs = get_format(fmt).load(path, ImportOptions())
        assert convs and any(c.messages for c in convs), (fmt, i)


@pytest.mark.parametrize(
    "seed", range(len(SEEDS)), ids=[f"{s[0]}-{i}" for i, s in enumerate(SEEDS)]
)
@FUZZ
@given(data=st.data())
def test_mutated_records_import_or_fail_clearly(
    seed: int, data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    fmt, kind, doc = SEEDS[seed]
    mutated = _mutate(doc, data)
    path = tmp_path_factory.mktemp("fuzz") / f"case.{kind}"
    _write(path, kind, mutated)
    with bounded(CASE_LIMIT_S):
        _check_usable(path, fmt)  # forced format
        _check_usable(path, None)  # detection


def test_osworld_run_with_hostile_screenshot_paths(tmp_path: Path) -> None:
    """A path-following importer: screenshots named outside the run are not read."""
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"\x89PNG\r\n\x1a\n" + b"not really")
    run = tmp_path / "task" / "run1"
    run.mkdir(parents=True)
    (run / "runtime.log").write_text("Instruction: open the app\n", encoding="utf-8")
    (run / "link.png").symlink_to(secret)
    steps = [
        {
            "step_num": 1,
            "action_idx": 1,
            "action": "click()",
            "screenshot_file": "../../secret.png",
        },
        {"step_num": 2, "action_idx": 1, "action": "x", "screenshot_file": str(secret)},
        {"step_num": 3, "action_idx": 1, "action": "y", "screenshot_file": "link.png"},
        {"step_num": ["4"], "action": 5, "screenshot_file": 7},
    ]
    _write(run / "traj.jsonl", "jsonl", steps)
    (conv,) = import_path(run, format="osworld-traj")
    images = [b for m in conv.messages for b in m.blocks if hasattr(b, "content")]
    assert not any(getattr(c, "path", None) for r in images for c in r.content)
    assert sum("outside the run's folder" in w for w in conv.warnings) == 3
