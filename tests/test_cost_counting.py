"""The cost bench's counting (``bench/cost_counting.py``) on a small committed fixture.

The prefix-cache model (a moved ``cache_control`` marker is not a change; a paged block ends
the shared prefix), the published image rule and the exact-id coverage (kept as text, on pages
only, dropped), on ``tests/data/cost_bench/requests.json`` (``tests/cost_bench_builders.py``).
No timing here: the bench itself is ``bench/test_cost_vs_pxpipe.py``.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cost_bench_builders as builders  # noqa: E402

pytest.importorskip("ctok", reason="the Claude text counter (ctok) is not installed")


@pytest.fixture(scope="module")
def counting() -> ModuleType:
    path = HERE.parent / "bench" / "cost_counting.py"
    if not path.is_file():
        pytest.skip(f"{path} is not in this checkout (an installed package without bench/)")
    spec = importlib.util.spec_from_file_location("bench_cost_counting", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pairs() -> list[dict[str, Any]]:
    return list(json.loads(builders.FIXTURE.read_text(encoding="utf-8")))


def test_the_committed_fixture_is_what_the_builder_makes(pairs: list[dict[str, Any]]) -> None:
    pytest.importorskip("PIL", reason="the builder draws its page with Pillow")
    assert pairs == builders.requests(), "run python tests/cost_bench_builders.py"


def test_prefix_cache_reads_what_the_previous_request_shared(
    counting: ModuleType, pairs: list[dict[str, Any]]
) -> None:
    cache = counting.PrefixCache()
    splits, blocks = [], []
    for pair in pairs:
        counted = counting.count_body(pair["upstream"], builders.MODEL)
        blocks.append(counted)
        splits.append(cache.add(counting.conversation_key(pair["client"]), counted))
    first, second, third = splits
    assert first.read == 0 and first.write == sum(b.tokens for b in blocks[0])
    # the marker moved off the first message: every block of request 1 is read, nothing else
    assert second.read == first.total
    assert second.write == sum(b.tokens for b in blocks[1][len(blocks[0]) :])
    # request 3 drew the first tool result on a page: the prefix ends at that block
    paged = next(i for i, b in enumerate(blocks[2]) if b.image)
    assert third.read == sum(b.tokens for b in blocks[2][:paged])
    assert third.write == sum(b.tokens for b in blocks[2][paged:])
    assert third.weighted == pytest.approx(0.1 * third.read + 1.25 * third.write)


def test_a_new_conversation_writes_everything(
    counting: ModuleType, pairs: list[dict[str, Any]]
) -> None:
    cache = counting.PrefixCache()
    body = pairs[1]["client"]
    counted = counting.count_body(body, builders.MODEL)
    cache.add("one", counted)
    assert cache.add("other", counted).read == 0
    assert cache.add("one", counted).write == 0


def test_a_page_counts_by_the_published_rule(
    counting: ModuleType, pairs: list[dict[str, Any]]
) -> None:
    counted = counting.count_body(pairs[2]["upstream"], builders.MODEL)
    index = counting.text_tokens(builders.MODEL, builders.INDEX)
    page = next(b for b in counted if b.image)
    assert page.tokens == round(1568 * 728 / 750) + index  # w·h/750 (1,522) and the index line
    assert counting.count_images(pairs[2]["upstream"]) == 1


def test_exact_id_coverage_splits_kept_paged_and_dropped(
    counting: ModuleType, pairs: list[dict[str, Any]]
) -> None:
    unchanged = counting.id_coverage(pairs[1]["client"], pairs[1]["upstream"])
    assert unchanged == counting.IdCoverage(0, 0, 0, 0)
    paged = counting.id_coverage(pairs[2]["client"], pairs[2]["upstream"])
    # the hash, the path:line, the UUID and the grouped number left the text; the index keeps two
    assert paged == counting.IdCoverage(off_text=4, kept=2, on_pages=2, dropped=0)
    client = pairs[2]["client"]
    cleared = json.loads(json.dumps(client))
    cleared["messages"][2]["content"][0]["content"] = "[cleared]"
    assert counting.id_coverage(client, cleared) == counting.IdCoverage(4, 0, 0, 4)
