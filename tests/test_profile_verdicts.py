"""The profiles' readability verdicts are the lab's, as committed.

The profiles read ``snapshot/profiles/readability.json`` (shipped in the wheel) instead of
importing the lab; this holds that file to what the lab makes of the committed readings,
so a new reading that changes a verdict fails here until the file is rewritten
(``python -c "from snapshot.legibility.weakest import write_verdicts; write_verdicts()"``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from snapshot.profiles.readability import VERDICTS_FILE, readability_of, weakest_reader_column

POINTS = Path(__file__).resolve().parents[1] / "reports" / "frontier-points.jsonl"


@pytest.mark.skipif(not POINTS.is_file(), reason="reports/frontier-points.jsonl is not here")
def test_committed_verdicts_are_what_the_lab_makes_of_the_committed_readings() -> None:
    from snapshot.legibility.weakest import verdicts_data

    committed = json.loads(VERDICTS_FILE.read_text(encoding="utf-8"))
    assert committed == json.loads(json.dumps(verdicts_data(POINTS), ensure_ascii=False))


def test_every_default_vision_profile_has_a_committed_verdict() -> None:
    from snapshot import profiles

    for model in profiles.current_default_models():
        if profiles.profile_for(model).vision:
            assert readability_of(model)["measured"] is True, model


def test_the_listing_column_reads_the_committed_file() -> None:
    from snapshot import profiles

    record = profiles.profile_for("claude-sonnet-5-5").as_dict()
    cell = weakest_reader_column([record])["claude-sonnet-5-5"]
    # "0.968 of control (0.956) rapidocr-v4 on hardlines": relative, absolute, reader, text
    assert re.fullmatch(r"\d\.\d{3} of control \(\d\.\d{3}\) \S+ on \w+( ✓)?", cell), cell
    assert cell.split()[4] in {
        "easyocr-en",
        "tesseract-x2",
        "rapidocr-v4",
        "ppocrv5",
        "ppocrv6-small",
    }
