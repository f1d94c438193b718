"""December facts: per-route lifecycles, corrected OpenAI/Claude statuses, new ids, tiers and dated prices."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

import snapshot.cli as cli
from snapshot.billing import providers
from snapshot.billing.prices import price_for
from snapshot.errors import InputError
from snapshot.profiles import lifecycle_notice, profile_for
from snapshot.profiles.audit import all_facts, check

TODAY = "2026-12-02"


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("snapshot.cli.cost", "snapshot.cli.facts"))

    def _run(*argv: str) -> tuple[int, str, str]:
        code = cli.main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return _run


# --- lifecycle per route -------------------------------------------------------


def test_bedrock_serves_what_the_claude_api_retired() -> None:
    direct = profile_for("claude-sonnet-4-5", warn=False)
    bedrock = profile_for("us.anthropic.claude-sonnet-4-5-20250929-v1:0", warn=False)
    assert direct.status(TODAY) == "retired" and bedrock.status(TODAY) == "deprecated"
    assert bedrock.lifecycle.retired == "2027-04-08"
    assert bedrock.status("2027-04-08") == "retired"
    assert "Amazon Bedrock's schedule" in (lifecycle_notice(bedrock, TODAY) or "")
    assert "the Claude API's schedule" in (lifecycle_notice(direct, TODAY) or "")
    assert "claude-sonnet-5-5" in (lifecycle_notice(bedrock, TODAY) or "")  # successor kept
    opus41 = profile_for("anthropic.claude-opus-4-1-20250805-v1:0", warn=False)
    assert opus41.status(TODAY) == "deprecated" and opus41.lifecycle.retired == "2027-01-08"


def test_a_route_without_its_own_row_says_whose_dates_it_quotes() -> None:
    p = profile_for("global.anthropic.claude-opus-4-6", warn=False)
    assert p.schedule == (
        "the Claude API's schedule (Amazon Bedrock's sets its own; none tabled for this id)"
    )
    assert p.lifecycle_record(TODAY)["lifecycle_schedule"] == p.schedule
    assert profile_for("anthropic/claude-sonnet-4.6", warn=False).schedule == (
        "the Claude API's schedule"
    )


def test_vertex_has_its_own_dates() -> None:
    gem = profile_for("vertex_ai/gemini-2.5-pro", warn=False)
    assert gem.route == "vertex" and gem.status("2026-11-01") == "retired"
    assert profile_for("gemini-2.5-pro", warn=False).status("2026-11-01") == "current"
    opus = profile_for("claude-opus-4-5@20251101", warn=False)
    assert opus.status(TODAY) == "deprecated" and opus.lifecycle.retired == "2027-01-22"
    assert "Vertex" in opus.schedule


def test_azure_is_its_own_route_not_openrouter() -> None:
    p = profile_for("azure/gpt-6-sol", warn=False)
    assert p.route == "azure" and p.limits.max_images == 500  # OpenAI's, not OpenRouter's 20
    price = p.price(TODAY)
    assert price is not None and price.provider == "azure"
    bedrock = profile_for("global.openai.gpt-6-sol", warn=False).price(TODAY)
    assert bedrock is not None and bedrock.provider == "aws" and p.route == "azure"
    old = profile_for("azure/o1-preview", warn=False)
    assert old.status(TODAY) == "retired" and old.lifecycle.retired == "2025-07-28"
    assert old.schedule == "Azure OpenAI's schedule"


# --- corrected statuses --------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "retired"),
    [
        ("o1-mini", "2025-10-27"),
        ("o1-preview", "2025-07-28"),
        ("gpt-4.5-preview", "2025-07-14"),
        ("gpt-5.2-chat-latest", "2026-08-10"),
        ("gpt-5-chat-latest", "2026-07-23"),
        ("chatgpt-4o-latest", "2026-02-17"),
    ],
)
def test_six_openai_ids_are_shut_down(model: str, retired: str) -> None:
    p = profile_for(model, warn=False)
    assert p.canonical == model and p.status(TODAY) == "retired"
    assert p.lifecycle.retired == retired and p.lifecycle.fact is not None


def test_notice_dates_and_successors_are_openais() -> None:
    life = providers.MODELS["gpt-5"].lifecycle
    assert (life.deprecated, life.retired, life.successor) == (
        "2026-06-11",
        "2026-12-11",
        "gpt-6.1-sol",
    )
    assert providers.MODELS["gpt-5-mini"].lifecycle.successor == "gpt-6.1-terra"
    assert providers.MODELS["gpt-4o"].lifecycle.deprecated == "2026-10-14"


def test_opus_4_5_is_deprecated() -> None:
    p = profile_for("claude-opus-4-5", warn=False)
    assert p.status(TODAY) == "deprecated" and p.status("2027-01-22") == "retired"
    assert p.lifecycle.successor == "claude-opus-5-5" and "MP57" in p.lifecycle.fact.source  # type: ignore[union-attr]


# --- new ids and their prices --------------------------------------------------


@pytest.mark.parametrize(
    ("model", "canonical", "database", "input_rate"),
    [
        ("gpt-6.2-sol", "gpt-6.2-sol", "own table", 2.0),
        ("gpt-6.2-astra", "gpt-6.2-astra", "own table", 8.0),
        ("gpt-5.5-pro", "gpt-5.5-pro", "genai-prices", 30.0),
        ("gpt-5.4-pro", "gpt-5.4-pro", "genai-prices", 30.0),
        ("grok-4.7", "grok-4.7", "genai-prices", 2.0),
        ("grok-4.6", "grok-4.6", "genai-prices", 2.0),
        ("gemini-flash-latest", "gemini-3.8-flash", "genai-prices", 0.75),
        ("gemini-pro-latest", "gemini-3.1-pro-preview", "genai-prices", 2.0),
        ("global.openai.gpt-6-sol", "gpt-6-sol", "genai-prices", 2.0),
        ("vertex_ai/gemini-3.8-flash", "gemini-3.8-flash", "genai-prices", 0.75),
    ],
)
def test_new_ids_resolve_with_scheme_and_price(
    model: str, canonical: str, database: str, input_rate: float
) -> None:
    p = profile_for(model, warn=False)
    assert p.canonical == canonical and p.vision
    price = p.price(TODAY)
    assert price is not None and price.database.startswith(database)
    assert price.input == input_rate


def test_own_table_prices_are_labelled_and_dated() -> None:
    p = price_for("gpt-6.2-sol", today=TODAY)
    assert p is not None and p.fact.label == "uncertain" and "GPT62" in p.fact.source
    assert p.at(300_000).input == 4.0  # the assumed GPT-6 long-context tier
    assert price_for("gpt-6.2-sol", today="2026-11-16") is None  # before its release
    assert profile_for("gpt-6.2-sol", warn=False).status("2026-11-16") == "unreleased"


def test_gpt_5_6_sol_promotion_ends_after_its_guaranteed_day() -> None:
    during = price_for("gpt-5.6-sol", today="2026-11-21")
    after = price_for("gpt-5.6-sol", today="2026-11-22")
    assert during is not None and (during.input, during.output) == (4.0, 20.0)
    assert after is not None and (after.input, after.output) == (5.0, 30.0)
    assert "SOLPROMO" in after.fact.source and after.database.startswith("own table over")
    assert after.at(300_000).input == pytest.approx(10.0)  # the >272k tier scaled alike


# --- tiers and dated prices ----------------------------------------------------


def test_tiers_from_the_database_or_the_vendors_multiplier() -> None:
    sol = profile_for("gpt-6.1-sol", warn=False)
    batch = sol.price(TODAY, "batch")
    assert batch is not None and batch.tier == "batch" and batch.input == 1.0
    assert "price_variants" in (batch.tier_fact.source if batch.tier_fact else "")
    flash = profile_for("gemini-3.8-flash", warn=False).price("2027-01-05", "priority")
    assert flash is not None and flash.input == pytest.approx(1.5 * 1.8)
    assert flash.tier_fact is not None and "x1.8" in flash.tier_fact.note
    with pytest.raises(InputError, match="no 'flex' price tier"):
        profile_for("claude-opus-5-5", warn=False).price(TODAY, "flex")


def test_cost_cli_tier_and_date(run) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(
        "cost",
        "--model",
        "gemini-3.8-flash",
        "--size",
        "1024x1024",
        "--date",
        "2027-01-02",
        "--json",
    )
    data = json.loads(out)
    assert data["price"]["input_per_mtok"] == 1.5 and data["price"]["priced_on"] == "2027-01-02"
    code, out, _ = run(
        "cost", "--model", "gemini-3.8-flash", "--size", "1024x1024", "--date", TODAY
    )
    assert "priced on 2026-12-02" in out and "$0.000840" in out
    code, _, err = run(
        "cost", "--model", "claude-opus-5-5", "--size", "1024x1024", "--tier", "flex"
    )
    assert code == 2 and "no 'flex' price tier" in err and len(err.strip().splitlines()) == 1


def test_the_report_prices_at_its_date() -> None:
    from snapshot.report.markdown import _prices
    from snapshot.report.matrix import Settings
    from snapshot.report.run import model_records

    rec = model_records(["gemini-3.8-flash"], "2027-01-02")["gemini-3.8-flash"]
    assert rec["price"]["input_per_mtok"] == 1.5 and rec["price"]["priced_on"] == "2027-01-02"
    assert (
        model_records(["gemini-3.8-flash"], TODAY)["gemini-3.8-flash"]["price"]["input_per_mtok"]
        == 0.75
    )
    result = SimpleNamespace(
        settings=Settings(priced_on="2027-01-02"), models=("gemini-3.8-flash", "gpt-6.1-sol")
    )
    text = "\n".join(_prices(result))  # type: ignore[arg-type]
    assert "Priced on **2027-01-02**" in text and "| 1.5 |" in text
    assert "UNCERTAIN GPT-6 family patch multiplier" in text


# --- facts --check -------------------------------------------------------------


def test_facts_check_lists_stale_and_single_unofficial_facts(run) -> None:  # type: ignore[no-untyped-def]
    found = check(90, TODAY)
    reasons = {(f.row.table, f.row.key): f.reasons for f in found}
    assert "single unofficial source" in reasons[("lifecycle", "gpt-6-sol")]  # litellm alone
    assert "single unofficial source" in reasons[("lifecycle", "claude-opus-4-5")]  # MP57 alone
    assert ("route schedule", "bedrock: Amazon Bedrock's") not in reasons  # AWS docs, recent
    assert "older than 90 days" in reasons[("model scheme", "grok-4")]  # measured 2026-08-20
    assert all(r for r in reasons.values())
    assert len(found) < len(all_facts())
    code, out, _ = run("facts", "--check", "--days", "90", "--date", TODAY, "--json")
    assert code == 0 and len(json.loads(out)) == len(found)
    code, out, _ = run("facts", "--check", "--days", "100000", "--date", TODAY)
    assert "older than" not in out.split("\n")[0] and "single unofficial source" in out


def test_facts_command_is_one_library_call() -> None:
    from one_library_call import assert_one_library_call, module_level_library_imports

    from snapshot.cli import facts

    assert_one_library_call(facts.run, "snapshot.profiles.audit.facts_listing")
    assert module_level_library_imports(facts) == []
