"""The legibility, tune, frontier and probe command modules parse and print; the library
does the work.

Each command body makes exactly one call into the library (read from the source,
so a body that grows domain logic again fails here), and the library functions
those bodies call behave as the commands did.
"""

from __future__ import annotations

import dataclasses
import doctest
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from one_library_call import assert_one_library_call, module_level_library_imports

from snapshot.cli import legibility as cli_legibility
from snapshot.cli import probe as cli_probe
from snapshot.errors import InputError, SnapshotError
from snapshot.legibility import (
    corpus_text,
    frontier,
    frontier_report,
    lab,
    probes,
    records,
    resample,
    tune,
)
from snapshot.providers.keys import redact_value
from snapshot.readability.goal import Goal
from snapshot.report import needle_probe

# (module, command function) -> the one library function its body calls
ONE_CALL = {
    (cli_probe, "run"): "snapshot.legibility.probes.probe_and_save",
    (cli_probe, "_run_needles"): "snapshot.report.needle_probe.probe_needles_and_save",
    (cli_legibility, "run_legibility"): "snapshot.legibility.lab.legibility_table",
    (cli_legibility, "_run_page"): "snapshot.legibility.lab.measure_page",
    (cli_legibility, "_run_gate"): "snapshot.legibility.gate.gate",
    (cli_legibility, "run_tune"): "snapshot.legibility.tune.tune_and_write",
    (cli_legibility, "_run_tune_pages"): "snapshot.legibility.tune.tune_pages_and_write",
    (cli_legibility, "run_frontier"): "snapshot.legibility.frontier_report.frontier_report",
}


@pytest.mark.parametrize("key", list(ONE_CALL), ids=lambda k: k[1])
def test_command_body_is_one_library_call(key: tuple[object, str]) -> None:
    module, name = key
    func = getattr(module, name)
    assert_one_library_call(func, ONE_CALL[key])


def test_the_reader_choice_left_the_cli() -> None:
    # _tune_reader chose between the live and the crop readers: tune_and_write does now.
    assert not hasattr(cli_legibility, "_tune_reader")
    assert not hasattr(cli_legibility, "_filters")


@pytest.mark.parametrize("module", [cli_probe, cli_legibility], ids=lambda m: m.__name__)
def test_module_level_imports_hold_no_library(module: object) -> None:
    assert module_level_library_imports(module) == []


@pytest.mark.parametrize("module", [records, probes, needle_probe, tune, resample])
def test_the_docstring_examples_run(module: Any) -> None:
    assert doctest.testmod(module).failed == 0, module.__name__


# --- probe ---------------------------------------------------------------------------------

SECRET = "sk-ant-thin2-secret-value-0123456789"


class _StubRecord:
    """Enough of a record for the savers: its name parts and a redacting ``to_json``."""

    model = "claude-opus-4-8"
    timestamp = "2026-12-01T10:00:00Z"
    page_sha256 = "cd" * 32

    def to_json(self, secrets: Any = ()) -> str:
        return json.dumps(redact_value({"reply": f"echo {SECRET}"}, tuple(secrets)))


def test_saved_record_adds_the_path_to_the_redacted_document() -> None:
    saved = records.saved_record(_StubRecord(), Path("out/r.json"), [SECRET])
    assert saved.document == {"reply": "echo [REDACTED]", "record_path": "out/r.json"}
    assert saved.path == Path("out/r.json")
    with pytest.raises(dataclasses.FrozenInstanceError):
        saved.path = Path("x")  # type: ignore[misc]


def test_probe_and_save_passes_the_options_and_redacts_the_environment_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    seen: dict[str, Any] = {}
    stub = _StubRecord()

    def fake_run_probe(model: str, **kw: Any) -> _StubRecord:
        seen.update(model=model, **kw)
        return stub

    monkeypatch.setattr(probes, "run_probe", fake_run_probe)
    saved = probes.probe_and_save(
        "claude-opus-4-8", tmp_path, font="misc-5x8", seed=3, api="messages", timeout=9.0
    )
    assert seen == {
        "model": "claude-opus-4-8",
        "font": "misc-5x8",
        "seed": 3,
        "api": "messages",
        "base_url": None,
        "timeout": 9.0,
    }
    assert saved.record is stub
    assert saved.path == tmp_path / f"2026-12-01-claude-opus-4-8-{'cd' * 4}.json"
    assert saved.document == {"reply": "echo [REDACTED]", "record_path": str(saved.path)}
    assert SECRET not in saved.path.read_text()


