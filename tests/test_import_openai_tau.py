"""OpenAI chat messages and tau-bench trajectories."""

from __future__ import annotations

import base64
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import detect, import_path
from snapshot.transcript.model import ImageBlock, TextBlock, stats, tool_pairing


def _corpus() -> Path:
    env = os.environ.get("SNAPSHOT_CORPUS")
    root = Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
    if not (root / "benchmark.manifest.json").is_file():
        pytest.skip(f"corpus not found at {root} (set SNAPSHOT_CORPUS)")
    return root


def _write(tmp_path: Path, data: Any, name: str = "chat.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(data), encoding="utf-8")
    return p


def _png_data_url(w: int = 7, h: int = 5) -> str:
    buf = io.BytesIO()
    Image.new("RGB", (w, h)).save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def test_tool_calls_pair_with_tool_messages_by_id(tmp_path: Path) -> None:
    p = _write(
        tmp_path,
        {
            "model": "gpt-4o",
            "messages": [
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "weather?"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_a",
                            "type": "function",
                            "function": {"name": "w", "arguments": '{"city": "Oslo"}'},
                        },
                        {
                            "id": "call_b",
                            "type": "function",
                            "function": {"name": "w", "arguments": '{"city": "Rome"}'},
                        },
                    ],
                },
                {"role": "tool", "tool_call_id": "call_b", "content": "sunny"},
                {"role": "tool", "tool_call_id": "call_a", "content": "rain"},
                {"role": "assistant", "content": "Oslo rain, Rome sun."},
            ],
        },
    )
    assert detect(p).name == "openai-chat"
    (conv,) = import_path(p)
    assert conv.format == "openai-chat" and conv.meta["model"] == "gpt-4o"
    path = conv.path()
    assert [m.role for m in path] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    calls = path[2].tool_calls()
    assert [(c.id, dict(c.input)) for c in calls] == [
        ("call_a", {"city": "Oslo"}),
        ("call_b", {"city": "Rome"}),
    ]
    assert path[3].tool_results()[0].call_id == "call_b"
    assert tool_pairing(path).ok and not conv.warnings


def test_data_url_images_are_decoded_and_sized_without_pixels(tmp_path: Path) -> None:
    p = _write(
        tmp_path,
        [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "what is this"},
                    {"type": "image_url", "image_url": {"url": _png_data_url(7, 5)}},
                    {
                        "type": "image_url",
                        "image_url": {"url": "data:image/png;base64,bm90IGFuIGltYWdl"},
                    },
                    {"type": "image_url", "image_url": {"url": "https://example.com/x.png"}},
                    {"type": "input_audio", "input_audio": {}},
                ],
            }
        ],
    )
    (conv,) = import_path(p)
    blocks = conv.path()[0].blocks
    img = blocks[1]
    assert isinstance(img, ImageBlock) and (img.width, img.height, img.media_type) == (
        7,
        5,
        "image/png",
    )
    assert isinstance(blocks[2], TextBlock) and "not kept" in blocks[2].text
    assert isinstance(blocks[3], TextBlock) and "https://example.com/x.png" in blocks[3].text
    text = "\n".join(conv.warnings)
    assert "not an image" in text and "message 0: part 2" in text
    assert "remote image URL" in text
    assert "1 × content part 'input_audio'" in text  # unknown parts are counted


def test_orphans_unanswered_bad_arguments_and_unknown_roles_are_reported(tmp_path: Path) -> None:
    p = _write(
        tmp_path,
        [
            {"role": "user", "content": "go"},
            {"role": "tool", "tool_call_id": "ghost", "content": "?"},
            {
                "role": "assistant",
                "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": "{not json"}}],
            },
            {"role": "critic", "content": "meh"},
        ],
    )
    (conv,) = import_path(p)
    call = conv.path()[2].tool_calls()[0]
    assert call.input == {"_raw_arguments": "{not json"}
    text = "\n".join(conv.warnings)
    assert "not JSON" in text
    assert "without a call (ghost)" in text
    assert "without a result (c1)" in text
    assert "1 × role 'critic'" in text
    assert conv.meta["skipped"] == {"role 'critic'": 1}


def test_legacy_function_call_pairs_by_position(tmp_path: Path) -> None:
    p = _write(
        tmp_path,
        [
            {"role": "user", "content": "x"},
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "f", "arguments": "{}"},
            },
            {"role": "function", "name": "f", "content": "42"},
        ],
    )
    (conv,) = import_path(p)
    assert tool_pairing(conv.path()).ok
    assert conv.path()[2].tool_results()[0].text() == "42"


