"""Every importer on mutated real samples: conversations or one clear error (issue 28 item 6).

Bounded: a few derandomized cases per format (:mod:`fuzz_inputs` says what is
mutated), each under an alarm that calls a case of more than
:data:`CASE_LIMIT_S` a hang. The long run is ``bench/test_fuzz_long.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzz_inputs import bounded, check_case, main_file, mutate, seeds, small_copy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SEEDS = seeds()
CASE_LIMIT_S = 30  # a hang is minutes; 2 shared cores make seconds vary
SKIP = pytest.mark.skipif(
    not SEEDS,
    reason="format samples not found: put them at ../shared/corpus/formats or set SNAPSHOT_CORPUS",
)


@SKIP
def test_every_trimmed_seed_still_imports(tmp_path: Path) -> None:
    for folder, (fmt, src) in SEEDS.items():
        (tmp_path / folder).mkdir()
        case = small_copy(src, tmp_path / folder / src.name)
        assert check_case(case, fmt), folder


@SKIP
@pytest.mark.parametrize("folder", sorted(SEEDS) or ["none"])
@settings(
    max_examples=4,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_a_mutated_sample_imports_or_fails_clearly(
    folder: str, data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    fmt, src = SEEDS[folder]
    case = small_copy(src, tmp_path_factory.mktemp("fuzz") / src.name)
    target = main_file(case)
    target.write_bytes(mutate(target.read_bytes(), data, huge=50_000))
    with bounded(CASE_LIMIT_S):
        check_case(case, fmt)  # the format forced
        check_case(case, None)  # detected
