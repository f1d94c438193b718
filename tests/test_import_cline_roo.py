"""Cline / Roo Code task importer, on the real task folders in ../shared/corpus/formats."""

from __future__ import annotations

import base64
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from format_samples import SKIP, assert_exports, imported, load_as, near, sample, samples
from hypothesis import given
from hypothesis import strategies as st

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import cline_roo
from snapshot.transcript.model import ImageBlock, ThinkingBlock, ToolCall, ToolResult, tool_pairing

FMT = cline_roo.NAME


@SKIP
@pytest.mark.parametrize("entry", samples("cline-roo"))
def test_task_counts_match_and_calls_get_their_real_results(entry: str) -> None:
    path, expected = sample(entry)
    (conv,) = imported(path, FMT)
    msgs = conv.path()
    roles = Counter(m.role for m in msgs)
    assert near(len(msgs), expected["api_messages"])
    assert (roles["user"], roles["assistant"]) == (expected["user"], expected["assistant"])
    calls = [b for m in msgs for b in m.blocks if isinstance(b, ToolCall)]
    assert near(len(calls), expected["tool_calls"])
    headers = [m for m in msgs if "result_of" in m.meta]
    assert near(len(headers), expected["tool_results"])
    # Every "[tool] Result:" answers the call before it, unless a condensation
    # removed that call (the message after the summary).
    orphans = [m for m in headers if not m.tool_results()]
    for m in orphans:
        assert conv.get(str(m.parent)).meta.get("condense_summary"), m.id
    answered = {r.call_id for m in msgs for r in m.tool_results()}
    assert len(answered) == len(headers) - len(orphans)
    pairing = tool_pairing(msgs)
    assert not pairing.orphan_results
    assert len(pairing.unanswered_calls) == len(calls) - len(answered)
    assert len(pairing.unanswered_calls) <= expected["tool_calls"] - expected["tool_results"] + len(
        orphans
    )
    assert_exports(conv)


@SKIP
def test_ui_log_totals_and_condensation() -> None:
    path, expected = sample("cline-roo/roo-natural-already-condensed")
    (conv,) = imported(path, FMT)
    assert conv.meta["ui_messages"] == expected["ui_messages"]
    assert conv.meta["api_requests"] == expected["ui_api_req_started"]
    assert conv.meta["condensations"] == expected["ui_condense_context"]
    assert conv.path()[1].meta.get("condense_summary")


@SKIP
def test_thinking_tags_become_thinking_and_the_ui_file_finds_its_task() -> None:
    path, _ = sample("cline-roo/roo-2025-03-187700e7")
    (conv,) = imported(path / cline_roo.UI_FILE, FMT)
    first_reply = conv.path()[1]
    assert isinstance(first_reply.blocks[0], ThinkingBlock)
    assert [b.name for b in first_reply.tool_calls()] == ["list_files"]


def _png() -> str:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (2, 2)).save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode()


def _task(tmp_path: Path, history: list[dict[str, Any]]) -> Path:
    folder = tmp_path / "1759396187528"
    folder.mkdir()
    (folder / cline_roo.API_FILE).write_text(json.dumps(history), encoding="utf-8")
    return folder


def _text(t: str) -> dict[str, str]:
    return {"type": "text", "text": t}


def test_xml_parameters_results_images_and_errors(tmp_path: Path) -> None:
    write = (
        "<write_to_file>\n<path>a.html</path>\n<content>\n<p>hi</p>\n</content>\n</write_to_file>"
    )
    history = [
        {"role": "user", "content": [_text("<task>\nmake a page\n</task>")]},
        {"role": "assistant", "content": [_text("I'll write it.\n" + write)]},
        {
            "role": "user",
            "content": [
                _text("[write_to_file for 'a.html'] Result:"),
                _text("The user denied this operation."),
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": _png()},
                },
                _text("<environment_details>\n# Current Time\n</environment_details>"),
            ],
        },
        {
            "role": "assistant",
            "content": [
                _text("<attempt_completion>\n<result>done</result>\n</attempt_completion>")
            ],
        },
    ]
    (conv,) = load_as(_task(tmp_path, history), FMT)
    _, reply, answer, last = conv.path()
    (call,) = reply.tool_calls()
    assert call.input == {"path": "a.html", "content": "<p>hi</p>"}
    (result,) = answer.tool_results()
    assert result.call_id == call.id and result.is_error
    assert isinstance(result.content[-1], ImageBlock)
    assert "environment_details" in answer.text()  # context, not the result
    assert last.tool_calls()[0].input == {"result": "done"}
    assert any("has no result" in w for w in conv.warnings)


def test_native_tool_blocks_are_read_as_they_are(tmp_path: Path) -> None:
    history = [
        {"role": "user", "content": [_text("<task>x</task>")]},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a"}}
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "body"}],
        },
    ]
    (conv,) = load_as(_task(tmp_path, history), FMT)
    assert tool_pairing(conv.path()).ok
    assert isinstance(conv.path()[2].blocks[0], ToolResult)


def test_a_plain_message_list_is_not_a_cline_task(tmp_path: Path) -> None:
    path = tmp_path / "messages.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"}]), encoding="utf-8")
    assert cline_roo.score(path, path.read_bytes()) == 0.0
    with pytest.raises(TranscriptError, match="without Cline / Roo Code markers"):
        load_as(path, FMT)


def test_a_task_folder_without_its_api_history_names_the_missing_file(tmp_path: Path) -> None:
    folder = tmp_path / "task"
    folder.mkdir()
    (folder / cline_roo.UI_FILE).write_text("[]", encoding="utf-8")
    assert cline_roo.score(folder, b"") == 0.0
    with pytest.raises(TranscriptError, match=cline_roo.API_FILE):
        load_as(folder, FMT)


_TOKENS = [*"<>/ab_\n", "<read_file>", "</read_file>", "<path>", "</path>", "<content>"]


@given(st.lists(st.sampled_from(_TOKENS)).map("".join))
def test_tool_parsing_never_fails_and_loses_no_text_before_the_tool(text: str) -> None:
    use, plain = cline_roo.parse_tool_use(text)
    if use is None:
        assert plain == text
    else:
        name, params, before, after = use
        assert text.startswith(before + f"<{name}>")
        assert after == "" or text.endswith(after)
        assert all(isinstance(v, str) for v in params.values())
