"""Live probes, offline: the battery, its scoring, records, and each SDK against a fake server.

No test reaches a real provider: every SDK is pointed at ``fake_provider`` on
127.0.0.1, and a guard fails any socket connection to another address.
"""

from __future__ import annotations

import base64
import functools
import io
import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_provider import FakeProvider, loopback_only

from snapshot.errors import LiveError, SnapshotError, UnknownModelError
from snapshot.legibility import probes, records
from snapshot.legibility.live_reader import reader_for
from snapshot.legibility.probes import Question, score_answer
from snapshot.profiles.probe_target import probe_target_for
from snapshot.providers import keys as api_keys
from snapshot.providers import live
from snapshot.readability.transcribe import TRANSCRIBE_PROMPT

# Key-shaped fakes: long enough that redaction by value applies, and shaped
# like the real thing so the pattern redaction is exercised too.
KEYS = {
    "anthropic": "sk-ant-api03-FAKEfakeFAKE0123456789abcdefXYZ",
    "openai": "sk-proj-FAKEfakeFAKE0123456789abcdefXYZ",
    "gemini": "AIzaFAKEfakeFAKE0123456789abcdefXYZ12345",
}
# The project's dense font: the page every live probe is about.
FONT = "snap5x8"
KEY_ENV = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")

# One model per way of sending a page: (model, api, provider, detail, media_resolution).
# The options follow each model's profile scheme: `original` where OpenAI offers
# it, `high` on tile models; Gemini 3's flat-budget level per image part, and
# none for Gemini 2.x, whose tiling is billed at the default.
CASES = [
    ("claude-sonnet-4-6", None, "anthropic", None, None),
    ("claude-opus-4-8", None, "anthropic", None, None),
    ("gpt-5.5", None, "openai", "original", None),
    ("gpt-4o", "responses", "openai", "high", None),
    ("gpt-5.4", "responses", "openai", "original", None),
    ("gemini-3-flash", None, "gemini", None, "MEDIA_RESOLUTION_HIGH"),
    ("gemini-2.5-pro", None, "gemini", None, None),
]
CASE_NAMES = ("model", "api", "provider", "detail", "level")
SDKS = {"anthropic": "anthropic", "openai": "openai", "gemini": "google.genai"}


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any connection that is not to the loopback fake server."""
    loopback_only(monkeypatch)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # A developer's real keys or base URLs must never be picked up by a test.
    for name in (
        *KEY_ENV,
        "ANTHROPIC_BASE_URL",
        "OPENAI_BASE_URL",
        "GOOGLE_GEMINI_BASE_URL",
        "GOOGLE_GENAI_USE_VERTEXAI",
        "GOOGLE_CLOUD_PROJECT",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    # The fake server is on loopback: no proxy may stand in between.
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(KEYS, "1: placeholder", max_requests=8, lifetime=60.0) as server:
        yield server


def tiny_png() -> bytes:
    from PIL import Image

    img = Image.new("1", (56, 28), 1)
    img.putpixel((3, 4), 0)
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def need_sdk(provider: str) -> None:
    pytest.importorskip(
        SDKS[provider], reason=f"the [live] extra ({provider} SDK) is not installed"
    )


# --- the battery ------------------------------------------------------------


def test_battery_is_deterministic_and_seeded() -> None:
    a, b = probes.make_battery(7, 20_000), probes.make_battery(7, 20_000)
    assert a == b
    assert probes.make_battery(8, 20_000).text != a.text


@pytest.mark.parametrize("seed", range(40))
def test_battery_plants_every_kind_and_never_states_the_absent(seed: int) -> None:
    capacity = 6_000 + 700 * seed
    bat = probes.make_battery(seed, capacity)
    assert len(bat.text) <= capacity
    kinds = [q.kind for q in bat.questions]
    assert kinds.count("hex") == 2 and kinds.count("number") == 2
    assert kinds.count("identifier") == 2 and kinds.count("gist") == 1
    assert kinds.count("never_stated") == 2
    assert [q.qid for q in bat.questions] == list(range(1, len(bat.questions) + 1))
    for value in bat.planted:
        assert value in bat.text
    for q in bat.questions:
        if q.kind in ("hex", "number", "identifier"):
            assert q.expected in bat.text
    # The case-contrast twin is on the page, so a case slip reads a real name.
    camel = next(
        q.expected for q in bat.questions if q.kind == "identifier" and "-" not in q.expected
    )
    assert camel[0].upper() + camel[1:] in bat.text
    # Needles are spread over the page, not bunched at the top.
    lines = bat.text.splitlines()
    hits = [i for i, line in enumerate(lines) if any(v in line for v in bat.planted)]
    assert max(hits) - min(hits) > len(lines) // 4


def test_prompt_numbers_every_question_and_asks_for_not_stated() -> None:
    bat = probes.make_battery(3, 10_000)
    prompt = bat.prompt()
    assert "not stated" in prompt and "illegible" in prompt
    for q in bat.questions:
        assert f"{q.qid}. {q.text}" in prompt
    # The answers themselves never leak into the questions.
    for q in bat.questions:
        if q.kind in ("hex", "number", "identifier"):
            assert q.expected not in prompt


def test_battery_refuses_a_page_too_small() -> None:
    with pytest.raises(ValueError, match="too small"):
        probes.make_battery(0, 500)


# --- scoring ----------------------------------------------------------------

HEX = Question(1, "hex", "digest?", "3fa9c0e1b27d4411")
NUM = Question(2, "number", "rows?", "5,861,728")
DEC = Question(3, "number", "p99?", "1.6818")
CAMEL = Question(4, "identifier", "helper?", "loadLedgerEntry")
TRAP = Question(5, "identifier", "job?", "job-O0l1Ia0b")
GIST = Question(6, "gist", "about? A) x; B) y", "B")
NEVER = Question(7, "never_stated", "port?", "not stated")


@pytest.mark.parametrize(
    ("question", "answer", "score"),
    [
        (HEX, "3fa9c0e1b27d4411", "exact"),
        (HEX, "`3fa9c0e1b27d4411`", "exact"),
        (HEX, "3FA9C0E1B27D4411", "exact"),  # same value; case traps are identifiers' job
        (HEX, "The digest is 3fa9c0e1b27d4411.", "exact"),
        (HEX, "3fa9c0e1b27d44l1", "wrong"),  # l for 1: a silent substitution
        (HEX, "3fa9c0e1b27d8411", "wrong"),  # 8 for 4
        (HEX, "3fa9c0e1b27d4411 or 3fa9c0e1b27d4471", "wrong"),  # a hedge is not a read
        (HEX, "illegible", "abstained"),
        (HEX, "not stated", "abstained"),  # it is on the page: saying otherwise abstains
        (HEX, "", "abstained"),
        (HEX, None, "abstained"),
        (NUM, "5,861,728", "exact"),
        (NUM, "5861728", "exact"),
        (NUM, "5861728 rows", "exact"),
        (NUM, "5,867,728", "wrong"),
        (DEC, "1.6818", "exact"),
        (DEC, "1.6818 s", "exact"),
        (DEC, "1.6B18", "wrong"),
        (DEC, "1.6818s", "exact"),
        (DEC, "1.6818ms", "exact"),  # the unit is the question's; the digits were read
        (CAMEL, "loadLedgerEntry()", "exact"),
        (CAMEL, "loadLedgerEntry", "exact"),
        (CAMEL, "LoadLedgerEntry", "wrong"),  # the case-contrast twin
        (CAMEL, "I cannot read it with certainty", "abstained"),
        (TRAP, "job-O0l1Ia0b", "exact"),
        (TRAP, "job-00l1Ia0b", "wrong"),  # O read as 0
        (TRAP, "job-O0I1Ia0b", "wrong"),  # l read as I
        (GIST, "B", "exact"),
        (GIST, "B) y", "exact"),
        (GIST, "A", "wrong"),
        (GIST, "illegible", "abstained"),
        (NEVER, "not stated", "exact"),
        (NEVER, "Not stated.", "exact"),
        (NEVER, "The page does not mention it", "exact"),
        (NEVER, "No exit code is stated on the page.", "exact"),
        (NEVER, "N/A", "exact"),
        (NEVER, "It is never mentioned", "exact"),
        (NEVER, "9100", "wrong"),  # a confabulated port
        (NEVER, "Probably 9100 (not visible clearly)", "wrong"),  # a hedged invention
        (NEVER, "not stated on page 1", "exact"),
        (NEVER, "illegible", "abstained"),
    ],
)
def test_scoring(question: Question, answer: str | None, score: str) -> None:
    result = score_answer(question, answer)
    assert result.score == score, (question.expected, answer, result)


# The swaps a 5-px font invites; each keeps the value's shape.
SWAPS = {"0": "O", "O": "0", "1": "l", "l": "1", "I": "1", "8": "B", "b": "6", "6": "b", "5": "S"}


@pytest.mark.parametrize("seed", range(25))
def test_every_single_glyph_swap_in_a_planted_value_scores_wrong(seed: int) -> None:
    bat = probes.make_battery(seed, 4_000)
    for q in bat.questions:
        if q.kind not in ("hex", "number", "identifier"):
            continue
        assert score_answer(q, q.expected).score == "exact"
        for i, ch in enumerate(q.expected):
            swap = SWAPS.get(ch)
            if swap is None:
                continue
            misread = q.expected[:i] + swap + q.expected[i + 1 :]
            got = score_answer(q, misread)
            assert (got.score, got.distance) == ("wrong", 1), (q.expected, misread, got)


def test_wrong_answers_carry_their_edit_distance() -> None:
    assert score_answer(HEX, "3fa9c0e1b27d44l1").distance == 1
    assert score_answer(TRAP, "job-00l1Ia0b").distance == 1
    assert score_answer(HEX, "3fa9c0e1b27d4411").distance == 0


def test_parse_answers_tolerates_preamble_fences_and_styles() -> None:
    reply = "Here are my answers:\n```\n1: abc\n2. def\n 3) ghi\n- 4: jkl\nQ5: mno\n1: late\n9: out\n```"
    assert probes.parse_answers(reply, 5) == {1: "abc", 2: "def", 3: "ghi", 4: "jkl", 5: "mno"}


def test_parse_answers_in_markdown_and_json_drift() -> None:
    reply = '**1.** abc\n## 2: def\n{\n  "3": "ghi",\n  "4": "not stated"\n}'
    answers = probes.parse_answers(reply, 4)
    assert {k: probes._clean(v) for k, v in answers.items()} == {
        1: "abc",
        2: "def",
        3: "ghi",
        4: "not stated",
    }


def test_scoring_a_whole_reply() -> None:
    bat = probes.make_battery(5, 12_000)
    assert {r.score for r in probes.score_reply(bat, probes.canned_reply(bat))} == {"exact"}
    hexq = next(q for q in bat.questions if q.kind == "hex")
    never = next(q for q in bat.questions if q.kind == "never_stated")
    wrong_hex = ("0" if hexq.expected[0] != "0" else "1") + hexq.expected[1:]
    reply = probes.canned_reply(bat, [(hexq.qid, wrong_hex), (never.qid, "8080")])
    silent = next(q.qid for q in bat.questions if q.qid not in (hexq.qid, never.qid))
    reply = "\n".join(line for line in reply.splitlines() if not line.startswith(f"{silent}:"))
    got = {r.qid: r.score for r in probes.score_reply(bat, reply)}
    assert got[hexq.qid] == "wrong" and got[never.qid] == "wrong"
    assert got[silent] == "abstained"  # a missing answer is silence, not a confabulation
    assert probes.counts(probes.score_reply(bat, reply))["wrong"] == 2


# --- redaction and records ---------------------------------------------------


def test_redact_known_secrets_and_key_shapes() -> None:
    text = (
        f"bad key {KEYS['openai']} and {KEYS['anthropic']} and {KEYS['gemini']}; "
        "Authorization: Bearer abcdefgh12345678; echoed sk-proj-****************XYZ1"
    )
    out = api_keys.redact(text, ["my-custom-secret-value"])
    for key in KEYS.values():
        assert key not in out
    assert "abcdefgh12345678" not in out and "****XYZ1" not in out
    assert api_keys.redact("token my-custom-secret-value", ["my-custom-secret-value"]) == (
        "token [REDACTED]"
    )
    # Short "secrets" are not substituted everywhere: that would wreck a record.
    assert api_keys.redact("a cat", ["a"]) == "a cat"


def make_record(**kw: Any) -> records.ProbeRecord:
    base: dict[str, Any] = {
        "model": "claude-sonnet-4-6",
        "provider": "anthropic",
        "api": "messages",
        "profile": None,
        "font": "snap5x8",
        "page_sha256": "ab" * 32,
        "page_size": (1568, 728),
        "seed": 0,
        "battery": probes.BATTERY,
        "image_options": {},
        "questions": (records.QuestionResult(1, "hex", "q?", "00ff", "00ff", "exact", 0),),
        "reply": "1: 00ff",
        "timestamp": "2026-11-29T23:59:00Z",
        "duration_s": 1.5,
        "usage": {"input_tokens": 10},
        "snapshot_version": "0.1.0",
    }
    base.update(kw)
    return records.ProbeRecord(**base)


def test_record_round_trip_naming_and_no_overwrite(tmp_path: Path) -> None:
    rec = make_record(model="anthropic/claude opus")
    first = records.save(rec, tmp_path)
    second = records.save(rec, tmp_path)
    assert first.name == "2026-11-29-anthropic_claude_opus-abababab.json"
    assert second.name == "2026-11-29-anthropic_claude_opus-abababab-2.json"
    assert records.load(first) == rec
    data = json.loads(first.read_text())
    assert data["counts"] == {"exact": 1, "abstained": 0, "wrong": 0}
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_record_redacts_a_key_that_came_back_in_a_reply(tmp_path: Path) -> None:
    key = KEYS["openai"]
    rec = make_record(
        reply=f"1: {key}",
        questions=(records.QuestionResult(1, "hex", "q?", "00ff", key, "wrong", 30),),
    )
    path = records.save(rec, tmp_path, secrets=[key])
    assert key not in path.read_text()
    assert "[REDACTED]" in path.read_text()


def test_load_rejects_what_is_not_a_record(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text("[1, 2]")
    with pytest.raises(SnapshotError, match="not a probe record"):
        records.load(bad)
    bad.write_text('{"schema": "other"}')
    with pytest.raises(SnapshotError, match="not a probe record"):
        records.load(bad)


# --- targets, keys, the extra ---------------------------------------------------


@pytest.mark.parametrize(CASE_NAMES, CASES)
def test_target_follows_the_model_profile(
    model: str, api: str | None, provider: str, detail: str | None, level: str | None
) -> None:
    import dataclasses

    from snapshot.profiles import profile_for

    t = probe_target_for(model, api=api, font=FONT)
    assert (t.provider, t.detail, t.media_resolution) == (provider, detail, level)
    # "original" is no Chat Completions detail in OpenAI's published spec: such a
    # page goes to Responses unless the caller names an API.
    openai_api = "chat" if detail in live.CHAT_DETAILS else "responses"
    default_api = {"anthropic": "messages", "openai": openai_api, "gemini": "generate_content"}
    assert t.api == (api or default_api[provider])
    if t.api == "chat" and api is None:
        assert t.detail in live.CHAT_DETAILS
    profile = profile_for(model)
    assert (t.profile, t.family, t.font) == (profile.canonical, profile.family, FONT)
    # The page is the one the profile solves for this font: no resize at the provider.
    assert t.page_size == dataclasses.replace(profile, font=FONT).solution().size
    # ... and the probe draws it with the profile's own geometry.
    assert t.geometry() == dataclasses.replace(profile, font=FONT).geometry()
    assert t.geometry().size == t.page_size


def test_target_for_a_model_newer_than_the_tables_uses_the_fallback_page() -> None:
    import dataclasses

    from snapshot.profiles import fallback_profile

    t = probe_target_for("claude-opus-9", font=FONT)
    assert (t.provider, t.api, t.profile, t.family) == ("anthropic", "messages", None, None)
    assert t.page_size == dataclasses.replace(fallback_profile("x"), font=FONT).solution().size
    assert probe_target_for("gemini-9-flash", font=FONT).media_resolution == "MEDIA_RESOLUTION_HIGH"
    assert probe_target_for("gpt-9", font=FONT).detail == "high"


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("o3-mini", "no vision input"),
        ("grok-4.5", "served by xai"),
        ("anthropic.claude-sonnet-4-5-20250929-v1:0", "goes through bedrock"),
    ],
)
def test_models_a_live_probe_cannot_reach_are_user_errors(model: str, message: str) -> None:
    with pytest.raises(LiveError, match=message):
        probe_target_for(model, font=FONT)


def test_unknown_model_and_api_are_user_errors() -> None:
    with pytest.raises(UnknownModelError, match="no live provider"):
        probe_target_for("llama-3-70b", font=FONT)
    with pytest.raises(LiveError, match="no 'responses' API"):
        probe_target_for("claude-sonnet-4-6", api="responses", font=FONT)


def test_key_from_env_prefers_gemini_key_and_names_the_variable() -> None:
    env = {"GOOGLE_API_KEY": "g-second", "GEMINI_API_KEY": "g-first"}
    assert live.key_from_env("gemini", env) == "g-first"
    assert live.key_from_env("gemini", {"GOOGLE_API_KEY": "g-second"}) == "g-second"
    with pytest.raises(live.MissingKeyError, match="GEMINI_API_KEY or GOOGLE_API_KEY"):
        live.key_from_env("gemini", {"GEMINI_API_KEY": "  "})
    with pytest.raises(live.MissingKeyError, match=r"probing gpt-5\.5 needs OPENAI_API_KEY"):
        live.key_from_env("openai", {}, model="gpt-5.5")


def test_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)  # import now raises ImportError
    with pytest.raises(live.MissingExtraError, match=r"pip install 'snapshot\[live\]'"):
        live.import_sdk("anthropic")


def test_sdk_log_records_are_redacted_during_a_call(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    key = KEYS["openai"]
    logging.getLogger("openai._base_client")  # exists once the SDK is imported
    # The SDK adds its own filter when imported (the validators import it too).
    with api_keys.redacting_logs((key,)):
        logging.getLogger("openai._base_client").debug("headers: %s", {"authorization": key})
    logging.getLogger("openai._base_client").debug("after the call")
    assert key not in caplog.text
    assert "[REDACTED]" in caplog.text and "after the call" in caplog.text
    # removed afterwards (the SDK may hold filters of its own once a client was made)
    assert not any(
        isinstance(f, api_keys._Redactor) for f in logging.getLogger("openai._base_client").filters
    )


# --- each SDK against the fake server -------------------------------------------


@pytest.mark.parametrize(CASE_NAMES, CASES)
def test_ask_sends_the_page_as_the_provider_expects(
    fake: FakeProvider,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
    model: str,
    api: str | None,
    provider: str,
    detail: str | None,
    level: str | None,
) -> None:
    need_sdk(provider)
    caplog.set_level(logging.DEBUG)  # SDK debug logs must not carry the key either
    png = tiny_png()
    target = probe_target_for(model, api=api, font=FONT)
    reply = live.ask(
        target,
        png,
        "What is on the page?",
        api_key=KEYS[provider],
        base_url=fake.base_url(provider),
        timeout=10,
        max_retries=0,
    )
    assert reply.text == "1: placeholder"
    assert reply.usage.get("output_tokens") == 42
    assert len(fake.requests) == 1
    rec = fake.requests[0]
    assert rec.problems == []
    assert (rec.provider, rec.api, rec.model) == (
        provider,
        target.api,
        model,
    )
    assert rec.png == png  # the exact bytes, not a re-encoding
    assert rec.prompt == "What is on the page?"
    assert (rec.detail, rec.media_resolution) == (detail, level)
    if level is not None:
        assert rec.media_resolution_scope == "part"
    assert rec.auth_header in ("authorization", "x-api-key", "x-goog-api-key")
    out, err = capfd.readouterr()
    for key in KEYS.values():
        assert key not in caplog.text and key not in out and key not in err


def test_fake_server_rejects_a_malformed_request(fake: FakeProvider) -> None:
    # The fake's checks must be able to fail: a request with the key in the
    # body, a JPEG media type, no text part and a bogus detail is refused.
    import urllib.request

    body = {
        "model": "gpt-5.5",
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "image_url",
                        "image_url": {
                            "url": "data:image/jpeg;base64," + base64.b64encode(b"x").decode(),
                            "detail": "ultra",
                        },
                    }
                ],
            }
        ],
        "note": KEYS["openai"],
    }
    req = urllib.request.Request(
        fake.base_url("openai") + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "x-api-key": KEYS["openai"]},
    )
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=10)
    assert err.value.code == 400
    problems = " | ".join(fake.problems)
    for expected in (
        "API key appears in the request body",
        "API key appears in header 'x-api-key'",
        "no valid openai auth header",
        "not a data:image/png;base64 URL",
        "no text prompt",
    ):
        assert expected in problems
    assert KEYS["openai"] not in json.dumps(fake.requests[0].headers)


def test_fake_server_budget_is_bounded() -> None:
    import urllib.request

    with FakeProvider(KEYS, "x", max_requests=1, lifetime=10.0) as server:
        codes = []
        for _ in range(2):
            req = urllib.request.Request(
                server.base_url("anthropic") + "/v1/messages", data=b"{}", method="POST"
            )
            try:
                urllib.request.urlopen(req, timeout=5)
            except urllib.error.HTTPError as exc:
                codes.append(exc.code)
        assert codes == [400, 429]
        assert len(server.requests) == 1


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
@pytest.mark.parametrize("retries", [0, 1])
def test_retries_are_bounded_by_max_retries(provider: str, retries: int) -> None:
    need_sdk(provider)
    model = {"anthropic": "claude-sonnet-4-6", "openai": "gpt-5.5", "gemini": "gemini-3-flash"}
    with FakeProvider(
        KEYS, "", max_requests=6, lifetime=60.0, fail_status=503, fail_message="overloaded"
    ) as server:
        with pytest.raises(LiveError, match="overloaded"):
            live.ask(
                probe_target_for(model[provider], font=FONT),
                tiny_png(),
                "q",
                api_key=KEYS[provider],
                base_url=server.base_url(provider),
                timeout=10,
                max_retries=retries,
            )
        assert len(server.requests) == retries + 1
        assert server.problems == []


def test_fake_server_stops_by_itself() -> None:
    import time
    import urllib.request

    server = FakeProvider(KEYS, "x", max_requests=4, lifetime=0.3)
    server.start()
    url = server.base_url("anthropic") + "/v1/messages"
    time.sleep(1.0)
    with pytest.raises(OSError):  # connection refused: nobody listens any more
        urllib.request.urlopen(urllib.request.Request(url, data=b"{}"), timeout=2)
    server.stop()  # idempotent


def test_env_secrets_collects_every_provider_key() -> None:
    env = {"OPENAI_API_KEY": "a-key-1", "GOOGLE_API_KEY": "g-key-2", "HOME": "/root"}
    assert set(api_keys.env_secrets(env)) == {"a-key-1", "g-key-2"}


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
def test_provider_errors_are_one_line_and_never_quote_the_key(provider: str) -> None:
    need_sdk(provider)
    key = KEYS[provider]
    model = {"anthropic": "claude-sonnet-4-6", "openai": "gpt-5.5", "gemini": "gemini-3-flash"}[
        provider
    ]
    # Some providers echo the key they rejected; the error must not pass it on.
    with FakeProvider(
        KEYS,
        "",
        max_requests=4,
        lifetime=30.0,
        fail_status=401,
        fail_message=f"Incorrect API key provided: {key}",
    ) as server:
        with pytest.raises(LiveError) as err:
            live.ask(
                probe_target_for(model, font=FONT),
                tiny_png(),
                "q",
                api_key=key,
                base_url=server.base_url(provider),
                timeout=10,
                max_retries=0,
            )
        assert len(server.requests) == 1  # no retries were asked for: none made
    message = str(err.value)
    assert key not in message and "\n" not in message
    assert model in message and "REDACTED" in message


# --- end to end: rendered page, SDK, fake server, scoring, record ------------------


@pytest.fixture(scope="module")
def page() -> probes.ProbePage:
    return probes.build_page(seed=11, font=FONT)


@functools.cache
def page_for(model: str, api: str | None) -> probes.ProbePage:
    """The page run_probe draws for ``model``: its profile's size, in FONT."""
    return probes.build_page(11, geometry=probe_target_for(model, api=api, font=FONT).geometry())