def test_malformed_json_names_file_and_line(tmp_path: Path) -> None:
    p = tmp_path / "broken.json"
    p.write_text('[\n {"role": "user", "content": "hi"},\n {"role": oops}\n]\n', encoding="utf-8")
    with pytest.raises(TranscriptError, match=r"broken\.json:3:\d+: malformed JSON"):
        import_path(p, format="openai-chat")


def test_not_messages_is_a_clear_error(tmp_path: Path) -> None:
    p = _write(tmp_path, {"prompt": "hi"})
    with pytest.raises(TranscriptError, match="without a 'messages' list"):
        import_path(p, format="openai-chat")


# --- tau-bench ---------------------------------------------------------------------------


def _tau_runs() -> list[dict[str, Any]]:
    traj = [
        {"role": "system", "content": "policy"},
        {"role": "user", "content": "change my flight"},
        {
            "content": None,
            "role": "assistant",
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "get", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "name": "get", "content": "{}"},
        {"role": "assistant", "content": "done"},
    ]
    return [
        {"task_id": 0, "reward": 1.0, "info": {}, "traj": traj, "trial": 0},
        {"task_id": 0, "reward": 0.0, "info": {}, "traj": traj[:3], "trial": 1},
        {"task_id": 1, "reward": 1.0, "info": {}, "traj": traj, "trial": 0},
    ]


def test_tau_bench_file_holds_many_runs_selected_by_task_and_trial(tmp_path: Path) -> None:
    p = _write(tmp_path, _tau_runs(), "tau.json")
    assert detect(p).name == "tau-bench"
    assert len(import_path(p)) == 3
    (conv,) = import_path(p, select={"task_id": "0", "trial": "1"})
    assert conv.format == "openai-chat" and conv.meta["container"] == "tau-bench"
    assert conv.meta["reward"] == 0.0 and conv.id == "tau/task0-trial1"
    assert any("without a result (call_1)" in w for w in conv.warnings)
    # --format openai-chat on the same file works the same way.
    (again,) = import_path(p, format="openai-chat", select={"task_id": "0", "trial": "1"})
    assert again.messages == conv.messages
    with pytest.raises(TranscriptError, match="no conversation matches"):
        import_path(p, select={"task_id": "9"})
    with pytest.raises(TranscriptError, match="cannot select by colour"):
        import_path(p, select={"colour": "red"})


MANIFEST_FORMAT = "openai-chat"


def _tau_manifest(root: Path) -> list[dict[str, Any]]:
    entries = json.loads((root / "benchmark.manifest.json").read_text())
    return [e for e in entries if e["path"].startswith("tau_bench/")]


@pytest.mark.corpus
def test_tau_bench_corpus_counts_match_the_manifest() -> None:
    root = _corpus()
    entries = _tau_manifest(root)
    assert len(entries) == 10
    for e in entries:
        select = {k: str(v) for k, v in e["select"].items()}
        (conv,) = import_path(root / e["path"], select=select)
        s = stats(conv.path())
        assert conv.format == MANIFEST_FORMAT == e["format"]
        assert (s.messages, s.tool_calls, s.tool_result_chars) == (
            e["messages"],
            e["tool_calls"],
            e["tool_result_chars"],
        ), e["select"]
        # Arguments are re-serialised with spaces after separators: a little longer.
        assert e["chars"] <= s.chars <= e["chars"] * 1.02, e["select"]
        assert tool_pairing(conv.path()).ok and not conv.warnings


@pytest.mark.corpus
def test_tau_bench_corpus_all_runs_import() -> None:
    convs = import_path(_corpus() / "tau_bench" / "gpt-4o-airline.json")
    assert len(convs) == 200
    assert len({c.id for c in convs}) == 200
    assert all(c.path() for c in convs)


def test_a_giant_single_record_imports_and_exports_whole(tmp_path: Path) -> None:
    from snapshot.transcript.export import export_anthropic

    huge = "x" * 3_000_000 + "END"
    p = _write(
        tmp_path,
        [
            {"role": "user", "content": "dump it"},
            {
                "role": "assistant",
                "tool_calls": [{"id": "c", "function": {"name": "cat", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "c", "content": huge},
        ],
    )
    (conv,) = import_path(p)
    assert conv.path()[-1].tool_results()[0].text() == huge
    body = export_anthropic(conv).body
    assert body["messages"][-1]["content"][0]["content"][0]["text"] == huge
