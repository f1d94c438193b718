from __future__ import annotations

from snapshot.ladder.needles import candidates, draw_needles, recall, recall_by_kind

SPAN = """[tool result #abc]
commit 3f9a2c7e1b touched src/snapshot/raster.py and tests/test_raster.py
Traceback (most recent call last):
KeyError: 'pageCount'
total 48213 bytes in 1523 files; getUserName returned HTTPServer
"""


def test_candidates_cover_every_kind() -> None:
    found = candidates(SPAN)
    assert "3f9a2c7e1b" in found["hex"]
    assert "src/snapshot/raster.py" in found["path"]
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
