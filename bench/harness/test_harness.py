"""Issue 38 item 8: each agent CLI, pinned, through ``snapshot proxy`` for 42 shell turns.

Each (CLI, model) session runs once per pytest session (``harness_run.run_one``: the CLI against
a recording tap, the proxy as a real process, a tap, the fake upstream with the scripted model),
then each check reads its records. A CLI that is not installed skips, saying how to install it;
the fidelity check fails naming the missing ``outside_span_diff`` on trees without it.

Run: ``python bench/harness/harness_install.py`` once, then
``python -m pytest -p no:cacheprovider bench/harness/test_harness.py``
(``-k claude`` for one CLI). Each session takes 1-5 minutes on the shared 2-core VM.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness_checks import MISSING_FIDELITY
from harness_clis import RUNS, Run
from harness_install import PINS, cache_root, installed
from harness_run import run_one

_SESSIONS: dict[str, dict[str, Any]] = {}
REQUIRED = [run for run in RUNS if run.required]
IDS = [run.name for run in REQUIRED]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Any:
    def get(run: Run) -> dict[str, Any]:
        if installed(run.cli) is None:
            package, version = PINS[run.cli]
            pytest.skip(
                f"{package}@{version} is not installed under {cache_root()}: "
                "run python bench/harness/harness_install.py"
            )
        if run.name not in _SESSIONS:
            folder = tmp_path_factory.mktemp(run.name)
            _SESSIONS[run.name] = run_one(run.cli, run.model, folder, window=run.window)
        return _SESSIONS[run.name]

    return get


def _show(s: dict[str, Any]) -> str:
    return f"{s['cli']} {s['version']} ({s['model']}, seen {s['models_seen']})"


@pytest.mark.parametrize("run", REQUIRED, ids=IDS)
def test_every_turn_done_and_exit_0(runs: Any, run: Run) -> None:
    s = runs(run)
    assert s["exit_code"] == 0, f"{_show(s)} exited {s['exit_code']}"
    assert s["highest_part"] >= s["parts"] and s["finished"], (
        f"{_show(s)}: {s['shell_turns']} shell turns, reached part {s['highest_part']} of "
        f"{s['parts']}, finished={s['finished']}; client rejections: "
        f"{s['client_rejection_samples'][:2]}"
    )


@pytest.mark.parametrize("run", REQUIRED, ids=IDS)
def test_crosses_the_threshold(runs: Any, run: Run) -> None:
    s = runs(run)
    assert s["upstream_rejections"] >= 1, f"{_show(s)}: the session never reached the fake's limit"
    assert s["compacted_requests"] > 0, f"{_show(s)}: no request was compacted"


@pytest.mark.parametrize("run", REQUIRED, ids=IDS)
def test_fidelity_diff_empty(runs: Any, run: Run) -> None:
    s = runs(run)
    if not s["compacted_requests"]:
        pytest.fail(f"{_show(s)}: no compacted request to check")
    if not s["fidelity"]["available"]:
        pytest.fail(
            f"{MISSING_FIDELITY}; the harness's coarse diff found differences in "
            f"{s['fidelity']['coarse_differences']} of {s['compacted_requests']} compacted "
            f"requests: {s['findings'][:3]}"
        )
    assert s["fidelity"]["requests_with_differences"] == 0, (
        f"{_show(s)}: {s['fidelity']['requests_with_differences']} of "
        f"{s['compacted_requests']} compacted requests differ outside the span: {s['findings'][:3]}"
    )


@pytest.mark.parametrize("run", REQUIRED, ids=IDS)
def test_compacted_requests_reuse_the_previous_pass(runs: Any, run: Run) -> None:
    s = runs(run)
    reuse = s["reuse"]
    assert reuse["share"] is not None, f"{_show(s)}: fewer than two compacted requests"
    assert reuse["share"] >= 0.5, (
        f"{_show(s)}: {reuse['reused']} of {reuse['of']} compacted requests reuse the previous "
        "pass's pages (goal: at least half)"
    )


@pytest.mark.parametrize("run", REQUIRED, ids=IDS)
def test_no_rejection_reaches_the_client(runs: Any, run: Run) -> None:
    s = runs(run)
    assert s["client_rejections"] == 0, (
        f"{_show(s)}: {s['client_rejections']} error replies reached the CLI: "
        f"{s['client_rejection_samples'][:2]}"
    )
    assert s["repeated_refusals"] == 0, f"{_show(s)}: a refused body was sent again"


@pytest.mark.parametrize("run", REQUIRED, ids=IDS)
def test_key_never_written(runs: Any, run: Run) -> None:
    s = runs(run)
    assert not s["key_leaks"], f"{_show(s)}: the key is in {s['key_leaks']}"


@pytest.mark.parametrize("run", REQUIRED, ids=IDS)
def test_store_export_answers_every_call(runs: Any, run: Run) -> None:
    s = runs(run)
    store = s["store"]
    assert store["answers_every_call"], (
        f"{_show(s)}: {store['conversations']} stored conversations; export: "
        f"{store['unanswered_calls']} calls with no result, {store['orphan_results']} results "
        f"with no call, {store['parts_in_largest']} of {s['parts']} parts' text; "
        f"{[r['notes'][:1] for r in store['rows']][:2]}"
    )
