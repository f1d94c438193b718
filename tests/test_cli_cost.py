"""``snapshot cost`` and ``snapshot profiles`` through the real CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import snapshot.cli as cli


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    # Only this group is loaded, so a half-finished sibling module cannot break these tests.
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("snapshot.cli.cost",))

    def _run(*argv: str) -> tuple[int, str, str]:
        code = cli.main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return _run


def test_cost_is_registered() -> None:
    assert "snapshot.cli.cost" in cli.COMMAND_MODULES


def test_cost_size_json(run) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run("cost", "--model", "claude-sonnet-4-5", "--size", "1920x1080", "--json")
    assert code == 0
    data = json.loads(out)
    assert {k: data[k] for k in ("model", "scheme", "tokens", "seen", "resized")} == {
        "model": "claude-sonnet-4-5",
        "scheme": "anthropic-patches",
        "tokens": 1560,
        "seen": [1456, 819],
        "resized": True,
    }
    assert data["dollars"] == pytest.approx(1560 * 3.0 / 1e6)


@pytest.mark.parametrize(
    ("model", "size", "tokens", "resized"),
    [
        ("gpt-4o", "1024x1024", 765, True),
        ("gpt-4o", "512x2048", 765, False),
        ("claude-opus-4-7", "3840x2160", 4784, True),
        ("gemini-3.6-flash", "1568x728", 1120, False),
        ("us.anthropic.claude-haiku-4-5-20251001-v1:0", "1568x728", 1456, False),
    ],
)
def test_cost_size_examples(run, model: str, size: str, tokens: int, resized: bool) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run("cost", "--model", model, "--size", size, "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["tokens"], data["resized"]) == (tokens, resized)


def test_cost_size_human(run) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run("cost", "--model", "gpt-5.4", "--size", "1024x1024")
    assert code == 0
    assert "1229 tokens" in out and "not resized" in out


@pytest.mark.parametrize(
    "argv",
    [
        ("cost", "--model", "no-such-model", "--size", "10x10"),
        ("profiles", "--model", "no-such-model"),
        ("cost", "--model", "gpt-4o", "--size", "ten by ten"),
        ("cost", "--model", "deepseek-chat", "--size", "100x100"),
        ("cost", "--model", "claude-sonnet", "--size", "100x100"),
    ],
)
def test_errors_are_one_line_exit_2(run, argv: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(*argv)
    assert code == 2
    assert out == ""
    assert err.startswith("snapshot: error: ") and err.count("\n") == 1
    assert "Traceback" not in err


def test_unknown_model_with_fallback(run) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run("profiles", "--model", "my-vlm", "--fallback", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["fallback"] is True and data["model"] == "my-vlm"


def _sample(tmp_path: Path) -> Path:
    text = "".join(
        f"step {i}: ran pytest -q, 3 failed in test_{i % 7}.py, sha {i * 7919:08x}\n"
        for i in range(400)
    )
    path = tmp_path / "history.txt"
    path.write_text(text, encoding="utf-8")
    return path


def test_cost_text_openai_exact(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = _sample(tmp_path)
    code, out, _ = run("cost", "--model", "gpt-4o", "--text", str(path), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["text_tokens_exact"] is True and data["break_even_is_estimate"] is False
    assert data["pages"] >= 1
    assert data["image_tokens"] == data["pages"] * data["tokens_per_page"] == data["pages"] * 765
    assert data["saved_tokens"] == data["text_tokens"] - data["image_tokens"]
    assert data["imaging_pays"] == (data["image_tokens"] < data["text_tokens"])
    assert data["break_even_chars_per_token"] == pytest.approx(
        data["chars"] / data["text_tokens"], abs=1e-3
    )
    assert data["text_dollars"] is not None and data["image_dollars"] is not None


def test_cost_text_claude_is_a_labelled_reconstruction(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = _sample(tmp_path)
    code, out, _ = run("cost", "--model", "claude-sonnet-4-6", "--text", str(path))
    assert code == 0
    assert "reconstruction (ctok v3.0)" in out and "break-even" in out
    code, out, _ = run("cost", "--model", "claude-sonnet-4-6", "--text", str(path), "--json")
    data = json.loads(out)
    assert data["text_tokens_exact"] is False and data["text_counter"] == "reconstruction"
    assert data["break_even_is_estimate"] is False


def test_cost_text_gemini_is_a_labelled_estimate(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run("cost", "--model", "gemini-3.8-flash", "--text", str(_sample(tmp_path)))
    assert code == 0 and "ESTIMATE" in out


def test_cost_text_for_a_text_only_model(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run("cost", "--model", "o3-mini", "--text", str(_sample(tmp_path)), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["vision"] is False and "image_tokens" not in data


def test_profiles_json_fields(run) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run("profiles", "--json")
    assert code == 0
    records = json.loads(out)
    keys = {
        "model", "family", "scheme", "vision", "page", "cols", "rows", "chars_per_page",
        "tokens_per_page", "chars_per_token", "max_images", "max_image_bytes", "evidence",
    }  # fmt: skip
    assert len(records) > 40
    for r in records:
        assert keys <= set(r)
        assert r["evidence"]
        if r["vision"]:
            assert r["chars_per_token"] == pytest.approx(
                r["chars_per_page"] / r["tokens_per_page"], abs=1e-3
            )


def test_profiles_one_model(run) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run("profiles", "--model", "gemini-3.6-flash", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["page"] == [1568, 728] and data["tokens_per_page"] == 1120
    code, out, _ = run("profiles", "--model", "claude-fable-5")
    assert code == 0 and "evidence [measured" in out


def test_profile_file_overrides(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "mine.toml"
    f.write_text('[[profile]]\nmodel = "claude-sonnet-4-5"\nfont = "snap5x8"\npage = [1568, 728]\n')
    code, out, _ = run("profiles", "--model", "claude-sonnet-4-5", "--profile", str(f), "--json")
    assert code == 0
    data = json.loads(out)
    assert (
        data["font"] == "snap5x8"
        and data["page"] == [1568, 728]
        and data["tokens_per_page"] == 1456
    )
    bad = tmp_path / "bad.json"
    bad.write_text('{"model": "claude-sonnet-4-5", "page": [1920, 1080]}')
    code, _, err = run("profiles", "--profile", str(bad))
    assert code == 2 and "resized" in err


@pytest.fixture
def run_render(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("snapshot.cli.render",))

    def _run(*argv: str) -> tuple[int, str, str]:
        code = cli.main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return _run


def test_render_uses_the_model_profile(run_render, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = _sample(tmp_path)
    code, out, _ = run_render(
        "render", str(src), "--model", "gemini-3.6-flash", "--out", str(tmp_path / "o"), "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["font"] == "snap5x8"
    assert {(p["width"], p["height"]) for p in data["pages"]} == {(1568, 728)}
    code, out, _ = run_render(
        "render",
        str(src),
        "--model",
        "gpt-5.4",
        "--detail",
        "high",
        "--out",
        str(tmp_path / "d"),
        "--json",
    )
    assert code == 0
    w, h = json.loads(out)["pages"][0]["width"], json.loads(out)["pages"][0]["height"]
    assert (w // 32) * (h // 32) <= 2500 and w % 32 == 0 and h % 32 == 0


def test_render_with_a_single_profile_file(run_render, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "p.json"
    f.write_text(json.dumps({"model": "claude-sonnet-4-5", "font": "snap5x8", "page": [1568, 728]}))
    code, out, _ = run_render(
        "render",
        str(_sample(tmp_path)),
        "--profile",
        str(f),
        "--out",
        str(tmp_path / "o"),
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert data["font"] == "snap5x8" and data["pages"][0]["width"] == 1568


def test_render_unknown_model_is_one_line(run_render, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_render(
        "render", str(_sample(tmp_path)), "--model", "no-such-vlm", "--out", str(tmp_path / "o")
    )
    assert code == 2 and out == "" and err.count("\n") == 1
    code, _, _ = run_render(
        "render",
        str(_sample(tmp_path)),
        "--model",
        "no-such-vlm",
        "--fallback",
        "--out",
        str(tmp_path / "o"),
    )
    assert code == 0


def test_profiles_lists_a_profile_file(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "team.toml"
    f.write_text(
        '[[profile]]\nmodel = "fable-dense"\nbase = "claude-fable-5"\n\n'
        '[[profile]]\nmodel = "house-vlm"\nfont = "snap8x16"\n[profile.scheme]\nkind = "mistral-patches"\n'
    )
    code, out, _ = run("profiles", "--profile", str(f), "--json")
    assert code == 0
    records = json.loads(out)
    assert [r["model"] for r in records] == ["fable-dense", "house-vlm"]
    assert records[0]["canonical"] == "claude-fable-5" and records[1]["scheme"] == "mistral-patches"


def test_cost_text_from_stdin(run, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    import io
    import sys

    data = ("hello world " * 500).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, out, _ = run("cost", "--model", "gpt-5.4", "--text", "-", "--json")
    assert code == 0
    record = json.loads(out)
    assert record["chars"] == len(data) and record["text_tokens_exact"] is True


# ----------------------------------------------------------------- issue 16: "Done when"


def test_opus_5_is_high_res_3888_tokens_no_resize(run) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run("cost", "--model", "claude-opus-5", "--size", "2000x1500", "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["tokens"], data["resized"], data["seen"]) == (3888, False, [2000, 1500])
    assert data["status"] == "current" and data["price"]["matched_model"] == "claude-opus-5"


@pytest.mark.parametrize(("model", "per_mtok"), [("gpt-5-pro", 15.0), ("o3-pro", 20.0)])
def test_pro_models_price_as_themselves(run, model: str, per_mtok: float, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import snapshot.profiles.resolution as resolution

    monkeypatch.setattr(resolution, "_NOTIFIED", set())
    code, out, err = run("cost", "--model", model, "--size", "1024x1024", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["canonical"] == model and data["price"]["matched_model"] == model
    assert data["price"]["input_per_mtok"] == per_mtok
    assert data["dollars"] == pytest.approx(data["tokens"] * per_mtok / 1e6)
    assert data["price"]["database"].startswith("genai-prices ")
    assert data["status"] == "deprecated" and data["retired"] == "2026-12-11"
    assert f"snapshot: warning: {model} is deprecated" in err


def test_gpt_5_6_over_30000_patches_is_refused_with_the_rule(run) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run("cost", "--model", "gpt-5.6", "--size", "6000x6000")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "openai-30000-patch-limit" in err and "35,344" in err
    code, out, _ = run("cost", "--model", "gpt-5.6", "--size", "6000x6000", "--detail", "high")
    assert (
        code == 0
        and json.loads(
            run(
                "cost",
                "--model",
                "gpt-6-astra",
                "--size",
                "6000x6000",
                "--detail",
                "high",
                "--json",
            )[1]
        )["resized"]
        is True
    )


@pytest.mark.parametrize(
    ("argv", "rule"),
    [
        (
            ("--model", "claude-sonnet-4-6", "--size", "2400x1200", "--images", "21"),
            "anthropic-many-images-2000px",
        ),
        (
            ("--model", "us.anthropic.claude-sonnet-4-6", "--size", "800x600", "--images", "21"),
            "bedrock-max-20-images",
        ),
        (
            (
                "--model",
                "us.anthropic.claude-sonnet-4-6",
                "--size",
                "800x600",
                "--bytes",
                "4000000",
            ),
            "bedrock-max-image-bytes",
        ),
        (
            ("--model", "claude-sonnet-4-6@latest", "--size", "800x600", "--bytes", "6000000"),
            "vertex-max-image-bytes",
        ),
        (("--model", "claude-sonnet-4-6", "--size", "9000x100"), "anthropic-8000px-maximum"),
    ],
)
def test_requests_the_provider_refuses(run, argv: tuple[str, ...], rule: str) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run("cost", *argv)
    assert code == 2 and out == "" and rule in err and err.count("\n") == 1


def test_standard_tier_page_satisfies_the_documented_rule_and_the_measurement(run) -> None:  # type: ignore[no-untyped-def]
    _code, out, _ = run("profiles", "--model", "claude-sonnet-4-6", "--json")
    data = json.loads(out)
    w, h = data["page"]
    assert w * h <= 1_143_750 and max(w, h) <= 1568 and data["tokens_per_page"] <= 1568
    binding = [e for e in data["evidence"] if e["claim"].startswith("binding:")]
    assert len(binding) == 1 and "1,143,750" in binding[0]["claim"]
    assert binding[0]["label"] == "measured" and "pxpipe" in binding[0]["source"]


def test_profiles_lists_status_and_current_only(run) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run("profiles")
    assert code == 0 and "retired*" in out and "-- anthropic" in out
    code, out, _ = run("profiles", "--current", "--json")
    statuses = {r["status"] for r in json.loads(out)}
    assert statuses == {"current"}
    models = {r["model"] for r in json.loads(out)}
    assert {"claude-sonnet-5-5", "gpt-6.1-sol", "gemini-3.8-flash"} <= models


def test_a_prefix_only_id_gets_the_nearest_current_ids(run) -> None:  # type: ignore[no-untyped-def]
    code, _out, err = run("cost", "--model", "claude-sonnet", "--size", "10x10")
    assert code == 2 and "nearest current ids: claude-sonnet" in err and err.count("\n") == 1


def test_cost_text_says_which_counter_and_prices_by_the_id(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _code, out, _ = run(
        "cost", "--model", "gpt-4.1-mini", "--text", str(_sample(tmp_path)), "--json"
    )
    data = json.loads(out)
    assert data["text_counter"] == "exact" and data["price"]["matched_model"] == "gpt-4.1-mini"


def test_cost_and_report_share_the_tier_choices_of_the_billing_table() -> None:
    from snapshot.billing.prices import TIERS
    from snapshot.cli.argtypes import PRICE_TIERS

    assert PRICE_TIERS == TIERS
