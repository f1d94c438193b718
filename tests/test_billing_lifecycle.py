"""Model lifecycle in the tables: dates with sources, status, notices, and current defaults."""

from __future__ import annotations

import pytest

import snapshot.profiles.resolution as resolve_module
from snapshot.billing import providers
from snapshot.billing.providers import MODELS, TableError, validate_tables
from snapshot.billing.rows import Lifecycle, check_lifecycle
from snapshot.billing.sources import COMPILED
from snapshot.profiles import (
    current_default_models,
    current_ids,
    current_lineup,
    lifecycle_notice,
    profile_for,
)


def test_every_dated_lifecycle_has_a_source_and_dates_in_order() -> None:
    for m in MODELS.values():
        check_lifecycle(m.model, m.lifecycle)  # raises TableError, never an assert


def test_a_broken_table_raises_table_error_not_assert(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(providers, "ALIASES", {"claude-x": ("claude-nope", None)})
    with pytest.raises(TableError, match="claude-x"):
        validate_tables()
    with pytest.raises(TableError, match="out of order"):
        check_lifecycle("m", Lifecycle("2026-05-01", None, "2026-01-01", None, None))


@pytest.mark.parametrize(
    ("model", "status"),
    [
        ("claude-sonnet-4-5", "retired"),  # 2026-11-30 (A-dep)
        ("gemini-3-pro-preview", "retired"),  # 2026-03-09 (G-dep)
        ("gemini-2.5-pro", "retired"),  # 2026-12-01 (G-dep2)
        ("gemini-2.5-flash", "retired"),
        ("gpt-5-pro", "deprecated"),  # shuts down 2026-12-11 (O-dep)
        ("o3-pro", "deprecated"),
        ("gpt-4o-2024-05-13", "retired"),  # 2026-10-23 (O-dep)
        ("pixtral-large", "retired"),
        ("claude-sonnet-5-5", "current"),
        ("claude-opus-5-5", "current"),
        ("gemini-3.8-flash", "current"),
        ("gpt-6.1-sol", "current"),
    ],
)
def test_status_on_the_compile_date(model: str, status: str) -> None:
    assert profile_for(model, warn=False).status(COMPILED) == status


def test_retired_ids_still_resolve_and_name_their_successor() -> None:
    p = profile_for("claude-sonnet-4-5-20250929", warn=False)
    record = p.lifecycle_record("2026-12-01")
    assert record["status"] == "retired" and record["retired"] == "2026-11-30"
    assert record["successor"] == "claude-sonnet-5-5"
    assert "model-deprecations" in record["lifecycle_source"]


def test_notice_is_printed_once_per_id(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(resolve_module, "_NOTIFIED", set())
    profile_for("claude-sonnet-4-5")
    profile_for("claude-sonnet-4-5")
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("snapshot: warning: claude-sonnet-4-5 ")
    assert "retired on 2026-11-30" in lines[0] and "claude-sonnet-5-5" in lines[0]


def test_current_ids_get_no_notice() -> None:
    assert lifecycle_notice(profile_for("claude-sonnet-5-5"), "2026-12-01") is None


def test_report_defaults_are_current_on_the_compile_date() -> None:
    # Fails the day a default retires, without anyone editing a list.
    defaults = current_default_models(COMPILED)
    assert len(defaults) == 3
    for m in defaults:
        assert profile_for(m, warn=False).status(COMPILED) == "current", m
        assert profile_for(m, warn=False).vision
    assert defaults == ("claude-sonnet-5-5", "gpt-6.1-sol", "gemini-3.8-flash")


def test_defaults_move_with_the_date() -> None:
    # On 2026-08-01 Sonnet 5.5 (2026-09-28) was not out yet; Gemini 3.8 Flash neither.
    assert current_default_models("2026-08-01")[0] == "claude-sonnet-5"
    assert current_default_models("2026-08-01")[2] == "gemini-3.6-flash"


def test_current_lineup_of_each_provider() -> None:
    for provider, expected in (
        (
            "anthropic",
            {
                "claude-opus-5-5",
                "claude-sonnet-5",
                "claude-sonnet-5-5",
                "claude-haiku-5-5",
                "claude-fable-5-1",
                "claude-fable-5-2",
                "claude-mythos-5-1",
                "claude-mythos-5-2",
            },
        ),
        (
            "openai",
            {
                "gpt-6-astra",
                "gpt-6-sol",
                "gpt-6-luna",
                "gpt-6.1-sol",
                "gpt-6.1-terra",
                "gpt-5.6-sol",
                "gpt-5.3",
            },
        ),
        (
            "google",
            {"gemini-3.1-pro-preview", "gemini-3.7-flash", "gemini-3.8-flash", "gemini-4-argon"},
        ),
        ("mistral", {"mistral-medium-3-5", "mistral-small-2603"}),
    ):
        ids = {m.model for m in current_lineup(provider, COMPILED)}
        assert expected <= ids, expected - ids
    assert "claude-sonnet-4-5" not in current_ids(COMPILED)


def test_rerouted_gemini_2_5_says_where_calls_go_and_what_they_cost() -> None:
    p = profile_for("gemini-2.5-pro", warn=False)
    record = p.lifecycle_record("2026-12-01")
    assert record["routed_to"] == "gemini-3.8-flash"
    line = lifecycle_notice(p, "2026-12-01")
    assert line is not None and "routed to gemini-3.8-flash and billed at its rates" in line
    assert (
        profile_for("gemini-2.5-pro", warn=False).lifecycle_record("2026-11-01")["routed_to"]
        is None
    )
