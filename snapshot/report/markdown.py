"""REPORT.md: what was run, the tables, the figures, and how far to trust each number."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from snapshot.report.matrix import Settings
from snapshot.report.needle_recall import ReaderRecall, reader_recall
from snapshot.report.provenance import LABELS, LEGEND, marker, shares
from snapshot.report.ranges import range_section
from snapshot.report.run import RunResult
from snapshot.report.tables import Aggregate, aggregate, budget_met, by_category, rung_paths


def _pct(v: float | None) -> str:
    return "n/m" if v is None else f"{100 * v:.0f} %"


def _pct_m(v: float | None) -> str:
    """A measured share, marked (``n/m``: not measured, unmarked)."""
    return "n/m" if v is None else f"{100 * v:.0f} %{marker('measured')}"


def _usd(v: float | None) -> str:
    return "n/p" if v is None else f"${v:,.2f}"


def _ci(x: ReaderRecall | None) -> str:
    """``share [lo–hi] (n)``, or ``–`` for a reader with no measurement."""
    if x is None or not x.needles:
        return "–"
    lo, hi = x.interval
    return f"{100 * (x.share or 0):.0f} % [{100 * lo:.0f}–{100 * hi:.0f}] ({x.needles})"


def _strategy_table(
    aggs: Sequence[Aggregate],
    readers: Sequence[ReaderRecall],
    context: dict[str, str],
    unit: str = "whole page",
) -> list[str]:
    names = list(dict.fromkeys(x.reader for x in readers if x.source == "whole page"))
    cell = {(x.model, x.strategy, x.reader): x for x in readers}
    head = "".join(f" {n}, {unit} |" for n in names)
    if names:  # what the whole-page figures were measured on, beside them
        head += f" {unit.replace(' ', '-')} figures measured on |"
    lines = [
        "| model | strategy | conversations | tokens after / before, pooled | per conversation: median [IQR] | recall (text) |"
        + head
        + " round-trip check (not readability) | crops given the renderer's rows | recall measured in | pages | request $ | next 10 turns $ (stable prefix) | same, prefix changed every turn | summary call $ | time s |",
        "|---|---|---|---|---|---|"
        + "---|" * (len(names) + bool(names))
        + "---|---|---|---|---|---|---|---|---|",
    ]
    for a in aggs:
        tok = marker(a.provenance)
        found = [cell.get((a.model, a.strategy, n)) for n in names]
        whole = "".join(f" {_ci(x)} |" for x in found)
        if names:
            measured = any(x is not None and x.needles for x in found)
            whole += f" {context.get(a.model, '') if measured else '–'} |"
        lines.append(
            f"| {a.model} | {a.label} | {a.conversations} "
            f"| {a.tokens_after:,} / {a.tokens_before:,} = {100 * a.ratio:.1f} %{tok} "
            f"| {100 * a.ratio_median:.1f} % [{100 * a.ratio_q1:.1f}–{100 * a.ratio_q3:.1f}]{tok} "
            f"| {_pct_m(a.recall_text)} |{whole} {_pct_m(a.round_trip_check)} "
            f"| {_pct_m(a.recall_crops_given_rows)} "
            f"| {a.conversations - a.unmeasured}/{a.conversations} | {a.pages:,}ᵐ "
            f"| {_usd(a.request_usd)} | {_usd(a.session_usd)}{_mod(a.session_usd)} "
            f"| {_usd(a.session_usd_rolling)}{_mod(a.session_usd_rolling)} "
            f"| {_usd(a.call_usd)}{_mod(a.call_usd) if a.population == 'modelled summary' else ''} "
            f"| {a.seconds:.1f} |"
        )
    return lines


def _elide_line(result: RunResult) -> list[str]:
    """Elide alone, pooled for the Claude profile: the share of tool-result characters it
    took out and the needle recall of what stays text (both measured, per conversation in
    results.json as ``elided_share``)."""
    from snapshot.report.models import profile_of

    files = result.settings.profiles_file
    claude = next((m for m in result.models if profile_of(m, files).provider == "anthropic"), None)
    rows = [r for r in result.rows if r.strategy == "elide" and r.model == claude]
    total = sum(r.tool_result_chars for r in rows)
    if not rows or not total:
        return []
    gone = sum(r.tool_result_chars_elided for r in rows)
    recalls = [r.recall_text for r in rows if r.recall_text is not None]
    recall = f"{100 * sum(recalls) / len(recalls):.1f} %" if recalls else "n/m"
    return [
        f"Elide alone (`{claude}`): {100 * gone / total:.1f} % of the tool-result characters "
        f"({gone:,} of {total:,}, pooled over {len(rows)} conversations) elided, measured; needle "
        f"recall of what stays text {recall} (mean per conversation, measured).",
        "",
    ]


def _mod(v: float | None) -> str:
    return "" if v is None else marker("modelled")


def _budget_table(result: RunResult) -> list[str]:
    lines = [
        "| model | conversations | met by free rungs alone | met with a real summary | met with a modelled summary | not met |",
        "|---|---|---|---|---|---|",
    ]
    for b in budget_met(result.rows):
        lines.append(
            f"| {b.model} | {b.conversations} | {b.free_rungs}ᵐ | {b.real_summary}ᵐ "
            f"| {b.modelled_summary}{marker('modelled')} | {b.not_met} |"
        )
    return lines


def _prices(result: RunResult) -> list[str]:
    """Which price and which lifecycle each profile was billed at."""
    from snapshot.report.run import model_records

    lines = [
        "## Profiles: prices, text counters and lifecycle",
        "",
        "| model | status | text tokens counted by | price database | matched id | input $/Mtok | cache read | cache write 5 min / 1 h | long-context tiers |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    priced_on = result.settings.priced_on or dt.date.today().isoformat()
    tier = result.settings.tier
    lines[1:1] = [
        "",
        f"Priced on **{priced_on}** at the **{tier}** tier (`--date`, `--tier`; default the "
        "run's date: prices change by date, e.g. Gemini 3.x Flash's introductory rate ends on "
        "2026-12-31). Lifecycle as of the same day, per the route's own schedule where the "
        "route sets one.",
    ]
    records = model_records(result.models, priced_on, result.settings.profiles_file, tier=tier)
    for model, rec in records.items():
        price = rec.get("price")
        status = rec.get("status", "")
        if rec.get("successor"):
            status += f" (successor: {rec['successor']})"
        if rec.get("uncertain") and rec["uncertain"].get("ends"):
            status += f"; UNCERTAIN {rec['uncertain']['name']}, see below"
        if price is None:
            lines.append(
                f"| {model} | {status} | {rec['text_counter']} | no price | – | – | – | – | – |"
            )
            continue
        tiers = (
            ", ".join(f"≥{t['from_input_tokens']:,}" for t in price.get("long_context_tiers", []))
            or "none"
        )
        lines.append(
            f"| {model} | {status} | {rec['text_counter']} | {price['database']} "
            f"| {price['matched_model']} | {price['input_per_mtok']} "
            f"| {price['cache_read_per_mtok'] if price['cache_read_per_mtok'] is not None else 'n/p'} "
            f"| {price['cache_write_5m_per_mtok'] if price['cache_write_5m_per_mtok'] is not None else 'input rate'}"
            f" / {price['cache_write_1h_per_mtok'] if price['cache_write_1h_per_mtok'] is not None else '–'} "
            f"| {tiers} |"
        )
    lines += [
        "",
        "Every dollar figure is tokens × these rates (exact rates from the price database named; "
        "the tokens carry their own provenance). `n/p`: the database has no such rate.",
        "",
    ]
    if tier != "standard":
        lines += [
            f"- {model} at the {tier} tier: {rec['price']['tier_source']}"
            for model, rec in records.items()
            if rec.get("price")
        ] + [""]
    return lines


def _trust(result: RunResult, aggs: Sequence[Aggregate]) -> list[str]:
    """The "How far to trust" section, generated from the provenance of every figure."""
    size = result.summary_size
    lines = ["## How far to trust these numbers", "", LEGEND, ""]
    lines += [
        "Share of each headline token figure by where its count comes from (pooled over the "
        "profile's conversations):",
        "",
        "| model | strategy | " + " | ".join(LABELS) + " |",
        "|---|---|" + "---|" * len(LABELS),
    ]
    for a in aggs:
        if a.strategy not in ("snapshot", "ladder", "summary"):
            continue
        sh = shares(a.tokens_provenance)
        lines.append(
            f"| {a.model} | {a.label} | "
            + " | ".join(f"{100 * sh[k]:.1f} %" if k in sh else "–" for k in LABELS)
            + " |"
        )
    lines.append("")
    counters = sorted(
        {
            (r.model, r.provenance.get("tokens_before", ""))
            for r in result.rows
            if r.strategy == "none"
        }
    )
    lines.append("Modelled and estimated quantities, each named:")
    lines.append("")
    if size is not None:
        how = (
            f"measured on the {size.count} real summaries among this run's conversations: mean "
            f"{size.mean_chars:,} characters, standard deviation {size.stdev_chars:,}, range "
            f"{size.min_chars:,}–{size.max_chars:,}"
            if size.measured
            else f"{size.mean_chars:,} characters ({size.source})"
        )
        bm = budget_met(result.rows)
        met = sum(b.met for b in bm)
        modelled = sum(b.modelled_summary for b in bm)
        lines.append(
            f"- **Summary output size (modelled{marker('modelled')})**: where a conversation has no "
            f"real summary, the summary call's output is assumed to be the size of real summaries, "
            f"{how}. {modelled} of the {met} ladder budgets met rest on such a summary "
            f"({_pct(modelled / met if met else None)}); its recall is not measured."
        )
    lines.append(
        f"- **Future turns (modelled{marker('modelled')})**: the next-turns dollar columns assume "
        f"{result.settings.next_turns} more turns, each the conversation's own mean message-pair size."
    )
    for model, label in counters:
        if label and label != "exact":
            lines.append(
                f"- **Text tokens for {model} ({label}{marker(label)})**: see the counter named in "
                "the profile table; not the provider's own count."
            )
    lines.append(
        "- Image tokens: each provider's published rule (exact) where the table says documented; "
        "rows labelled uncertain are modelled and marked so."
    )
    lines.append(
        "- The round-trip check is the project's own decoder reading its own pages (it knows font, "
        "grid and filter): it shows the information survived rendering, not that anyone can read "
        "it. Readability is the whole-page readers' needle recall (measured), with its 95 % Wilson "
        "interval, on the pages of this run's own conversations at the page size each provider "
        "gets; beside each figure: the real page size, each reader's verdict at ±4 px, the weakest "
        "reader, the weakest after a 0.9× bicubic resample (read only where a reader passes "
        "natively; `--no-reader-resample` skips it) and the weakest-reader verdict on these "
        "pages. Live models' records (`snapshot probe`, `snapshot report --probes DIR`) join as "
        "their own column, read on their own pages."
    )
    lines.append("")
    return lines


def write(
    result: RunResult,
    out: Path,
    *,
    figures: dict[str, Path | None],
    sections: Sequence[tuple[str, str]] = (),
    notice: str | None = None,
    probes: Sequence[ReaderRecall] = (),
) -> Path:
    aggs = aggregate(result.rows)
    readers = reader_recall(result.rows, with_text=True)
    context = _pages_context(result, bool(notice))
    names = {k: v.name for k, v in figures.items() if v is not None}
    chars = sum(s.chars for s in result.sources)
    images = sum(s.images for s in result.sources)
    what = (
        "your own sessions (the paths listed under *Sources*)"
        if notice
        else f"the benchmark corpus (`{result.corpus}`)"
        if result.corpus
        else "the package's bundled demo transcripts (written for the project; run with `--corpus` for the real benchmark)"
    )
    lines = [
        "# snapshot: compaction strategies side by side",
        "",
        *([notice, ""] if notice else []),
        f"Generated by `snapshot report` on {dt.date.today().isoformat()} from {what}: "
        f"{len(result.sources)} conversations, {chars:,} characters, {images} images; "
        f"profiles {', '.join(f'`{m}`' for m in result.models)}; "
        f"{result.workers} worker(s), {result.seconds:.0f} s. Every figure below comes from this run "
        "and carries a marker saying whether it is measured, exact, reconstructed, estimated or "
        "modelled (legend and shares in *How far to trust these numbers*).",
        "",
        f"Command: `{result.command}`" if result.command else "",
        "",
        *_readers_paragraph(result),
        "",
        "How to read it: *tokens after / before* is what the compacted request costs against the original. "
        "*Recall* is the share of seeded needles (spans sampled from the compacted source by class: hex, UUID, "
        "path, number, error line, identifier, prose phrase; independent of the factsheet's extractor) that a "
        "reader gets back verbatim (whitespace ignored, so a needle wrapped across rows counts); `n/m` means not "
        "measured (a modelled summary has no text to measure; pages no whole-page reader read), `–` a reader "
        "that gave no measurement (see the notes). Dollars: `n/p` means no sourced price for the model. "
        f"The ladder's budget is {100 * result.settings.budget_ratio:.0f} % of each conversation's tokens.",
        "",
    ]
    cut = [s for s in result.sources if s.measured]
    if cut:
        lines += ["**Sessions their harness compacted** (measured up to the first compaction):", ""]
        lines += [f"- `{s.id}`: {s.measured}" for s in cut]
        lines += [""]
    if result.errors:
        lines += ["**Conversations that failed to import:**", ""]
        lines += [f"- {e}" for e in result.errors]
        lines.append("")
    lines += [
        "## Strategies",
        "",
        "Pooled ratios weigh conversations by their size; the median and interquartile range weigh "
        "each conversation once. Summary and ladder rows are split by population (free rungs alone, "
        "a real summary, a modelled one), so every figure of a row is over the same conversations.",
        "",
        *_strategy_table(
            aggs, readers, context, "band" if result.settings.reader_band_rows else "whole page"
        ),
        "",
        *_elide_line(result),
    ]
    if "distribution" in names:
        lines += [f"![tokens kept per conversation]({names['distribution']})", ""]
    if "pareto" in names:
        lines += [f"![tokens against recall]({names['pareto']})", ""]
    lines += _needle_section(result, readers, probes, context)
    lines += _rests_on(result)

    folder = out if out.is_dir() else out.parent
    if (folder / "frontier.md").is_file():  # written by `snapshot frontier` (typography)
        lines += [
            "## Density frontier",
            "",
            "`snapshot+dense` draws the snapshot in the dense frontier layout "
            "(`snapshot.legibility.frontier.DENSE_LAYOUT`). Whole-page readers at the "
            "providers' real page sizes, the weakest reader's verdict per layout (measured): "
            "[frontier.md](frontier.md).",
            "",
            "![density frontier](frontier.png)",
            "",
        ]
    lines += [
        "## The ladder: which rungs it needed",
        "",
        f"Budget: {100 * result.settings.budget_ratio:.0f} % of each conversation's tokens. Met three ways:",
        "",
        *_budget_table(result),
        "",
    ]
    for model, counts in sorted(rung_paths(result.rows).items()):
        fits = [
            r.fits
            for r in result.rows
            if r.model == model and r.strategy == "ladder" and r.fits is not None
        ]
        lines.append(f"**{model}**: budget met in {sum(fits)} of {len(fits)} conversations.")
        lines.append("")
        lines += ["| rungs taken | conversations |", "|---|---|"]
        lines += [f"| {path} | {n} |" for path, n in counts.most_common()]
        lines.append("")
    failures = [r for r in result.rows if r.strategy == "ladder" and r.fits is False]
    if failures:
        lines += [
            f"Budget not met ({len(failures)} conversation × profile runs), each with its stated reason:",
            "",
        ]
        lines += [f"- {r.source} / {r.model}: {r.note}" for r in failures]
        lines.append("")

    lines += [
        "## By category (snapshot strategy)",
        "",
        "| category | model | conversations | tokens after / before | mean recall |",
        "|---|---|---|---|---|",
    ]
    for cat, model, n, ratio, rec in by_category(result.rows, "snapshot"):
        lines.append(f"| {cat} | {model} | {n} | {100 * ratio:.1f} % | {_pct(rec)} |")
    lines.append("")

    if "chars_per_token" in names:
        lines += [
            "## Characters per token by profile",
            "",
            f"![characters per token]({names['chars_per_token']})",
            "",
            "Per profile of this report: the characters a full page of its layout holds per "
            "image token billed, against this report's own conversations as text: their "
            "characters (text, thinking, tool calls and results) per text token, each message "
            "serialized as the request carries it and counted by the profile's own counter in "
            "this run (exact, reconstruction or estimate, named beside the profile; the rows' "
            "`text_tokens_before`). Earlier versions of this report counted the package's "
            "demo text here instead, with one tokenizer per provider family.",
            "",
        ]
    for title, body in sections:
        lines += [f"## {title}", "", body.strip(), ""]
    if "raster_speed" in names:
        lines += [
            "## Rasterizer speed",
            "",
            f"![rasterizer speed]({names['raster_speed']})",
            "",
            "From `pytest bench --benchmark-json reports/bench.json` (pytest-benchmark, side by side in one run).",
            "",
        ]

    from snapshot.report.run import validation_count

    count = validation_count(result)
    lines += [
        "## Request validation",
        "",
        f"{count['line']} (each against the provider's published schema and SDK types, and the "
        "rules no schema holds: `snapshot.transcript.validate`; measured).",
        "",
        *[f"- {f}" for f in count["failures"]],
        "",
    ]
    lines += _prices(result)
    lines += range_section(result.rows, result.models)
    lines += _trust(result, aggs)
    if result.corpus:
        lines += [
            "",
            "Corpus: real public agent transcripts (see `../shared/corpus/README.md` for each source's license and "
            "attribution; MIT and Apache-2.0). They contain real paths and user names.",
        ]
    path = out / "REPORT.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _readers_paragraph(result: RunResult) -> list[str]:
    st = result.settings
    out = [
        "Readers. **Whole-page readers** get each page as the provider receives it and nothing else "
        "(no grid, no row boxes) and find the text themselves: "
        + (
            ", ".join(f"**{n}**" for n in st.page_readers)
            + f"; each reads a seeded sample of {st.reader_pages} full page(s) per conversation and profile "
            + _reader_conversations(st)
            + f"(pages at least 90 % filled: a half-filled last page flatters small cells), with up to "
            f"{st.page_needles_per_class} needles per class sampled from each page's own text; strategies "
            f"read: {', '.join(st.reader_strategies)}."
            if st.page_readers
            else "none in this run (`--page-readers all` adds them)."
        ),
        "The **round-trip check** is the project's own decoder on its own pages: a lossless-round-trip "
        "check, not readability.",
    ]
    if result.ocr_reader:
        out.append(
            f"**Crops given the renderer's rows** (a diagnostic): {result.ocr_reader}, on a seeded sample "
            f"of {st.ocr_rows} page rows per conversation and profile (the needles lying within a "
            "sampled row count)."
        )
    return [" ".join(out)]


def _reader_conversations(st: Settings) -> str:
    """Which conversations the page readers read: all, or the run's seeded sample."""
    from snapshot.report.readability import READER_MIN_CHARS

    if not st.reader_sources:
        return ""
    return (
        f"of a seeded sample of {len(st.reader_sources)} conversations (`--reader-conversations`, "
        f"drawn by a stable hash among those of at least {READER_MIN_CHARS:,} characters; the ids are "
        "`settings.reader_sources` in results.json) "
    )


