"""Peak memory of importing a large session of each streamed format (issue 9).

Each case grows a real sample of ``../shared/corpus`` to about
``SNAPSHOT_FORMAT_IMPORT_MB`` (default 100) MB in a temp dir: the long list of
a JSON document (its messages, history or contents) repeated, with fresh ids
where the format links by them, or the turns of a Markdown export repeated.
Two fresh subprocesses read it, side by side:

- ``import``: ``snapshot import FILE --out conversations.json --json`` (the
  importer, the text-kept check, the saved document);
- ``whole``: the obvious alternative's floor: the file parsed whole
  (``json.load``, or its text split into lines) and nothing else, which is
  what every one of these importers did before it read the file a piece at a
  time.

Each reports its peak RSS (``VmHWM``) and CPU time. ``test_goal`` writes
``reports/bench/import_memory_formats.json`` and asserts issue 9's claim for each
format measured: importing peaks below the file parsed whole.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import results
from conftest import PEAK_RSS, STATS, peak_child, record, shared_dir

MB = int(os.environ.get("SNAPSHOT_FORMAT_IMPORT_MB", "100"))

#: name -> {"bytes", "rss", "cpu", ...} of each child, for the summary
FIGURES: dict[str, dict[str, float]] = {}

_MEASURE = (
    PEAK_RSS
    + """
import json, sys, time
from pathlib import Path
t = time.process_time()
kind, src, out = sys.argv[1], sys.argv[2], sys.argv[3]
if kind == "import":
    from snapshot.cli import main
    code = main(["import", src, "--out", out, "--json"])
elif kind == "whole-json":
    with open(src, "rb") as fh:
        doc = json.load(fh)
    code = 0
else:  # whole-text
    lines = Path(src).read_text(encoding="utf-8", errors="replace").splitlines()
    code = 0
