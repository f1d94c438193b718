from __future__ import annotations

from snapshot.ladder.needles import candidates, draw_needles, recall, recall_by_kind

SPAN = """[tool result #abc]
commit 3f9a2c7e1b touched src/snapshot/rendering/raster.py and tests/test_raster.py
Traceback (most recent call last):
KeyError: 'pageCount'
total 48213 bytes in 1523 files; getUserName returned HTTPServer
"""


def test_candidates_cover_every_kind() -> None:
    found = candidates(SPAN)
    assert "3f9a2c7e1b" in found["hex"]
    assert "src/snapshot/rendering/raster.py" in found["path"]
    assert "48213" in found["number"]
    assert any("KeyError" in e for e in found["error"])
    assert "getUserName" in found["name"] and "HTTPServer" in found["name"]


def test_draw_is_seeded_and_bounded() -> None:
    a = draw_needles(SPAN * 3, seed=7, per_kind=2)
    b = draw_needles(SPAN * 3, seed=7, per_kind=2)
    assert a == b
    assert all(sum(n.kind == k for n in a) <= 2 for k in {n.kind for n in a})


def test_recall_is_exact_modulo_whitespace() -> None:
    needles = draw_needles(SPAN, seed=1)
    assert recall(needles, SPAN) == 1.0
    # Reflowed onto pages: line breaks move, characters must not.
    assert recall(needles, SPAN.replace(" ", "\n")) == 1.0
    # One swapped glyph loses the needle: exact means exact.
    damaged = SPAN.replace("3f9a2c7e1b", "3f9a2c7elb")
    by_kind = recall_by_kind(needles, damaged)
    assert by_kind["hex"] < 1.0
    assert recall(needles, "") == 0.0


# ---------------------------------------------------------------------------- independent sample

from snapshot.ladder import needles as needles_mod  # noqa: E402
from snapshot.ladder.needles import CLASSES, found, sample_needles, spans_by_class  # noqa: E402
from snapshot.readability.scoring import wilson_interval  # noqa: E402

SOURCE = """$ git log -1
commit 3f9a2c7e1b0d touched src/snapshot/rendering/raster.py and tests/test_raster.py
request id 3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c took 1523 ms (limit=60000)
Traceback (most recent call last):
ValueError: page_count must be positive, got -3
The renderer draws every glyph row from a lookup table in one pass.
getUserName returned HTTP_SERVER_ERROR for user.profile_id
"""


def test_every_class_is_sampled_from_the_source() -> None:
    spans = spans_by_class(SOURCE)
    assert set(spans) == set(CLASSES)
    assert "3f9a2c7e1b0d" in spans["hex"]
    assert spans["uuid"] == ["3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c"]
    assert {"src/snapshot/rendering/raster.py", "tests/test_raster.py"} <= set(spans["path"])
    assert {"1523", "60000"} <= set(spans["number"])
    assert "ValueError: page_count must be positive, got -3" in spans["error"]
    assert {"getUserName", "HTTP_SERVER_ERROR", "user.profile_id"} <= set(spans["identifier"])
    assert "The renderer draws every glyph" in spans["phrase"]
    # every span is verbatim source text (modulo whitespace)
    for kind in CLASSES:
        assert all(found([needles_mod.Needle(kind, s)], SOURCE)[0] for s in spans[kind])


def test_sample_is_independent_of_the_factsheet_extractor() -> None:
    """The sample shares no code with `candidates`: breaking the extractor changes nothing."""
    before = sample_needles(SOURCE, seed=5)
    saved = dict(needles_mod._PATTERNS)
    try:
        needles_mod._PATTERNS.clear()
        assert sample_needles(SOURCE, seed=5) == before
    finally:
        needles_mod._PATTERNS.update(saved)
    # and it holds classes the extractor never produces
    assert {"uuid", "phrase", "identifier"} <= {n.kind for n in before}


def test_sample_is_seeded_per_class() -> None:
    text = "\n".join(f"item {i:x}a{i * 7919:07d} at build/out/{i}/x.o" for i in range(40))
    a = sample_needles(text, seed=1, per_class=2)
    assert a == sample_needles(text, seed=1, per_class=2)
    assert a != sample_needles(text, seed=2, per_class=2)
    # more text of another class does not move the hex sample
    more = text + "\n" + " ".join(f"extraWord{i}" for i in range(30))
    hexes = [n for n in a if n.kind == "hex"]
    assert hexes == [n for n in sample_needles(more, seed=1, per_class=2) if n.kind == "hex"]
    assert all(sum(n.kind == k for n in a) <= 2 for k in CLASSES)


def test_a_wrapped_needle_still_counts() -> None:
    needle = needles_mod.Needle("error", "ValueError: page_count must be positive, got -3")
    wrapped = "ValueError: page_cou\nnt must be posi\ntive, got -3"
    assert found([needle], wrapped) == [True]
    assert found([needle], wrapped.replace("-3", "-8")) == [False]


def test_non_ascii_spans_are_not_needles() -> None:
    assert sample_needles("naïve_identifier ünïcode/päth/x.py", seed=0) == []


def test_wilson_interval() -> None:
    lo, hi = wilson_interval(16, 16)
    assert 0.79 < lo < 0.81 and hi == 1.0
    lo, hi = wilson_interval(0, 400)
    assert lo == 0.0 and hi < 0.01
    lo, hi = wilson_interval(200, 400)
    assert lo < 0.5 < hi and hi - lo < 0.1
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_every_sampled_needle_is_verbatim_source() -> None:
    text = SOURCE + "\nthe ids, and blocks so we keep one set lookup, not a scan of the list here\n"
    for n in sample_needles(text, seed=3, per_class=50):
        assert found([n], text) == [True], n