def _interval(f: int, n: int) -> str:
    from snapshot.readability.scoring import wilson_interval

    if not n:
        return "–"
    lo, hi = wilson_interval(f, n)
    return f"{f}/{n} [{100 * lo:.0f}–{100 * hi:.0f}]"


def _rests_on(result: RunResult) -> list[str]:
    """Model and OCR evidence behind each vision profile's default (issue 25 item 6)."""
    from snapshot import profiles
    from snapshot.legibility.rests_on import rests_on_lines

    vision = [m for m in result.models if profiles.profile_for(m, warn=False).vision]
    return rests_on_lines(vision) if vision else []


def _sampled_rows(result: RunResult) -> list[Any]:
    """The rows whose pages the whole-page readers read (their first strategy's)."""
    st = result.settings
    first = st.reader_strategies[0] if st.reader_strategies else "snapshot"
    return [r for r in result.rows if r.strategy == first and (r.page_needles or r.reader_pages)]


def _pages_context(result: RunResult, own_sessions: bool) -> dict[str, str]:
    """Per profile: text, real page size and ±4 px verdicts, weakest reader, ×0.9."""
    from snapshot.report.readability import pages_context, pages_text

    text = pages_text(result.corpus, own_sessions, result.settings.reader_band_rows)
    sampled = _sampled_rows(result)
    found = {m: pages_context(sampled, m, text) for m in result.models}
    return {m: c for m, c in found.items() if c}