def test_build_page_refuses_a_page_too_small_for_the_battery() -> None:
    with pytest.raises(SnapshotError, match="needs 900"):
        probes.build_page(0, FONT, (200, 100))


def test_build_page_draws_every_planted_value_on_one_page(page: probes.ProbePage) -> None:
    import hashlib

    from snapshot.rendering.decode import load_png, read
    from snapshot.rendering.glyphs import load_font

    assert page.png.startswith(b"\x89PNG")
    assert page.sha256 == hashlib.sha256(page.png).hexdigest()
    assert page.size == probes.DEFAULT_PAGE_SIZE
    assert probes.build_page(seed=11, font=FONT) == page  # deterministic bytes
    # The project's own decoder reads every planted value back off the pixels:
    # the page is fair, so a model's miss is the model's.
    text = read(load_png(page.png), load_font(FONT))
    for value in page.battery.planted:
        assert value in text


@pytest.mark.parametrize(CASE_NAMES, CASES)
def test_probe_end_to_end(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    model: str,
    api: str | None,
    provider: str,
    detail: str | None,
    level: str | None,
) -> None:
    need_sdk(provider)
    caplog.set_level(logging.DEBUG)
    page = page_for(model, api)
    bat = page.battery
    hexq = next(q for q in bat.questions if q.kind == "hex")
    never = next(q for q in bat.questions if q.kind == "never_stated")
    ident = next(q for q in bat.questions if q.kind == "identifier" and "-" not in q.expected)
    canned = probes.canned_reply(
        bat,
        [
            (hexq.qid, "illegible"),  # abstained
            (never.qid, "4317"),  # confabulated
            (ident.qid, ident.expected[0].upper() + ident.expected[1:]),  # case slip
        ],
    )
    with FakeProvider(KEYS, canned, max_requests=2, lifetime=60.0) as server:
        record = probes.run_probe(
            model,
            font=FONT,
            seed=11,
            api=api,
            api_key=KEYS[provider],
            base_url=server.base_url(provider),
            timeout=20,
            max_retries=0,
        )
        assert len(server.requests) == 1
        rec = server.requests[0]
    assert rec.problems == []
    assert rec.png == page.png
    assert rec.prompt == bat.prompt()
    assert (rec.detail, rec.media_resolution) == (detail, level)
    assert record.page_sha256 == page.sha256
    assert record.counts() == {"exact": len(bat.questions) - 3, "abstained": 1, "wrong": 2}
    by_id = {q.qid: q for q in record.questions}
    assert by_id[hexq.qid].score == "abstained"
    assert by_id[never.qid].score == "wrong"
    assert by_id[ident.qid].score == "wrong" and by_id[ident.qid].distance == 1
    assert record.image_options == probe_target_for(model, api=api, font=FONT).image_options()
    assert record.page_size == page.size and record.font == FONT
    path = records.save(record, tmp_path)
    assert path.name.startswith(record.timestamp[:10] + "-" + model)
    assert path.name.endswith(page.sha256[:8] + ".json")
    assert records.load(path) == record
    text = path.read_text()
    for key in KEYS.values():
        assert key not in text and key not in caplog.text