def test_probe_needles_and_save_builds_the_protocol(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    protocols: list[needle_probe.Protocol] = []

    def fake_run(model: str, *, protocol: needle_probe.Protocol, **kw: Any) -> _StubRecord:
        protocols.append(protocol)
        return _StubRecord()

    monkeypatch.setattr(needle_probe, "run_needle_probe", fake_run)
    saved = needle_probe.probe_needles_and_save("claude-opus-4-8", tmp_path)
    again = needle_probe.probe_needles_and_save(
        "claude-opus-4-8", tmp_path, conversations=2, seed=7
    )
    assert protocols == [
        needle_probe.PREREGISTERED,
        needle_probe.Protocol(seed=7, conversations=2),
    ]
    assert saved.path == tmp_path / "2026-12-01-claude-opus-4-8-needles.json"
    assert again.path == tmp_path / "2026-12-01-claude-opus-4-8-needles-2.json"
    assert saved.document == {"reply": "echo [REDACTED]", "record_path": str(saved.path)}


def test_probe_needles_and_save_refuses_a_missing_corpus_before_any_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*a: Any, **kw: Any) -> None:
        raise AssertionError("the probe ran")

    monkeypatch.setattr(needle_probe, "run_needle_probe", never)
    missing = tmp_path / "none.json"
    with pytest.raises(InputError) as exc:
        needle_probe.probe_needles_and_save("claude-opus-4-8", tmp_path, corpus=missing)
    assert str(exc.value) == f"--corpus {missing}: no such manifest file"
    assert list(tmp_path.iterdir()) == []


# --- frontier ------------------------------------------------------------------------------


def test_frontier_report_defaults_to_the_frontier_readers(tmp_path: Path) -> None:
    # every reader the command offers, and the texts it offers are the library's
    assert sorted(frontier_report.FRONTIER_READERS) == sorted(cli_legibility.PAGE_READERS)
    assert cli_legibility.TEXTS == corpus_text.TEXTS
    report = frontier_report.frontier_report(
        None, cache_path=tmp_path / "none.jsonl", out_dir=tmp_path, measure_missing=False
    )
    assert report.points == ()
    assert report.unavailable == tuple(
        f"reader {n}: no measured points (not run here)" for n in frontier_report.FRONTIER_READERS
    )


# --- tune ----------------------------------------------------------------------------------


def test_default_profile_path_makes_the_model_id_a_file_name() -> None:
    assert tune.default_profile_path("claude-sonnet-4-5") == "profile-claude-sonnet-4-5.json"
    assert tune.default_profile_path("a/b c:d") == "profile-a_b_c_d.json"