def _needle_section(
    result: RunResult,
    readers: Sequence[ReaderRecall],
    probes: Sequence[ReaderRecall],
    context: dict[str, str],
) -> list[str]:
    """Per profile: each whole-page reader's needle recall, pooled, by class, per conversation."""
    from snapshot.ladder.needles import CLASSES

    measured = [x for x in readers if x.source != "text" or x.needles]
    if not result.settings.page_readers and not probes:
        return []
    lines = [
        "## Needle recall by whole-page readers",
        "",
        "Share of the sampled pages' needles each reader reads back off the page alone, verbatim (whitespace "
        "ignored), pooled over the profile's conversations with its 95 % Wilson interval, the median of the "
        "per-conversation shares, the share the request holds either way (read off the page, or in what stayed "
        "text), and by class (found/needles [95 % interval]). *text only* is what stayed text (head, tail, factsheet) "
        "without reading any page: on the factsheet row it is the factsheet's recall on needles it was not "
        "built from. Live rows come from `snapshot probe` records (their own pages of the same profile).",
        "",
    ]
    st = result.settings
    sampled = _sampled_rows(result)
    per_model = {
        m: (
            sum(r.reader_pages for r in sampled if r.model == m),
            sum(sum(r.page_needles.values()) for r in sampled if r.model == m),
        )
        for m in result.models
    }
    lines.append(
        "Sample: "
        + "; ".join(f"{m}: {p} full pages, {n} needles" for m, (p, n) in per_model.items())
        + f" ({st.reader_pages} full page(s) per conversation and profile, seeded, from "
        f"{len({r.source for r in sampled})} conversations; every reader reads the same pages, once: "
        f"{', '.join(st.reader_strategies)} share them). Needles of one page are not independent "
        "draws (a page a reader cannot segment loses all of them): the Wilson interval is over "
        "needles, the per-conversation median shows the spread between pages."
    )
    lines.append("")
    head = (
        "| profile | strategy | reader | needles | recall [95 % CI] | median per conversation | "
        "with what stayed text | " + " | ".join(CLASSES) + " | measured on | notes |"
    )
    lines += [head, "|" + "---|" * (9 + len(CLASSES))]
    for x, live in [*((x, False) for x in measured), *((x, True) for x in probes)]:
        share = "–" if not x.needles else _ci(x).rsplit(" (", 1)[0]
        med = "–" if x.median_conversation is None else f"{100 * x.median_conversation:.0f} %"
        either = (
            "–"
            if x.found_or_text is None or not x.needles
            else f"{100 * x.found_or_text / x.needles:.0f} %"
        )
        by = " | ".join(_interval(*x.by_class.get(k, (0, 0))) for k in CLASSES)
        notes = "; ".join(x.notes)
        if x.unmeasured:
            notes = f"{x.unmeasured} conversation(s) not measured: {notes}"
        on = (
            "–"
            if not x.needles
            else "the probe's own pages (`snapshot probe` records)"
            if live
            else context.get(x.model, "–")
            if x.source == "whole page"
            else "what stayed text (no page read)"
        )
        lines.append(
            f"| {x.model} | {x.strategy} | {x.reader} | {x.needles} | {share} | {med} | {either} "
            f"| {by} | {on} | {notes} |"
        )
    lines.append("")
    from snapshot.report.page_jitter import jitter_lines

    if jittered := jitter_lines(sampled, result.models):  # the readers at the real page, ±4 px
        lines += ["### Whole-page readers at the real page and ±4 px", "", *jittered, ""]
    if result.page_readers:
        lines += [
            "Readers as run (name, package version, sha256 over the model files, settings):",
            "",
        ]
        for name, info in result.page_readers.items():
            if "unavailable" in info:
                lines.append(f"- **{name}**: not measured: {info['unavailable']}")
                continue
            keys = (
                "det_limit_side_len",
                "det_limit_type",
                "det_resize",
                "upscale",
                "psm",
                "config",
            )
            shown = ", ".join(f"{k}={info['settings'][k]}" for k in keys if k in info["settings"])
            lines.append(
                f"- **{name}** {info['version']}, models sha256 `{info['model_sha256'][:16]}…`; {shown} "
                "(all settings in results.json)"
            )
        lines.append("")
    return lines
