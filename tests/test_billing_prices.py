"""Prices from genai-prices: the user's own id, the version recorded, cache and tiers."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import genai_prices
import pytest

from snapshot.billing import prices
from snapshot.billing.prices import PINNED_VERSION, price_for
from snapshot.profiles import profile_for
from snapshot.report.costs import session_dollars

DAY = "2026-12-01"


def test_the_database_is_the_pinned_release() -> None:
    assert genai_prices.__version__ == PINNED_VERSION
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert f"genai-prices=={PINNED_VERSION}" in pyproject["project"]["dependencies"]


@pytest.mark.parametrize(
    ("model", "inp", "out"),
    [
        ("gpt-5-pro", 15.0, 120.0),  # not gpt-5's $1.25 / $10
        ("o3-pro", 20.0, 80.0),  # not o3's $2 / $8
        ("gpt-4o-2024-05-13", 5.0, 15.0),  # not gpt-4o's $2.50 / $10
        ("chatgpt-4o-latest", 5.0, 15.0),
        ("gpt-5.1-codex-mini", 0.25, 2.0),  # not gpt-5.1's $1.25 / $10
        ("claude-opus-5-5", 4.0, 20.0),
        ("gpt-6-sol", 2.0, 10.0),
    ],
)
def test_ids_price_as_themselves(model: str, inp: float, out: float) -> None:
    price = profile_for(model, warn=False).price(DAY)
    assert price is not None
    assert price.matched_model == model
    assert (price.input, price.output) == (inp, out)
    assert price.database == f"genai-prices {PINNED_VERSION}"
    assert PINNED_VERSION in price.fact.source and model in price.fact.source


def test_codex_mini_is_a_patch_model_not_tiles() -> None:
    assert profile_for("gpt-5.1-codex-mini", warn=False).scheme.kind == "openai-patches"


def test_an_id_the_database_lacks_has_no_price_not_a_siblings() -> None:
    assert price_for("gpt-5-codex-mini", today=DAY) is None  # the database lacks it
    assert profile_for("gpt-5-codex-mini", warn=False).price(DAY) is None
    # A database prefix would price this as claude-sonnet-4-5: refused.
    assert price_for("claude-sonnet-4-5-experimental", today=DAY) is None
    # Explicitly listed by the database under gpt-5.2: its own id, priced as the database says.
    assert price_for("gpt-5.2-codex", today=DAY).matched_model == "gpt-5.2"  # type: ignore[union-attr]
    assert price_for("qwen2.5-vl-7b-instruct", today=DAY) is None


def test_cache_reads_writes_and_long_context_tiers() -> None:
    sonnet = price_for("claude-sonnet-4-5", today=DAY)
    assert sonnet is not None
    assert (sonnet.cache_read, sonnet.cache_write, sonnet.cache_write_1h) == (0.3, 3.75, 6.0)
    assert sonnet.at(200_000).input == 6.0 and sonnet.at(199_999).input == 3.0
    opus55 = price_for("claude-opus-5-5", today=DAY)
    assert opus55 is not None and opus55.cache_read == pytest.approx(0.05 * opus55.input)
    gemini = price_for("gemini-3.8-flash", provider="google", today=DAY)
    assert gemini is not None and gemini.cache_read is not None


def test_gemini_stable_prefix_is_cheaper_than_a_changed_prefix() -> None:
    price = price_for("gemini-3.8-flash", provider="google", today=DAY)
    stable = session_dollars(50_000, 2_000, 5, price, prefix_stable=True)
    rolling = session_dollars(50_000, 2_000, 5, price, prefix_stable=False)
    assert stable is not None and rolling is not None and stable < rolling


def test_every_price_record_names_the_database_and_match() -> None:
    record = price_for("gpt-5-pro", today=DAY).record()  # type: ignore[union-attr]
    assert record["database"] == f"genai-prices {PINNED_VERSION}"
    assert record["matched_model"] == "gpt-5-pro"
    assert re.match(r"^\d{4}-\d{2}-\d{2}$", record["date"])


def test_dollars_without_a_price() -> None:
    assert prices.dollars(10, None) is None