# --- the command line ------------------------------------------------------------


def cli(argv: list[str]) -> int:
    import argparse

    from snapshot.cli import main
    from snapshot.cli import probe as probe_cli

    try:
        return main(argv)
    except ModuleNotFoundError:
        # Another group's CLI module has not landed yet: drive this one alone,
        # through the same error handling as main().
        parser = argparse.ArgumentParser(prog="snapshot")
        probe_cli.register(parser.add_subparsers(dest="command", required=True))
        args = parser.parse_args(argv)
        try:
            return int(args.func(args))
        except SnapshotError as exc:
            print(f"snapshot: error: {exc}", file=sys.stderr)
            return 2


def test_cli_lists_probe() -> None:
    from snapshot.cli import COMMAND_MODULES

    assert "snapshot.cli.probe" in COMMAND_MODULES


@pytest.mark.parametrize(
    ("model", "var"),
    [
        ("claude-opus-4-8", "ANTHROPIC_API_KEY"),
        ("gpt-5.5", "OPENAI_API_KEY"),
        ("gemini-3-flash", "GEMINI_API_KEY"),
    ],
)
def test_cli_without_a_key_says_which_variable_in_one_line(
    model: str, var: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code = cli(["probe", "--model", model, "--out", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and var in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_cli_with_a_key_but_no_sdk_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEYS["openai"])
    monkeypatch.setitem(sys.modules, "openai", None)  # import now raises ImportError
    code = cli(
        [
            "probe",
            "--battery",
            "questions",
            "--model",
            "gpt-5.5",
            "--font",
            FONT,
            "--out",
            str(tmp_path),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "pip install 'snapshot[live]'" in err
    assert KEYS["openai"] not in err
    assert list(tmp_path.iterdir()) == []


def test_cli_unknown_model_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["probe", "--model", "llama-3-70b"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no live provider" in err


def test_cli_probe_writes_a_dated_record_and_json(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    need_sdk("anthropic")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEYS["anthropic"])
    page = page_for("claude-sonnet-4-6", None)
    canned = probes.canned_reply(page.battery)
    with FakeProvider(KEYS, canned, max_requests=2, lifetime=60.0) as server:
        code = cli(
            [
                "probe",
                "--battery",
                "questions",
                "--model",
                "claude-sonnet-4-6",
                "--seed",
                "11",
                "--font",
                FONT,
                "--out",
                str(tmp_path / "probes"),
                "--base-url",
                server.base_url("anthropic"),
                "--timeout",
                "20",
                "--json",
            ]
        )
        assert len(server.requests) == 1 and server.problems == []
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert data["counts"]["exact"] == len(page.battery.questions)
    saved = Path(data["record_path"])
    assert saved.parent == tmp_path / "probes" and saved.exists()
    assert saved.name.endswith(f"-claude-sonnet-4-6-{page.sha256[:8]}.json")
    assert KEYS["anthropic"] not in out + err + saved.read_text()

    # The table form says the same in words.
    with FakeProvider(KEYS, canned, max_requests=2, lifetime=60.0) as server:
        code = cli(
            [
                "probe",
                "--battery",
                "questions",
                "--model",
                "claude-sonnet-4-6",
                "--seed",
                "11",
                "--font",
                FONT,
                "--out",
                str(tmp_path / "probes"),
                "--base-url",
                server.base_url("anthropic"),
            ]
        )
    out = capsys.readouterr().out
    assert code == 0
    assert f"exact {len(page.battery.questions)}/{len(page.battery.questions)}" in out
    assert "record: " in out and len(list((tmp_path / "probes").iterdir())) == 2


def test_cli_needle_battery_is_the_default_and_writes_a_record(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`snapshot probe --model M`: the report's pages, transcribed, needles counted."""
    need_sdk("anthropic")
    from snapshot.rendering.decode import load_png, read
    from snapshot.rendering.glyphs import load_font

    def transcribe(rec: Any) -> str:
        return str(read(load_png(rec.png), load_font("snap8x16")))

    monkeypatch.setenv("ANTHROPIC_API_KEY", KEYS["anthropic"])
    with FakeProvider(KEYS, transcribe, max_requests=8, lifetime=120.0) as server:
        code = cli(
            [
                "probe",
                "--model",
                "claude-sonnet-4-5",
                "--out",
                str(tmp_path),
                "--base-url",
                server.base_url("anthropic"),
            ]
        )
        assert server.requests and server.problems == []
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "needles found" in out and "95 % Wilson" in out and "record: " in out
    (saved,) = tmp_path.iterdir()
    data = json.loads(saved.read_text())
    assert data["schema"] == "snapshot.needle-probe/1" and data["preregistered"] is True
    assert data["summary"]["found"] == data["summary"]["needles"] > 0
    assert KEYS["anthropic"] not in out + err + saved.read_text()


def test_cli_font_belongs_to_the_question_battery(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["probe", "--model", "claude-sonnet-4-5", "--font", FONT]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--battery questions" in err


# ---------------------------------------------------------------------------- tune --reader live


def _decoder_transcribes(font_name: str) -> Any:
    """A stand-in for the model on the fake server: the project's own decoder reads the page.

    Everything is imported and loaded here, before the server thread needs it.
    """
    from snapshot.rendering.decode import load_png
    from snapshot.rendering.decode import read as decode
    from snapshot.rendering.glyphs import load_font

    font = load_font(font_name)

    def reply(rec: Any) -> str:
        if rec.png is None or rec.prompt != TRANSCRIBE_PROMPT:
            return "not the page and prompt the line reader sends"
        return decode(load_png(rec.png), font)

    return reply


def test_line_reader_sends_the_whole_page_once_and_maps_rows_to_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from snapshot.legibility.readers import line_geometry, measure
    from snapshot.rendering.glyphs import load_font

    monkeypatch.setenv("ANTHROPIC_API_KEY", KEYS["anthropic"])
    lines = ["def f(x): return x + 1", "id 9f8e7d6c2b1a", "ValueError: bad input"]
    geometry = line_geometry(load_font("snap8x16"), lines)
    with FakeProvider(KEYS, _decoder_transcribes("snap8x16"), max_requests=4) as server:
        reader = reader_for("claude-sonnet-5-5", base_url=server.base_url("anthropic"))
        m = measure(reader, lines, geometry)
        assert len(server.requests) == 1  # one page, one request, every row from it
        assert server.requests[0].problems == []
    assert m.reader == "live:claude-sonnet-5-5"
    assert m.readings == tuple(lines)  # the header line the decoder also gives is dropped
    assert m.char_accuracy == 1.0


def test_line_reader_keeps_rows_aligned_when_the_model_adds_a_closing_remark(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from snapshot.legibility.readers import line_geometry, measure
    from snapshot.rendering.glyphs import load_font

    monkeypatch.setenv("ANTHROPIC_API_KEY", KEYS["anthropic"])
    lines = ["def f(x): return x + 1", "id 9f8e7d6c2b1a", "ValueError: bad input"]
    geometry = line_geometry(load_font("snap8x16"), lines)
    transcribe = _decoder_transcribes("snap8x16")
    remark = lambda rec: transcribe(rec) + "\nThat is the whole page."  # noqa: E731
    with FakeProvider(KEYS, remark, max_requests=4, lifetime=600) as server:
        reader = reader_for("claude-sonnet-5-5", base_url=server.base_url("anthropic"))
        m = measure(reader, lines, geometry)
    # Dropping extra lines from the top (as before) would shift every row by one.
    assert m.readings == tuple(lines)


def test_tune_reader_live_runs_against_the_endpoint_given(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from snapshot.cli import main

    monkeypatch.setenv("ANTHROPIC_API_KEY", KEYS["anthropic"])
    out = tmp_path / "p.json"
    with FakeProvider(KEYS, "nothing legible", max_requests=64) as server:
        code = main(
            ["tune", "--model", "claude-sonnet-5-5", "--reader", "live", "--lines", "3",
             "--font", "snap8x16", "--base-url", server.base_url("anthropic"), "--out", str(out)]
        )  # fmt: skip
        sent = list(server.requests)
    text = capsys.readouterr().out
    assert code == 1 and not out.exists()  # a model that reads nothing wins nothing
    assert "live:claude-sonnet-5-5 reader" in text
    assert sent and all(r.png and not r.problems for r in sent)
    assert KEYS["anthropic"] not in text


def test_tune_reader_live_without_a_key_is_one_clear_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from snapshot.cli import main

    code = main(["tune", "--model", "claude-sonnet-5-5", "--reader", "live", "--lines", "2"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "ANTHROPIC_API_KEY" in err
