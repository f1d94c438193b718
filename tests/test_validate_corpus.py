"""Issue 12's "done when": every corpus file that imports exports to anthropic, openai,
openai-responses and gemini with zero validation problems, and compacts for a Claude, an
OpenAI and a Gemini 3 model with zero synthetic results where the source had real ones.

Reads ``../shared/corpus`` (or ``$SNAPSHOT_CORPUS``): every sample of
``formats/MANIFEST.json`` and every ``benchmark.manifest.json`` entry. Skips,
saying why, when the corpus is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from snapshot.ladder.corpus_check import COMPACT_MODELS, validate_corpus
from snapshot.transcript.validate.corpus import corpus_files
from snapshot.transcript.validate.openai_spec import SchemaUnavailable, spec_path

REPO = Path(__file__).resolve().parents[1]
_ENV = os.environ.get("SNAPSHOT_CORPUS")
CORPUS = Path(_ENV) if _ENV else REPO.parent / "shared" / "corpus"

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.slow,
    pytest.mark.skipif(
        not (CORPUS / "benchmark.manifest.json").is_file(),
        reason="corpus not found: set SNAPSHOT_CORPUS or put it at ../shared/corpus",
    ),
]


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")


@pytest.mark.parametrize("part", ["formats", "benchmark"])
def test_corpus_exports_validate_and_compactions_invent_no_results(part: str) -> None:
    try:
        spec_path()
    except SchemaUnavailable as exc:
        pytest.skip(f"OpenAI bodies cannot be schema-checked: {exc}")
    files = [f for f in corpus_files(CORPUS) if ("formats" in f.path.parts) == (part == "formats")]
    result = validate_corpus(CORPUS, files=files, models=COMPACT_MODELS)
    print(result.summary())  # the validation count, with -s
    assert result.imported > 0 and result.bodies == 4 * result.conversations
    assert result.compactions == len(COMPACT_MODELS) * result.conversations
    assert result.ok, result.failures[:10]
