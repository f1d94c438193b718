"""Text-side baseline: exact OpenAI counts offline, labelled estimates elsewhere."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from snapshot.billing.providers import text_tokenizer_for
from snapshot.billing.text_tokens import compare, count_text

SAMPLE = (
    "def f(x):\n    return x ** 2  # héllo 日本語\n\n"
    "commit 3f9a2c1e <|endoftext|> ticket ABC-1234\n" * 20
)


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_quicktok_matches_the_reference_bpe(encoding: str) -> None:
    bpe_openai = pytest.importorskip("bpe_openai")
    model, family = (
        ("gpt-4o", "openai-tiles") if encoding == "o200k_base" else ("gpt-4", "openai-text")
    )
    tok = text_tokenizer_for(model, family)
    assert tok.encoding == encoding
    n = count_text(SAMPLE, tok)
    ref = len(bpe_openai.get_encoding(encoding).encode(SAMPLE, disallowed_special=()))
    assert n.exact and n.tokens == ref


# Characters this Python's Unicode tables (14.0) know: quicktok splits words by Unicode 17,
# tiktoken and the reference by Unicode 16, so letters added since are the known edge below.
ASSIGNED = st.characters(exclude_categories=("Cn", "Cs"))


@settings(max_examples=50, deadline=None)
@given(st.text(ASSIGNED, max_size=300))
def test_quicktok_matches_reference_on_any_text(text: str) -> None:
    bpe_openai = pytest.importorskip("bpe_openai")
    n = count_text(text, text_tokenizer_for("gpt-4o", "openai-tiles"))
    ref = bpe_openai.get_encoding("o200k_base").encode(text, disallowed_special=())
    assert n.tokens == len(ref)


@pytest.mark.parametrize(
    ("char", "fewer"),
    [
        ("\U00031350", 0),  # CJK Extension H (Unicode 15): a letter to both
        ("\U00010d40", 0),  # Garay (Unicode 16): a letter to both
        ("\U000323b0", 1),  # CJK Extension J (Unicode 17): a letter to quicktok only
        ("\U00040000", 0),  # unassigned everywhere
    ],
)
def test_quicktok_differs_from_the_reference_only_on_letters_new_in_unicode_17(
    char: str, fewer: int
) -> None:
    """The known edge (text_tokens' docstring): a Unicode 17 letter before ':A' lets quicktok
    take ':A' as one word (the o200k token), where tiktoken and the reference, on Unicode
    16, take the letter and ':' as one run of symbols and 'A' alone. If either package
    moves to another Unicode version this fails, and the docstring has to follow."""
    bpe_openai = pytest.importorskip("bpe_openai")
    text = char + ":A"
    n = count_text(text, text_tokenizer_for("gpt-4o", "openai-tiles"))
    ref = bpe_openai.get_encoding("o200k_base").encode(text, disallowed_special=())
    assert len(ref) - n.tokens == fewer


@pytest.mark.parametrize(
    ("model", "family", "cpt"),
    [
        ("gemini-3.6-flash", "gemini-3-flash", 4.0),
        ("grok-4.5", "grok", 4.0),
    ],
)
def test_estimates_are_labelled(model: str, family: str, cpt: float) -> None:
    n = count_text("a" * 1000, text_tokenizer_for(model, family))
    assert not n.exact
    assert "estimate" in n.method
    assert n.tokens == math.ceil(1000 / cpt)
    assert abs(n.chars_per_token - cpt) < 0.05


def test_break_even_is_the_texts_own_density() -> None:
    n = count_text("x" * 4000, text_tokenizer_for("gemini-3.6-flash", "gemini-3-flash"))
    cheap = compare(n, pages=1, tokens_per_page=500, chars_imaged=4000)
    dear = compare(n, pages=2, tokens_per_page=1456, chars_imaged=4000)
    assert cheap.imaging_pays and cheap.saved_tokens == 500
    assert not dear.imaging_pays and dear.saved_fraction < 0
    # Imaging pays exactly when pages pack more chars per image token than the break-even.
    for c in (cheap, dear):
        assert c.imaging_pays == (c.image_chars_per_token > c.break_even)


def test_empty_text_counts_zero() -> None:
    assert count_text("", text_tokenizer_for("claude-sonnet-4-5", "claude-standard")).tokens == 0
    assert count_text("", text_tokenizer_for("gpt-4o", "openai-tiles")).tokens == 0


def test_claude_counts_are_a_ctok_reconstruction() -> None:
    import ctok

    from snapshot.profiles import count_text_tokens

    text = "The quick brown fox jumps over the lazy dog.\n" * 20
    n = count_text_tokens("claude-opus-4-8", text)
    assert n.kind == "reconstruction" and "ctok v4.8" in n.method and not n.exact
    frame = ctok.token_count("", "4.8")
    assert n.tokens == ctok.token_count(text, "4.8") - frame


def test_without_ctok_claude_falls_back_to_the_labelled_estimate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from snapshot.billing import text_tokens

    monkeypatch.setattr(text_tokens, "ctok_available", lambda: False)
    n = count_text("a" * 340, text_tokenizer_for("claude-sonnet-4-6", "claude-standard"))
    assert n.kind == "estimate" and n.tokens == 100 and "ctok not installed" in n.source


def test_tables_are_checked_under_python_dash_o() -> None:
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import snapshot.billing.providers as p\n"
        "p.ALIASES = {'x': ('nope', None)}\n"
        "try:\n    p.validate_tables()\nexcept p.TableError:\n    print('raised')\n"
    )
    root = Path(__file__).parents[1]
    out = subprocess.run(
        [sys.executable, "-O", "-c", code],
        capture_output=True,
        text=True,
        cwd=root,
        env={"PYTHONPATH": str(root)},
        check=True,
    )
    assert out.stdout.strip() == "raised"
