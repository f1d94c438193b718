"""Elide (issue 22 item 5, issue 28 item 2): what counts as recent, as an identifier, as a
reference; linear work on hostile text; real corpus sessions; placeholders that lead back."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ladder_helpers import REPRO, SESSION

from snapshot.ladder import elide as elide_module
from snapshot.ladder.elide import elide, identifiers, is_identifier, tool_result_chars
from snapshot.ladder.restore import original
from snapshot.transcript.model import Conversation, TextBlock, ToolCall, ToolResult, linear


def _run(results: list[tuple[str, dict[str, str], str]], final: str = "done") -> Conversation:
    msgs: list[tuple[str, str, list[object]]] = [("u", "user", [TextBlock("go")])]
    for i, (tool, args, text) in enumerate(results):
        msgs.append((f"a{i}", "assistant", [ToolCall(f"t{i}", tool, args)]))
        msgs.append((f"r{i}", "tool", [ToolResult(f"t{i}", (TextBlock(text),))]))
    msgs.append(("z", "assistant", [TextBlock(final)]))
    return linear("c", msgs)  # type: ignore[arg-type]


def _texts(conv: Conversation) -> dict[str, str]:
    return {r.call_id: r.text() for m in conv.path() for r in m.tool_results()}


def test_plain_words_before_a_period_are_no_identifiers() -> None:
    assert identifiers("The output. Then the result: done. Because") == set()
    assert is_identifier("src/app/main.py") and is_identifier("a1b2c3d4e5")
    assert not is_identifier("output") and not is_identifier("2024")


def test_a_result_that_only_repeats_its_calls_path_is_elided() -> None:
    listing = "src/app/main.py:12: def main():\n" + "    pass  # nothing here\n" * 20
    conv = _run(
        [("grep", {"pattern": "main", "path": "src/app/main.py"}, listing)],
        final="I will now edit src/app/main.py",
    )
    out = _texts(elide(conv, keep_steps=0).conversation)
    assert out["t0"].startswith("[elided: uneventful grep result")


def test_a_result_whose_new_identifier_a_later_step_uses_is_kept() -> None:
    conv = _run(
        [
            ("bash", {"cmd": "ls"}, "report_2024_final.csv\n" + "padding line\n" * 40),
            ("bash", {"cmd": "cat report_2024_final.csv"}, "a,b\n" * 100),
        ]
    )
    out = _texts(elide(conv, keep_steps=0).conversation)
    assert out["t0"].startswith("report_2024_final.csv")
    assert out["t1"].startswith("[elided:")


def test_a_repeated_call_supersedes_its_earlier_result() -> None:
    body = "config_value_7 = 1\n" * 30
    conv = _run(
        [("read", {"path": "cfg.toml"}, body), ("read", {"path": "cfg.toml"}, body)],
        final="config_value_7 is set",
    )
    out = elide(conv, keep_steps=0)
    texts = _texts(out.conversation)
    assert texts["t0"].startswith("[elided:")  # superseded, though referenced
    assert texts["t1"] == body  # the fresher reading of the same call stays
    assert out.record.data["superseded"] == 1


def test_recent_means_the_last_assistant_steps_not_user_prompts() -> None:
    results = [("bash", {"cmd": f"run {i}"}, "x" * 400) for i in range(6)]
    conv = _run(results)  # one user prompt, seven assistant steps
    texts = _texts(elide(conv, keep_steps=2).conversation)
    assert [k for k, v in texts.items() if not v.startswith("[elided:")] == ["t5"]


def test_every_placeholder_leads_back_to_the_original_bytes() -> None:
    conv = _run([("bash", {"cmd": f"run {i}"}, f"log {i}\n" + "y" * 400) for i in range(4)])
    out = elide(conv, keep_steps=1)
    placeholders = [t for t in _texts(out.conversation).values() if t.startswith("[elided:")]
    assert placeholders
    for text in placeholders:
        ref = text.split("; ref ")[1].split(":")[0]
        assert f"`snapshot show {conv.id} {ref}`" in text  # the real id, not a stand-in
        message, block = ref.split("#")
        expected = conv.get(message).blocks[int(block)]
        assert isinstance(expected, ToolResult)
        assert original(conv, ref) == expected.text().encode()


def test_the_share_is_recorded_with_its_denominator() -> None:
    conv = _run([("bash", {"cmd": f"run {i}"}, "z" * 1000) for i in range(5)])
    out = elide(conv, keep_steps=1)
    assert out.record.data["tool_result_chars"] == tool_result_chars(conv.path())
    assert 0 < out.record.data["elided_chars"] < out.record.data["tool_result_chars"]


# --------------------------------------------------------------------------- hostile text


def test_elide_uses_no_regular_expression() -> None:
    """Identifiers come from one split and string methods: nothing can backtrack."""
    source = Path(elide_module.__file__).read_text(encoding="utf-8")
    assert "import re" not in source and "re.compile" not in source


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="aZ9_./-: \n", max_size=4000), st.integers(1, 250))
def test_identifier_work_is_one_piece_per_split(text: str, repeat: int) -> None:
    """Steps are bounded by the pieces of one split, each classified once."""
    hostile = text * repeat
    calls: list[int] = []

    def counting(token: str) -> bool:
        calls.append(len(token))
        return real(token)

    real = elide_module.is_identifier
    elide_module.is_identifier = counting
    try:
        elide_module.identifiers(hostile)
    finally:
        elide_module.is_identifier = real
    assert len(calls) <= len(hostile.split()) + 1
    assert sum(calls) <= len(hostile)


def test_a_megabyte_run_of_letters_compacts() -> None:
    from snapshot.ladder.ladder import FREE_RUNGS, LadderOptions, run_ladder
    from snapshot.ladder.target import target_for

    run = "a" * 1_000_000
    conv = _run([("bash", {"cmd": "cat blob"}, run), ("bash", {"cmd": "ls"}, "b" * 500)])
    out = elide(conv, keep_steps=0)
    assert _texts(out.conversation)["t0"].startswith("[elided:")
    target = target_for("gpt-5.1")
    free = LadderOptions(rungs=FREE_RUNGS, elide_keep_steps=1)
    result = run_ladder(conv, target, 2_000, options=free)
    assert result.fits and "elide" in result.rungs_taken


# --------------------------------------------------------------------------- real sessions


@pytest.mark.corpus
@pytest.mark.skipif(not REPRO.is_file(), reason=f"corpus conversation not found: {REPRO}")
@pytest.mark.parametrize("path", [REPRO, SESSION], ids=["subagent", "session"])
def test_real_sessions_lose_old_results_but_keep_what_later_steps_use(path: Path) -> None:
    from snapshot.transcript.formats import import_path

    conv = import_path(path)[0]
    out = elide(conv)
    share = out.record.data["elided_chars"] / out.record.data["tool_result_chars"]
    assert share > 0.05, share
    # Every placeholder resolves to the result it replaced.
    by_id = {m.id: m for m in conv.path()}
    for m in out.conversation.path():
        for j, b in enumerate(m.blocks):
            if isinstance(b, ToolResult) and b.text().startswith("[elided:"):
                ref = f"{m.id}#{j}"
                assert ref in b.text()
                source = by_id[m.id].blocks[j]
                assert isinstance(source, ToolResult)
                assert original(conv, ref) == source.text().encode()
    # Errors are never elided.
    errors = [r for m in out.conversation.path() for r in m.tool_results() if r.is_error]
    assert not [r for r in errors if r.text().startswith("[elided:")]


def test_a_dropped_image_leads_back_to_its_bytes() -> None:
    import numpy as np

    from snapshot.ladder.images import drop_images
    from snapshot.rendering.raster import to_png
    from snapshot.transcript.model import ImageBlock

    png = to_png(np.zeros((3, 4), np.uint8), (4, 3))
    shot = ImageBlock("image/png", png, width=4, height=3, origin="shot.png")
    conv = linear(
        "c",
        [
            ("u", "user", [TextBlock("look"), shot]),
            ("a", "assistant", [ToolCall("t", "screenshot", {})]),
            ("r", "tool", [ToolResult("t", (TextBlock("taken"), shot))]),
            ("z", "assistant", [TextBlock("ok")]),
        ],
    )
    out = drop_images(conv, keep_turns=0).conversation
    texts = [
        p.text
        for m in out.path()
        for b in m.blocks
        for p in (b.content if isinstance(b, ToolResult) else (b,))
        if isinstance(p, TextBlock) and p.text.startswith("[image dropped")
    ]
    refs = [t.split("; ref ")[1].split(":")[0] for t in texts]
    assert refs == ["u#1", "r#0.1"]
    for ref in refs:
        assert original(conv, ref) == png
