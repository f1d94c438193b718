"""WebVoyager folders and the SCUBA computer-use logs (browser-use, OSWorld-style)."""

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

PLACEHOLDER = "data:image/png;base64,{b64_img}"


def _corpus() -> Path:
    env = os.environ.get("SNAPSHOT_CORPUS")
    root = Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
    if not (root / "benchmark.manifest.json").is_file():
        pytest.skip(f"corpus not found at {root} (set SNAPSHOT_CORPUS)")
    return root


def _manifest(root: Path) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((root / "benchmark.manifest.json").read_text())
    return data


def _png(w: int, h: int) -> bytes:
    buf = io.BytesIO()
    Image.new("L", (w, h), 200).save(buf, format="PNG")
    return buf.getvalue()


# --- WebVoyager ------------------------------------------------------------------------------


def _webvoyager(tmp_path: Path, screenshots: int) -> Path:
    folder = tmp_path / "taskDemo--1"
    folder.mkdir()
    omitted = "Observation: A screenshot and some texts. (Omitted in context.)"
    messages = [
        {"role": "system", "content": "You are a robot."},
        {"role": "user", "content": "Now given a task: find X"},
        {"role": "assistant", "content": "Thought: click. Action: Click [1]"},
        {"role": "user", "content": omitted},
        {"role": "assistant", "content": "Thought: type. Action: Type [2]; X"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Observation: please analyze the attached screenshot"},
                {"type": "image_url", "image_url": {"url": PLACEHOLDER}},
            ],
        },
        {"role": "assistant", "content": "Thought: done. Action: ANSWER; X"},
    ]
    (folder / "interact_messages.json").write_text(json.dumps(messages), encoding="utf-8")
    for k in range(1, screenshots + 1):
        (folder / f"screenshot{k}.png").write_bytes(_png(40 + k, 30))
    (folder / "screenshot1_no_box.png").write_bytes(_png(41, 30))
    return folder


def test_webvoyager_rebuilds_every_screenshot_with_its_size(tmp_path: Path) -> None:
    folder = _webvoyager(tmp_path, 3)
    assert detect(folder).name == "webvoyager"
    assert detect(folder / "interact_messages.json").name == "webvoyager"
    (conv,) = import_path(folder)
    users = [m for m in conv.path() if m.role == "user"]
    assert len(users) == 3
    for k, m in enumerate(users, 1):
        (img,) = m.images()
        assert img.path == str(folder / f"screenshot{k}.png") and img.data is None
        assert (img.width, img.height, img.media_type) == (40 + k, 30, "image/png")
        assert m.meta["screenshot"] == k
    # The placeholder part is gone; the saved context's own image is the same file.
    assert users[2].meta["image_in_saved_context"] is True
    assert all(isinstance(b, TextBlock | ImageBlock) for b in users[2].blocks)
    assert PLACEHOLDER not in json.dumps([m.text() for m in conv.path()])
    assert conv.meta["screenshots_no_box"] == 1
    assert not conv.warnings


def test_webvoyager_missing_extra_and_broken_screenshots_are_reported(tmp_path: Path) -> None:
    folder = _webvoyager(tmp_path, 2)
    (folder / "screenshot2.png").write_bytes(b"this is not a png")
    (folder / "screenshot7.png").write_bytes(_png(5, 5))
    (conv,) = import_path(folder)
    text = "\n".join(conv.warnings)
    assert "screenshot3.png is missing" in text
    assert "screenshot2.png: not kept" in text and "not an image" in text
    assert "screenshots with no user message: screenshot7.png" in text
    users = [m for m in conv.path() if m.role == "user"]
    assert isinstance(users[1].blocks[-1], TextBlock)


def test_webvoyager_folder_without_log_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match=r"no interact_messages\.json"):
        import_path(tmp_path, format="webvoyager")


@pytest.mark.corpus
def test_webvoyager_corpus_matches_the_manifest_exactly() -> None:
    root = _corpus()
    entries = [e for e in _manifest(root) if e["path"].startswith("webvoyager/")]
    assert len(entries) == 15
    total_images = 0
    for e in entries:
        (conv,) = import_path(root / e["path"])
        s = stats(conv.path())
        assert (s.messages, s.tool_calls, s.images, s.chars) == (
            e["messages"],
            e["tool_calls"],
            e["images"],
            e["chars"],
        ), e["path"]
        for img in (i for m in conv.path() for i in m.images()):
            assert (img.width, img.height) == (1024, 768)
        total_images += s.images
        assert not conv.warnings
    assert total_images == 90  # the README's "90 real screenshots"


# --- browser-use (SCUBA) -------------------------------------------------------------------------


