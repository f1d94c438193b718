"""``gemini_tree`` never accepts a Gemini body that ``google-genai``'s pydantic types refuse.

On real bodies (the format samples of ``../shared/corpus/formats`` exported as
``gemini``) and seeded breakages of them, every body the data accepts is one
``validate_gemini`` finds no problem in; most real bodies are accepted (else the
data saves nothing). Base64 the data accepts pydantic reads too; the data is the
one the installed ``google-genai`` compiles to.
"""

from __future__ import annotations

import base64
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from body_mutations import broken as break_body
from hypothesis import given, settings
from hypothesis import strategies as st

from snapshot.transcript.validate import gemini_tree

REPO = Path(__file__).resolve().parents[1]
_ENV = os.environ.get("SNAPSHOT_CORPUS")
CORPUS = Path(_ENV) if _ENV else REPO.parent / "shared" / "corpus"
SAMPLES = 8


def _tree() -> gemini_tree.Tree:
    tree = gemini_tree.current()
    if tree is None:
        pytest.skip(
            f"the installed {gemini_tree.versions()} are not what {gemini_tree.DATA.name} was "
            "written from: run python -m snapshot.transcript.validate.gemini_tree"
        )
    return tree


def _pydantic_problems(body: Any) -> list[Any]:
    from snapshot.transcript.validate import gemini_types

    gemini_tree.current.cache_clear()
    saved = gemini_tree.current
    try:
        gemini_tree.current = lambda: None  # type: ignore[assignment]
        return gemini_types.validate_gemini(body)
    finally:
        gemini_tree.current = saved


def test_the_data_is_what_the_installed_sdk_compiles_to() -> None:
    tree = _tree()
    assert json.loads(json.dumps(gemini_tree.build())) == tree


def _bodies() -> list[tuple[str, Any]]:
    from snapshot.errors import SnapshotError
    from snapshot.transcript.export import export
    from snapshot.transcript.formats import import_path
    from snapshot.transcript.validate.corpus import corpus_files

    if not (CORPUS / "formats" / "MANIFEST.json").is_file():
        pytest.skip(f"corpus not found at {CORPUS}: set SNAPSHOT_CORPUS")
    out = []
    for entry in [f for f in corpus_files(CORPUS) if "formats" in f.path.parts][:SAMPLES]:
        try:
            conv = import_path(entry.path)[0]
            out.append((entry.path.name, export(conv, "gemini").body))
        except (SnapshotError, IndexError):
            continue
    assert out, "no format sample exported"
    return out


def test_what_the_data_accepts_pydantic_accepts() -> None:
    tree = _tree()
    rng = random.Random(29)
    accepted = real_accepted = refused = 0
    bodies = _bodies()
    for label, body in bodies:
        real_accepted += gemini_tree.accepts(body, tree)
        for case in [body] + [break_body(body, rng) for _ in range(6)]:
            if gemini_tree.accepts(case, tree):
                accepted += 1
                assert _pydantic_problems(case) == [], label
            else:
                refused += 1
    assert real_accepted > len(bodies) // 2 and accepted > 0 and refused > 0


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=40), st.booleans())
def test_base64_the_data_accepts_pydantic_reads(raw: bytes, urlsafe: bool) -> None:
    tree = _tree()
    text = (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(raw).decode()
    body = {"contents": [{"role": "model", "parts": [{"text": "x", "thoughtSignature": text}]}]}
    assert gemini_tree.accepts(body, tree)
    assert _pydantic_problems(body) == []