cpu = time.process_time() - t
print(json.dumps({"code": code, "rss": peak_rss(), "cpu": cpu}), file=sys.stderr)
"""
)


def _repeat(items: list[Any], target: int, fresh: Callable[[Any, int], Any]) -> list[Any]:
    """``items`` copied (``fresh(item, copy_number)``) until their JSON is about ``target`` bytes."""
    size = max(1, len(json.dumps(items)))
    copies = max(1, target // size)
    return [fresh(item, n) for n in range(copies) for item in items]


def _same(item: Any, n: int) -> Any:
    return item


def _fresh_id(item: Any, n: int) -> Any:
    if isinstance(item, dict) and isinstance(item.get("id"), str):
        return {**item, "id": f"{item['id']}-{n}"}
    return item


def _grow_json(sample: Path, out: Path, keys: tuple[str | None, ...], fresh: Any) -> None:
    doc = json.loads(sample.read_text(encoding="utf-8"))
    target = MB * 1_000_000
    for key in keys:
        if key is None:
            doc = _repeat(doc, target, fresh)
        else:
            doc[key] = _repeat(doc[key], target // len(keys), fresh)
    with out.open("w", encoding="utf-8") as fh:
        json.dump(doc, fh)


def _grow_markdown(sample: Path, out: Path, marker: str | None) -> None:
    """The text after the first ``marker`` line (all of it for None) repeated."""
    text = sample.read_text(encoding="utf-8")
    cut = 0 if marker is None else text.index(marker)
    head, body = text[:cut], text[cut:]
    copies = max(1, MB * 1_000_000 // max(1, len(body.encode())))
    with out.open("w", encoding="utf-8") as fh:
        fh.write(head)
        for _ in range(copies):
            fh.write(body if body.endswith("\n") else body + "\n")


# name -> (sample under ../shared/corpus, the file name to write, how to grow it, kind)
CASES: dict[str, tuple[str, str, Callable[[Path, Path], None], str]] = {
    "gemini-cli": (
        "formats/gemini-cli/kvsankar-gemini-session-01.json",
        "session-big.json",
        lambda s, o: _grow_json(s, o, ("messages",), _fresh_id),
        "whole-json",
    ),
    "cline-roo": (
        "formats/cline-roo/roo-natural-mini-uncondensed/api_conversation_history.json",
        "task/api_conversation_history.json",
        lambda s, o: _grow_json(s, o, (None,), _same),
        "whole-json",
    ),
    "continue": (
        "formats/continue/developer-67733f7c.json",
        "big.json",
        lambda s, o: _grow_json(s, o, ("history",), _same),
        "whole-json",
    ),
    "browser-use": (
        "formats/browser-use/pentest-agent-agent_history.json",
        "agent_history.json",
        lambda s, o: _grow_json(s, o, ("history",), _same),
        "whole-json",
    ),
    "gemini-content": (
        "formats/gemini-content/gemini-cli-trajectory.json",
        "contents.json",
        lambda s, o: _grow_json(s, o, (None,), _same),
        "whole-json",
    ),
    "openai-responses": (
        "formats/openai-responses/oh-sdk-skill-probe-request_payload.json",
        "request_payload.json",
        lambda s, o: _grow_json(s, o, ("input",), _same),
        "whole-json",
    ),
    "openai-chat": (
        "formats/openai-chat/oh-sdk-litellm-telemetry-haiku-4c3a.json",
        "telemetry.json",
        lambda s, o: _grow_json(s, o, ("messages",), _same),
        "whole-json",
    ),
    "mini-swe-agent": (
        "formats/mini-swe-agent/msa-local.traj.json",
        "big.traj.json",
        lambda s, o: _grow_json(s, o, (None,), _same),  # the early bare list of messages
        "whole-json",
    ),
    "swe-agent": (
        "swe_agent/demonstrations__ctf__crypto__BabyEncryption.traj",
        "big.traj",
        lambda s, o: _grow_json(s, o, ("history", "trajectory"), _same),
        "whole-json",
    ),
    "aider": (
        "formats/aider-md/ai-text-detector.aider.chat.history.md",
        ".aider.chat.history.md",
        lambda s, o: _grow_markdown(s, o, None),
        "whole-text",
    ),
    "specstory": (
        "formats/specstory-md/skillz-2025-11-06_05-03Z-combine-design-documents.md",
        "big.md",
        lambda s, o: _grow_markdown(s, o, "_**User"),
        "whole-text",
    ),
    "cursor": (
        "formats/cursor-md/gemini-cli-cursor_understanding_the_codebase_archi.md",
        "cursor_export.md",
        lambda s, o: _grow_markdown(s, o, "**User**"),
        "whole-text",
    ),
}


def _sample(name: str) -> Path:
    base = shared_dir()
    rel = CASES[name][0]
    path = None if base is None else base / "corpus" / rel
    if path is None or not path.is_file():
        pytest.skip(f"sample {rel} is not under ../shared/corpus (set SNAPSHOT_SHARED)")
    return path


@pytest.mark.benchmark(group="import-memory-formats")
@pytest.mark.parametrize("name", list(CASES))
def test_format_import_peak_rss(benchmark: Any, tmp_path: Path, name: str) -> None:
    _, filename, grow, whole = CASES[name]
    src = tmp_path / filename
    src.parent.mkdir(parents=True, exist_ok=True)
    grow(_sample(name), src)
    result: dict[str, dict[str, float]] = {}

    def run() -> None:
        for kind in ("import", whole):
            out = tmp_path / f"{kind}.json"
            result[kind] = peak_child(_MEASURE, kind, str(src), str(out))

    record(benchmark, f"format_import_rss_{name}", run, rounds=1, iterations=1)
    FIGURES[name] = {
        "bytes": src.stat().st_size,
        "import_rss": result["import"]["rss"],
        "import_cpu": result["import"]["cpu"],
        "whole_rss": result[whole]["rss"],
        "whole_cpu": result[whole]["cpu"],
        "code": result["import"]["code"],
    }
    assert result["import"]["code"] == 0, f"{name}: snapshot import exited {result['import']}"


def summary_lines() -> list[str]:
    """One line per format: peak RSS importing, against parsing the file whole."""
    out = []
    for name, f in FIGURES.items():
        out.append(
            f"import {name} {f['bytes'] / 1e6:.0f} MB: peak RSS {f['import_rss'] / 1e6:.0f} MB "
            f"(CPU {f['import_cpu']:.1f} s); the file parsed whole: "
            f"{f['whole_rss'] / 1e6:.0f} MB ({f['whole_rss'] / f['import_rss']:.1f}x)"
        )
    return out


def test_goal() -> None:
    if not FIGURES:
        pytest.skip("no format was measured in this run")
    figures: dict[str, dict[str, Any]] = {}
    ratios: dict[str, dict[str, Any]] = {}
    for name, f in FIGURES.items():
        mb = f["bytes"] / 1e6
        figures[f"{name}_import_rss_mb"] = results.figure(
            f["import_rss"] / 1e6, "MB", f"snapshot import, {mb:.0f} MB file"
        )
        figures[f"{name}_whole_rss_mb"] = results.figure(
            f["whole_rss"] / 1e6, "MB", f"the {mb:.0f} MB file parsed whole"
        )
        figures[f"{name}_import_cpu_s"] = results.figure(f["import_cpu"], "s", "CPU of the import")
        ratios[f"{name}_whole_over_import"] = results.figure(
            f["whole_rss"] / f["import_rss"], "x", "peak RSS: parsed whole vs imported"
        )
    record = results.finish(
        results.bench_name(__file__),
        {
            "arms": {k: v for k, v in STATS.items() if k.startswith("format_import_rss_")},
            "figures": figures,
            "ratios": ratios,
            "params": {"mb": MB, "formats": sorted(FIGURES)},
        },
        {
            f"{name}_below_whole": results.Goal(
                f["whole_rss"] / f["import_rss"], ">", 1, "x", "issue 9 (read a piece at a time)"
            )
            for name, f in FIGURES.items()
        },
    )
    results.check(record)