def _lc(kind: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {"content": content, "type": kind, "id": None, **extra}


def _browser_use(tmp_path: Path) -> Path:
    shot = "data:image/png;base64," + base64.b64encode(_png(16, 9)).decode()
    prefix = [_lc("system", "rules"), _lc("human", "task: do it")]

    def state(n: int) -> dict[str, Any]:
        return _lc(
            "human",
            [
                {"type": "text", "text": f"state {n}"},
                {"type": "image_url", "image_url": {"url": shot}},
            ],
        )

    plan = _lc("human", "the plan")

    def call(i: int) -> dict[str, Any]:
        args = {"action": [{"click": i}]}
        return _lc("ai", "", tool_calls=[{"name": "AgentOutput", "args": args, "id": str(i)}])

    def tool(i: int) -> dict[str, Any]:
        return _lc("tool", "", tool_call_id=str(i))

    steps = {
        "0": {"controller_messages": {"action_result": [], "action_error": []}},
        "1": {
            "input_messages": {"contents": [*prefix, plan, state(1)]},
            "output_messages": {"tool_call_message": call(1), "tool_response": tool(1)},
            "controller_messages": {"action_result": [_lc("human", "Action result: clicked 1")]},
        },
        "2": {
            "input_messages": {
                "contents": [
                    *prefix,
                    call(1),
                    tool(1),
                    _lc("human", "Action result: clicked 1"),
                    plan,
                    state(2),
                ]
            },
            "output_messages": {"tool_call_message": call(2), "tool_response": tool(2)},
            "controller_messages": {"action_result": [_lc("human", "Action result: clicked 2")]},
        },
    }
    p = tmp_path / "run.json"
    p.write_text(
        json.dumps({"task_prompt": "do it", "is_successful": True, "steps": steps}),
        encoding="utf-8",
    )
    return p


def test_browser_use_keeps_history_once_and_each_transient_state(tmp_path: Path) -> None:
    p = _browser_use(tmp_path)
    assert detect(p).name == "browser-use"
    (conv,) = import_path(p)
    path = conv.path()
    texts = [
        (
            m.role,
            m.text() or [b.id for b in m.tool_calls()] or [r.call_id for r in m.tool_results()],
        )
        for m in path
    ]
    assert texts == [
        ("system", "rules"),
        ("user", "task: do it"),
        ("user", "the plan"),
        ("user", "state 1"),
        ("assistant", ["1"]),
        ("tool", ["1"]),
        ("user", "Action result: clicked 1"),
        ("user", "state 2"),  # the unchanged plan is not repeated
        ("assistant", ["2"]),
        ("tool", ["2"]),
        ("user", "Action result: clicked 2"),
    ]
    transient = [m.text() for m in path if m.meta.get("transient")]
    assert transient == ["the plan", "state 1", "state 2"]
    assert conv.meta["repeated_transient"] == 1
    assert stats(path).images == 2
    assert tool_pairing(path).ok


@pytest.mark.corpus
def test_scuba_browser_use_corpus() -> None:
    """Differences from the manifest's rebuilt counts (29 messages, 9 calls).

    The manifest folded each step into state + call + result. This importer
    keeps the messages as browser-use sent them: the prompt's example exchange
    (one AgentOutput call answered "Browser started": the 10th call), the
    history-start marker, and each "Action result" as its own user message
    (13 of them), plus the plan once. Images (one screenshot per step) and
    chars agree.
    """
    root = _corpus()
    (e,) = [x for x in _manifest(root) if x["path"].startswith("scuba_cua/demo_bu")]
    (conv,) = import_path(root / e["path"])
    s = stats(conv.path())
    assert s.images == e["images"] == 9
    assert s.tool_calls == e["tool_calls"] + 1
    assert s.messages == 48
    action_results = sum(
        1 for m in conv.path() if m.role == "user" and m.text().startswith("Action result")
    )
    assert action_results == 14  # 13 browser results + the prompt's login result
    assert abs(s.chars - e["chars"]) <= 0.05 * e["chars"]
    assert tool_pairing(conv.path()).ok and not conv.warnings
    assert sum(1 for m in conv.path() if m.meta.get("transient")) == 10  # plan + 9 states


# --- OSWorld-style (SCUBA) ---------------------------------------------------------------------


def _osworld(tmp_path: Path) -> Path:
    run = tmp_path / "task_1" / "abc123"
    run.mkdir(parents=True)
    (run / "initial_obs.png").write_bytes(_png(20, 10))
    (run / "runtime.log").write_text("Max Steps: 3\nInstruction: open the app\n", encoding="utf-8")
    lines = []
    for step, idx in [(1, 1), (2, 1), (2, 2)]:
        (run / f"step_{step}_action_{idx}.png").write_bytes(_png(20, 10))
        lines.append(
            json.dumps(
                {
                    "step_num": step,
                    "action_idx": idx,
                    "prediction": f"Thought: step {step}",
                    "action": f"pyautogui.click({step}, {idx})",
                    "reward": 0,
                    "done": False,
                    "info": {},
                    "screenshot_file": f"step_{step}_action_{idx}.png",
                }
            )
        )
    lines.insert(1, "{broken")
    (run / "traj.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return run


def test_osworld_run_rebuilds_calls_and_screenshots(tmp_path: Path) -> None:
    run = _osworld(tmp_path)
    for p in (run, run.parent, run / "traj.jsonl"):
        assert detect(p).name == "osworld-traj", p
    (conv,) = import_path(run.parent)
    path = conv.path()
    assert [m.role for m in path] == ["user", "assistant", "tool", "assistant", "tool", "tool"]
    assert path[0].text() == "open the app" and path[0].images()[0].width == 20
    assert [c.id for c in path[3].tool_calls()] == [
        "step2-1",
        "step2-2",
    ]  # one prediction, two actions
    assert tool_pairing(path).ok
    assert stats(path).images == 4
    assert any("traj.jsonl:2: malformed JSON line skipped" in w for w in conv.warnings)
    assert import_path(run.parent, select={"run": "abc123"})[0].id == "task_1/abc123"
    with pytest.raises(TranscriptError, match="no conversation matches"):
        import_path(run.parent, select={"run": "zzz"})


@pytest.mark.corpus
def test_scuba_osworld_corpus_matches_the_manifest_exactly() -> None:
    root = _corpus()
    (e,) = [x for x in _manifest(root) if x["path"].startswith("scuba_cua/demo_uitars")]
    (conv,) = import_path(root / e["path"])
    s = stats(conv.path())
    assert (s.messages, s.tool_calls, s.images, s.chars, s.tool_result_chars) == (
        e["messages"],
        e["tool_calls"],
        e["images"],
        e["chars"],
        e["tool_result_chars"],
    )
    assert all((i.width, i.height) == (1920, 1080) for m in conv.path() for i in m.images())
    assert not conv.warnings
