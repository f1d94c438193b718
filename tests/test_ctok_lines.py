"""Claude counts line by line (snapshot.billing.ctok_lines) equal ctok's own, text for text.

The full check over every distinct message of the benchmark corpus is
``bench/test_ctok_lines.py``; here a fixed sample of edge cases at the cuts
(newlines after and before spaces, seam spaces beside contractions, case
markers, marks, digits, CJK, trailing newlines), one real session's messages,
and Hypothesis-drawn texts over an alphabet of those characters.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ctok = pytest.importorskip("ctok")

from snapshot.billing.ctok_lines import content_tokens  # noqa: E402
from snapshot.billing.text_tokens import _ctok_count, _ctok_overhead  # noqa: E402

VERSIONS = ("3.0", "4.7", "4.8")
SESSION = Path(
    "/work/shared/corpus/claude_code_log_real/-Users-dain-workspace-danieldemmel-me-next/"
    "9e953218-585f-4692-89df-9e0747a31c68.jsonl"
)

SAMPLE = [
    "hello world\nhello world\n",
    "def f(x):\n    return x  # ok\n\nIt's DONE.\n",
    "a 'b c\nx 'REXX it's\nwe'll go\n'First line",
    " leading space\nThen Title Case Words and ALLCAPS WORDS here",
    "  two leading\n\n\nthree blank lines before\n\n",
    "tab\there\nCRLF line\r\nnext\rcarriage",
    '{\n  "name": "x-vercel-cache",\n  "value": "HIT"\n}\n',
    "café naïve\ne\u0301 combining\n\u0301 stray mark after newline",
    "digits 123 and ٣٤٥ and ½ and 1st\n2nd line 99 bottles",
    "中文 text\n日本語 and 한국어 words\nemoji 🙂 here",
    "İstanbul ẞTRASSE ϴ mixed\nWiFi GaN QQ\n",
    "curly \u2018quotes\u2019 and \u201cdouble\u201d\nagain",
    "markers \ufdd0 \ufdd1 literal\nnext line",
    "a\u00a0b\u2003c nbsp\nx\u3000y",
    "end with many newlines" + "\n" * 30,
    "word\n",
    "x\ny",
    "\nstarts with a newline\nand goes on",
    "[user #3682fb9a]\nAre you sure the HTML is the issue? That's the only thing.",
]


def _ctok(text: str, version: str) -> int:
    """ctok's own count of the text, its message frame taken off (as the counter does)."""
    return int(ctok.token_count(text, version)) - _ctok_overhead(version)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("text", SAMPLE)
def test_same_as_ctok(text: str, version: str) -> None:
    split = content_tokens(text, version)
    assert split is None or split == _ctok(text, version)


def test_the_sample_is_split() -> None:
    # Most of the sample goes through the split: the check above is not vacuous.
    assert sum(content_tokens(t, "4.8") is not None for t in SAMPLE) >= len(SAMPLE) - 3


def test_the_counter_uses_it() -> None:
    text = "one line\nand another line\n"
    assert _ctok_count(text, "4.8") == max(0, _ctok(text, "4.8"))


@pytest.mark.skipif(not SESSION.is_file(), reason=f"corpus session absent: {SESSION}")
def test_a_real_session() -> None:
    from snapshot.ladder.serialize import serialize_message
    from snapshot.report.sources import path_sources
    from snapshot.transcript.discover import find

    refs, _ = path_sources(find([str(SESSION)]))
    texts = [serialize_message(m) for m in refs[0].load().conversation.path()][:60]
    for text in texts:
        split = content_tokens(text, "4.8")
        assert split is None or split == _ctok(text, "4.8"), text[:200]


ALPHABET = [
    *"aAzZsStT ' \n\n\t\r.,;:!?-_()[]{}\"'019",
    "it",
    "IT",
    "ll",
    "re",
    "\u0301",
    "é",
    "İ",
    "ẞ",
    "٣",
    "½",
    "文",
    "한",
    "🙂",
    "\ufe0f",
    "\u00a0",
    "\u3000",
    "\ufdd0",
    "—",
    "…",
    "Hello",
    "WORLD",
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(ALPHABET), max_size=40).map("".join), st.sampled_from(VERSIONS))
def test_drawn_texts(text: str, version: str) -> None:
    split = content_tokens(text, version)
    assert split is None or split == _ctok(text, version)


# -- the ASCII path: ctok's stream_norm, the branches ASCII cannot reach taken out --------

ASCII_ALPHABET = [
    *"aAzZsStTdDmM ' \n\n\t.,;:!?-_()[]{}\"'019=/\\|@#$%^&*~`<>+",
    "  ",
    "it",
    "IT",
    "ll",
    "re",
    "ve",
    "Hello",
    "WORLD",
    "WiFi",
    "0x1F",
    "3f2a9c",
]
ASCII_SAMPLE = [t for t in SAMPLE if t.isascii() and "\r" not in t] + [
    "  two leading spaces",
    " one leading space",
    "'First quote, it's THE END.'",
    "x 'REXX a 'b don't we'll I'M",
    "'s at the start, 'll and 've",
    "A I IT ITS ITSELF Ab AB aB",
    "id=8b388a0d-a9 trace=c3ae9e4a at src/payments/api.py:40\n\n",
    "",
    "\n\n",
    "ALL CAPS AND Title And lower",
]


def _ascii_streams(text: str, version: str) -> tuple[str, str] | None:
    """(the ASCII path's stream, ctok's) of ``text`` folded as ctok folds it, for both
    readings of a head space; None if the fold is not ASCII."""
    from ctok.normalize import nfc, stream_norm

    from snapshot.billing.ctok_lines import _lines

    lines = _lines(version)
    assert lines is not None and lines.fast
    norm = nfc(text, fold_quotes=lines.model.fold_quotes)
    if not norm.isascii():
        return None
    return (
        lines.ascii_stream(norm, False) + "|" + lines.ascii_stream(norm, True),
        stream_norm(norm, lines.model, raw_head_space=False)
        + "|"
        + stream_norm(norm, lines.model, raw_head_space=True),
    )


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("text", ASCII_SAMPLE)
def test_ascii_stream_is_ctoks(text: str, version: str) -> None:
    both = _ascii_streams(text, version)
    assert both is not None
    assert both[0] == both[1]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(ASCII_ALPHABET), max_size=40).map("".join),
    st.sampled_from(VERSIONS),
)
def test_ascii_stream_drawn(text: str, version: str) -> None:
    both = _ascii_streams(text, version)
    assert both is not None
    assert both[0] == both[1]
