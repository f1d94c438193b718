"""Detection that never loses data silently, on the real samples of ../shared/corpus/formats.

Every sample is detected as its own format; forcing any other format is exit 2
naming the right one; detection that is not sure says so and lists the
candidates. Samples of formats no importer on this branch reads yet are
skipped with the list of those formats in the reason.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from format_samples import FORMATS, manifest, needs_samples

from snapshot.cli import main
from snapshot.errors import TranscriptError
from snapshot.transcript.formats import (
    AmbiguousFormatError,
    Format,
    WrongFormatError,
    choose,
    detect,
    format_names,
    import_path,
    rank,
)

pytestmark = needs_samples

# The MANIFEST's format names, where the importer's name differs.
IMPORTER_OF = {
    "gemini-content": "gemini-content",
    "openai-responses": "openai-responses",
    "claude-code": "claude-code-jsonl",
    "claude-agent-sdk": "claude-code-jsonl",
    "codex-exec": "codex-exec-jsonl",
    "mini-swe-agent": "mini-swe-agent-1",
    "codex-rollout": "codex-rollout-jsonl",
    "gemini-cli": "gemini-cli-chat",
    "cline-roo": "cline-roo-task",
    "kimi-cli": "kimi-cli-jsonl",
    "aider-md": "aider-chat-md",
    "cursor-md": "cursor-export-md",
}


def _samples() -> list[dict[str, Any]]:
    return manifest()


# Samples another importer reads on this branch, and why (skipped with the reason).
KNOWN_GAPS: dict[str, str] = {}

# Formats that read a sample in full although it is another's: mini-swe-agent's bare
# message list is also a valid OpenAI chat or Responses input list, and plain role/string
# messages are valid Anthropic ones (nothing is lost; detection picks
# mini-swe-agent by its action fence).
ALSO_READ_BY = {
    "mini-swe-agent/msa-github_issue.traj.json": {
        "openai-chat",
        "openai-responses",
        "anthropic-messages",
    },
    "mini-swe-agent/msa-local.traj.json": {"openai-chat", "openai-responses"},
}

SAMPLES = _samples()
HERE = set(format_names())
MISSING = sorted(
    {s["format"] for s in SAMPLES if IMPORTER_OF.get(s["format"], s["format"]) not in HERE}
)


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")


def _importer(sample: dict[str, Any]) -> str:
    if sample["path"] in KNOWN_GAPS:
        pytest.skip(KNOWN_GAPS[sample["path"]])
    name = IMPORTER_OF.get(sample["format"], sample["format"])
    if name not in HERE:
        pytest.skip(
            f"no importer for {sample['format']!r} on this branch yet "
            f"(formats not importable here: {', '.join(MISSING)})"
        )
    return name


@pytest.mark.parametrize("sample", SAMPLES, ids=[s["path"] for s in SAMPLES])
def test_every_sample_is_detected_as_its_format(sample: dict[str, Any]) -> None:
    name = _importer(sample)
    assert detect(FORMATS / sample["path"]).name == name


@pytest.mark.parametrize("sample", SAMPLES, ids=[s["path"] for s in SAMPLES])
def test_wrong_format_on_every_sample_is_exit_2_naming_the_right_one(
    sample: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    right = _importer(sample)
    path = FORMATS / sample["path"]
    also = ALSO_READ_BY.get(sample["path"], set())
    for fmt in sorted(also):
        (conv,) = import_path(path, format=fmt)
        assert conv.meta.get("text_kept", 1.0) >= 0.9, fmt
    for wrong in sorted(HERE - {right} - also):
        with pytest.raises(WrongFormatError) as info:
            import_path(path, format=wrong)
        assert f"--format {right}" in str(info.value), (wrong, str(info.value))
    # And through the command line: one line, exit 2, the right format named.
    wrong = next(iter(sorted(HERE - {right} - also)))
    assert main(["import", str(path), "--format", wrong]) == 2
    err = capsys.readouterr().err
    assert f"--format {right}" in err and err.count("\n") == 1, err


def test_the_samples_cover_the_formats_of_this_branch() -> None:
    """A visible list of what the skips above leave out (not a failure)."""
    covered = {IMPORTER_OF.get(s["format"], s["format"]) for s in SAMPLES} & HERE
    assert {"openhands-v1", "pi", "browser-use", "continue"} <= covered
    if MISSING:
        pytest.skip(f"samples of formats without an importer here: {', '.join(MISSING)}")


# --- the choice itself ------------------------------------------------------------------


def _fmt(name: str, value: float) -> Format:
    def never(path: Path, options: Any) -> list[Any]:
        raise AssertionError("not loaded")

    return Format(name, name, score=lambda p, h: value, load=never)


def test_a_close_second_is_ambiguous_and_lists_both(tmp_path: Path) -> None:
    ranked = [(_fmt("a", 0.8), 0.8), (_fmt("b", 0.75), 0.75)]
    with pytest.raises(AmbiguousFormatError, match=r"a \(0\.80\), b \(0\.75\).*--format"):
        choose(tmp_path / "x.json", ranked)


def test_a_weak_best_is_not_a_pick(tmp_path: Path) -> None:
    with pytest.raises(AmbiguousFormatError, match="no format is sure"):
        choose(tmp_path / "x.json", [(_fmt("a", 0.3), 0.3)])


def test_a_clear_best_is_picked(tmp_path: Path) -> None:
    ranked = [(_fmt("a", 0.95), 0.95), (_fmt("b", 0.6), 0.6)]
    assert choose(tmp_path / "x.json", ranked).name == "a"


def test_nothing_recognised_names_the_known_formats(tmp_path: Path) -> None:
    p = tmp_path / "notes.txt"
    p.write_text("just some notes\n", encoding="utf-8")
    assert rank(p) == []
    with pytest.raises(TranscriptError, match="force one with --format"):
        detect(p)


def test_an_import_that_drops_text_says_so_in_warnings_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pi reads messages; an entry type it does not know is text it did not keep."""
    lost = "This paragraph lives in an entry type the importer does not read. " * 20
    lines = [
        {"type": "session", "version": 3, "id": "s1", "cwd": "/w"},
        {
            "type": "message",
            "id": "a",
            "parentId": None,
            "message": {"role": "user", "content": "please fix the failing test in the parser"},
        },
        {"type": "mystery", "id": "b", "parentId": "a", "note": lost},
    ]
    p = tmp_path / "s.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    (conv,) = import_path(p)
    assert conv.meta["text_kept"] < 0.9
    assert any("kept" in w and "of the file's model-visible text" in w for w in conv.warnings)
    assert main(["import", str(p), "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["conversations"][0]
    assert row["text_kept"] < 0.9
    assert any("of the file's model-visible text" in w for w in row["warnings"])


# --- the text-kept measure ------------------------------------------------------------


def test_kept_share_counts_repeats_once_and_survives_trimmed_labels() -> None:
    from snapshot.transcript.coverage import kept_share
    from snapshot.transcript.model import TextBlock, linear

    body = "the quick brown fox jumps over the lazy dog near the river bank"
    conv = linear("c", [("m", "user", [TextBlock(body)])])
    assert kept_share([body, body, f"Instruction: {body}"], [conv]).share > 0.95
    assert kept_share(["an entirely different sentence with nothing in common"], [conv]).kept == 0


def test_a_sampled_measure_agrees_with_the_full_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Huge sessions keep only a consistent sample of word runs; the share stays close."""
    from snapshot.transcript import coverage
    from snapshot.transcript.model import TextBlock, linear

    kept_lines = [f"line {i} says the value of item {i * 7} is {i * 13} units" for i in range(400)]
    lost_lines = [f"dropped row {i} holds other words like {i * 3} apples" for i in range(100)]
    conv = linear("c", [("m", "user", [TextBlock("\n".join(kept_lines))])])
    strings = kept_lines + lost_lines
    full = coverage.kept_share(strings, [conv]).share
    monkeypatch.setattr(coverage, "MAX_SHINGLES", 500)
    sampled = coverage.kept_share(strings, [conv]).share
    assert abs(full - sampled) < 0.1, (full, sampled)


# --- the new formats export as every provider's request ---------------------------------

OWN = ("openhands-v1", "pi", "browser-use", "continue")
OWN_SAMPLES = [s for s in SAMPLES if s["format"] in OWN]


@pytest.mark.parametrize("sample", OWN_SAMPLES, ids=[s["path"] for s in OWN_SAMPLES])
@pytest.mark.parametrize("target", ["anthropic", "openai", "openai-responses", "gemini"])
def test_the_new_formats_export_with_every_call_answered(
    sample: dict[str, Any], target: str
) -> None:
    """Each sample becomes a request body; calls without results are repaired and said so."""
    from snapshot.transcript.export import export
    from snapshot.transcript.model import tool_pairing

    (conv,) = import_path(FORMATS / sample["path"])
    result = export(conv, target)
    json.dumps(result.body)  # a JSON request body
    if not tool_pairing(conv.path()).ok:
        assert result.notes, "a repair is always reported"


# --- hostile variants: a clear error or warnings, never a traceback ----------------------

_WEIRD: list[Any] = [None, 0, -1, 1.5, "", "x", [], {}, [None], {"a": None}, True]


def _mutate(value: Any, rng: Any, rate: float) -> Any:
    if rng.random() < rate:
        return rng.choice(_WEIRD)
    if isinstance(value, dict):
        return {k: _mutate(v, rng, rate) for k, v in value.items()}
    if isinstance(value, list):
        return [_mutate(v, rng, rate) for v in value]
    return value


SMALL = {
    "pi": "pi/kvsankar-pi-session-01.jsonl",
    "continue": "continue/developer-67733f7c.json",
    "browser-use": "browser-use/pentest-agent-agent_history.json",
    "openhands-v1": "openhands-v1/oh-sdk-cd945624",
}


@pytest.mark.parametrize("fmt", sorted(SMALL))
def test_mangled_samples_give_warnings_or_one_clear_error(fmt: str, tmp_path: Path) -> None:
    import contextlib
    import random

    from snapshot.errors import SnapshotError

    rng = random.Random(fmt)
    src = FORMATS / SMALL[fmt]
    for trial in range(12):
        dst = tmp_path / f"t{trial}" / src.name
        if src.is_dir():
            for f in src.rglob("*.json"):
                out = dst / f.relative_to(src)
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(json.dumps(_mutate(json.loads(f.read_text()), rng, 0.15)))
        else:
            dst.parent.mkdir(parents=True)
            lines = src.read_text(encoding="utf-8").splitlines()
            if src.suffix == ".jsonl":
                body = "\n".join(json.dumps(_mutate(json.loads(x), rng, 0.15)) for x in lines)
            else:
                body = json.dumps(_mutate(json.loads("\n".join(lines)), rng, 0.15))
            dst.write_text(body + "\n", encoding="utf-8")
        for forced in (None, fmt):
            with contextlib.suppress(SnapshotError):  # a clear error is fine; a crash is not
                import_path(dst, format=forced)


def test_a_detected_format_that_keeps_nothing_is_an_error_not_exit_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Gemini Content[] looks like chat messages but has no 'content': nothing would be kept."""
    turns = [
        {
            "role": "user" if i % 2 == 0 else "model",
            "parts": [{"text": f"turn {i} says " + "words " * 30}],
        }
        for i in range(6)
    ]
    p = tmp_path / "history.json"
    p.write_text(json.dumps(turns), encoding="utf-8")
    # Detected, it is read as what it is; forced through the chat importer, it is refused.
    assert detect(p).name == "gemini-content"
    assert main(["import", str(p), "--format", "openai-chat"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--format gemini-content" in err, err


def test_the_sampled_measure_is_the_same_in_every_process() -> None:
    """The sample is chosen by a stable hash, not the per-process salted one."""
    import subprocess
    import sys

    code = (
        "from snapshot.transcript import coverage\n"
        "from snapshot.transcript.model import TextBlock, linear\n"
        "coverage.MAX_SHINGLES = 500\n"
        "kept = [f'line {i} says the value of item {i * 7} is {i * 13} units' for i in range(400)]\n"
        "lost = [f'dropped row {i} holds other words like {i * 3} apples' for i in range(100)]\n"
        "conv = linear('c', [('m', 'user', [TextBlock(chr(10).join(kept))])])\n"
        "print(coverage.kept_share(kept + lost, [conv]).share)\n"
    )
    shares = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(shares) == 1, shares


@pytest.mark.parametrize("first", ["systemInstruction", "tools", "contents"])
def test_a_generate_content_body_is_detected_whatever_key_comes_first(
    first: str, tmp_path: Path
) -> None:
    """REST bodies put ``systemInstruction`` or ``tools`` (lists of parts) before ``contents``."""
    fields = {
        "systemInstruction": {"parts": [{"text": "be brief"}]},
        "tools": [{"functionDeclarations": [{"name": "ls", "description": "list"}]}],
        "contents": [{"role": "user", "parts": [{"text": "list the files"}]}],
    }
    body = {first: fields[first], **{k: v for k, v in fields.items() if k != first}}
    p = tmp_path / "body.json"
    p.write_text(json.dumps(body), encoding="utf-8")
    assert detect(p).name == "gemini-content"


# --- shapes two formats share: each format's own score says which is meant ---------------


@pytest.mark.parametrize(
    ("name", "text", "meant", "behind"),
    [
        (
            "history.json",
            [{"role": "user", "parts": [{"text": "hi"}]}, {"role": "model", "parts": []}],
            "gemini-content",
            "openai-chat",
        ),
        (
            "body.json",
            {"system": "terse", "messages": [{"role": "user", "content": "hi"}]},
            "anthropic-messages",
            "openai-chat",
        ),
        (
            "run.traj",
            {"history": [{"role": "user", "content": "x", "action": "ls"}], "trajectory": []},
            "swe-agent-traj",
            "openhands-events",
        ),
    ],
)
def test_a_shared_shape_goes_to_the_more_specific_format(
    tmp_path: Path, name: str, text: Any, meant: str, behind: str
) -> None:
    path = tmp_path / name
    path.write_text(json.dumps(text), encoding="utf-8")
    ranked = {f.name: s for f, s in rank(path)}
    assert behind in ranked, "the generic reader still fits (so --format can force it)"
    assert ranked[meant] - ranked[behind] >= 0.1
    assert detect(path).name == meant
