"""A Cline / Roo Code ``ui_messages.json`` with no API history beside it (issue 26 item 10).

The real UI logs of ../shared/corpus/formats/cline-roo, each copied alone into a
temporary task folder: detected as ``cline-ui-messages``, rebuilt with one call
per UI tool entry (the MANIFEST's ``ui_tool`` hand count), lossy and saying
what is missing; beside its API history the task folder's importer keeps it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from format_samples import ROOT, SKIP, sample, samples

from snapshot.transcript.formats import detect, import_path, rank
from snapshot.transcript.formats.cline_ui import MISSING
from snapshot.transcript.validate import SHAPES, export_checked

pytestmark = SKIP

WITH_UI = [
    s
    for s in samples("cline-roo")
    if ROOT is not None and (ROOT / s / "ui_messages.json").is_file()
]


def _alone(relative: str, tmp_path: Path) -> tuple[Path, dict[str, int]]:
    folder, expected = sample(relative)
    task = tmp_path / folder.name
    task.mkdir()
    shutil.copyfile(folder / "ui_messages.json", task / "ui_messages.json")
    return task / "ui_messages.json", expected


@pytest.mark.parametrize("relative", WITH_UI)
def test_a_lone_ui_log_imports_lossily_and_says_what_is_missing(
    relative: str, tmp_path: Path
) -> None:
    path, expected = _alone(relative, tmp_path)
    assert detect(path).name == "cline-ui-messages"
    (conv,) = import_path(path)
    assert conv.meta["lossy"] is True and conv.meta["missing"] == list(MISSING)
    assert any("rebuilt lossily: missing the system prompt" in w for w in conv.warnings)
    calls = sum(len(m.tool_calls()) for m in conv.path())
    mcp = 6 if "already-condensed" in relative else 0  # its use_mcp_server calls
    assert calls == expected["ui_tool"] + mcp
    assert conv.meta["api_requests"] == expected["ui_api_req_started"]
    for shape in SHAPES:
        _, checked = export_checked(conv, shape)
        assert checked.ok, (shape, checked.problems[:3])


@pytest.mark.parametrize("relative", WITH_UI)
def test_beside_its_api_history_the_task_importer_keeps_it(relative: str) -> None:
    folder, _ = sample(relative)
    ui = folder / "ui_messages.json"
    assert detect(ui).name == "cline-roo-task"
    assert "cline-ui-messages" not in [f.name for f, _ in rank(ui)]