@pytest.fixture
def check_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The report's check of the winner, passing without reading (tests/test_tune_confirm.py
    tests the check itself): these tests are about what tune hands it and writes."""
    monkeypatch.setattr(
        tune, "confirm", lambda entry, readers=(), minimum=None: tune.Confirmation(True, "ok")
    )


def test_tune_and_write_writes_the_winner_where_asked(tmp_path: Path, check_passes: None) -> None:
    out = tmp_path / "tuned.json"
    outcome = tune.tune_and_write(
        "claude-sonnet-4-5", "oracle", fonts=["misc-5x8"], col_gaps=[0], row_gaps=[0],
        inks=["black-on-white"], lines=3, out=out,
    )  # fmt: skip
    assert outcome.result.winner is not None
    assert outcome.result.winner.candidate.font == "misc-5x8"
    assert outcome.path == out and out.is_file()
    confirmed = {"passed": True, "line": "ok", "check": None}
    expected = tune.profile_document(outcome.result)  # type: ignore[arg-type]
    expected["tuned"]["confirmed"] = confirmed
    assert outcome.document == {**expected, "confirmed": confirmed, "path": str(out)}
    from snapshot.profiles import load_profiles

    assert load_profiles(out)["claude-sonnet-4-5"].font == "misc-5x8"


def test_tune_and_write_defaults_target_seed_and_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, check_passes: None
) -> None:
    monkeypatch.chdir(tmp_path)
    seen: dict[str, Any] = {}
    real = tune.tune

    def spy(model: str, reader: Any, **kw: Any) -> Any:
        seen.update(reader=reader.name, **kw)
        return real(model, reader, **kw)

    monkeypatch.setattr(tune, "tune", spy)
    outcome = tune.tune_and_write(
        "claude-sonnet-4-5", "oracle", fonts=["misc-5x8"], col_gaps=[0], row_gaps=[0],
        inks=["black-on-white"], lines=2,
    )  # fmt: skip
    assert seen == {
        "reader": "oracle",
        "target": 0.99,
        "seed": 0,
        "lines": 2,
        "fonts": ["misc-5x8"],
        "col_gaps": [0],
        "row_gaps": [0],
        "inks": ["black-on-white"],
    }
    assert outcome.path == Path("profile-claude-sonnet-4-5.json")
    assert (tmp_path / "profile-claude-sonnet-4-5.json").is_file()


def test_tune_pages_and_write_builds_the_goal_and_writes_nothing_without_a_winner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import snapshot.legibility.page_readers as page_readers

    monkeypatch.chdir(tmp_path)
    seen: dict[str, Any] = {}
    monkeypatch.setattr(page_readers, "load_page_reader", lambda name: f"reader:{name}")

    def fake(model: str, reader: Any, **kw: Any) -> Any:
        seen.update(model=model, reader=reader, **kw)
        return SimpleNamespace(winner=None, why="nothing read at the target")

    monkeypatch.setattr(tune, "tune_pages", fake)
    outcome = tune.tune_pages_and_write(
        "claude-sonnet-4-5", "ppocrv5", styles=[("misc-5x8", None, "1-bit")], row_gaps=[1],
        measure_page="own", pages=2, cache=tmp_path / "c.jsonl",
    )  # fmt: skip
    cache = seen.pop("cache")
    assert isinstance(cache, frontier.PointCache) and cache.path == tmp_path / "c.jsonl"
    assert seen == {
        "model": "claude-sonnet-4-5",
        "reader": "reader:ppocrv5",
        "target": Goal(char_accuracy=0.97, hard_tokens=0.9, resampled_char_accuracy=0.9),
        "seed": None,
        "pages": 2,
        "styles": [("misc-5x8", None, "1-bit")],
        "row_gaps": [1],
    }
    assert outcome.path is None
    assert outcome.document == {"why": "nothing read at the target", "path": None}
    assert list(tmp_path.iterdir()) == []
    seen.clear()
    tune.tune_pages_and_write("m", "ppocrv5", target=0.5, measure_page=(784, 728))
    assert seen["measure_page"] == (784, 728)
    assert seen["target"] == Goal(0.5, 0.9, 0.9)


# --- legibility ----------------------------------------------------------------------------


def test_filter_set() -> None:
    assert resample.filter_set(None) == resample.FILTERS
    assert resample.filter_set(["lanczos", "all"]) == resample.FILTERS
    assert resample.filter_set(["box", "nearest", "box"]) == ("box", "nearest")
    with pytest.raises(SnapshotError, match="unknown filter 'sinc'"):
        resample.filter_set(["sinc"])


def test_legibility_table_takes_filter_names_and_default_fonts() -> None:
    def filters_of(names: Any) -> list[str]:
        table = lab.legibility_table(
            "claude-sonnet-4-5", fonts=["misc-5x8"], readers=["oracle"], scales=[0.9],
            filters=names, lines=2, pairs=1,
        )  # fmt: skip
        return [r.filter for r in table.rows]

    assert filters_of(["box", "box", "bicubic"]) == ["box", "bicubic"]
    assert filters_of(None) == filters_of(["all"]) == list(resample.FILTERS)
    with pytest.raises(SnapshotError, match="no font to measure"):
        lab.legibility_table("claude-sonnet-4-5", fonts=[], readers=["oracle"], lines=2)
