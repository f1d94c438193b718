"""``snapshot cost`` and ``snapshot profiles``: what a page or a text costs on a model.

Parsing and printing only: each command is one call, to
:func:`snapshot.profiles.quote.quote_request` or
:func:`snapshot.profiles.options.profile_records`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from snapshot.cli.argtypes import pricing_arguments
from snapshot.cli.legacy import old_spelling
from snapshot.errors import InputError, SnapshotError


def register(subparsers: Any) -> None:
    c = subparsers.add_parser(
        "cost",
        help="image tokens and dollars for an image size, or a text imaged vs kept as text",
        description=(
            "With --size WxH: what MODEL sees of such an image and the tokens it bills. "
            "With --text FILE: the file's text tokens (exact for OpenAI, a reconstruction for "
            "Claude, a labelled estimate for Gemini) against the image tokens of the pages it fills, the savings, "
            "and the break-even density."
        ),
    )
    _common(c, evidence_does="printed after the quote")
    what = c.add_mutually_exclusive_group(required=True)
    what.add_argument("--size", metavar="WxH", help="image size in px, e.g. 1568x728")
    what.add_argument("--text", metavar="FILE", help="a text file ('-' for stdin)")
    c.add_argument(
        "--images",
        type=int,
        default=1,
        metavar="N",
        help="with --size: images of that size in one request (checks the many-image rules)",
    )
    c.add_argument(
        "--bytes",
        type=int,
        default=None,
        metavar="B",
        help="with --size: the encoded size of each image (checks the route's byte limit)",
    )
    pricing_arguments(
        c, date_help="the request's date: prices and lifecycle of that day (default: today)"
    )
    c.add_argument(
        "--inference-geo",
        choices=("global", "us"),
        default="global",
        help="data residency the request asks for: us is a Claude API option (Opus 4.6 and "
        "later) at a documented multiplier on every token rate; default global",
    )
    c.set_defaults(func=run_cost)

    p = subparsers.add_parser(
        "profiles",
        help="the page each model gets: size, grid, tokens, characters per token, limits",
        description=(
            "One line (or JSON record) per model profile: family, billing scheme, whether it "
            "can see, the solved page, characters per billed token, request limits and the "
            "reader evidence behind its font. With --model, that model only (JSON: one object)."
        ),
    )
    _common(p, model_required=False, evidence_does="printed instead of the table")
    p.add_argument(
        "--current", action="store_true", help="only models current today (not deprecated/retired)"
    )
    p.set_defaults(func=run_profiles)


def _common(p: argparse.ArgumentParser, *, evidence_does: str, model_required: bool = True) -> None:
    p.add_argument(
        "--model",
        required=model_required,
        help="model id, alias or gateway route (claude-sonnet-5-5, us.anthropic.…-v1:0, "
        "anthropic/claude-sonnet-4.6, gpt-6.1-sol, gemini-3.8-flash, ...)",
    )
    p.add_argument("--profile", metavar="FILE", help="JSON/TOML file overriding or adding profiles")
    p.add_argument(
        "--fallback",
        action="store_true",
        help="use the conservative fallback profile for a model no table knows",
    )
    p.add_argument(
        "--detail",
        metavar="LEVEL",
        help="OpenAI detail (low/high/original/auto) or Gemini 3 media_resolution "
        "(low/medium/high/ultra_high); default: the profile's own level",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument(
        "--probes",
        metavar="DIR",
        default=DEFAULT_PROBES,
        help="usage-probe records (`snapshot probe --battery usage`) that settle a disputed "
        f"fact (default {DEFAULT_PROBES}; missing = none)",
    )
    p.add_argument(
        "--evidence",
        metavar="FILE",
        action=old_spelling(
            f"{p.prog} --evidence DIR",
            f"{p.prog} --probes DIR",
            when=_is_folder_spelling,
            to="probes",
        ),
        help="`snapshot proxy --canary` records (evidence.jsonl): your own model evidence, "
        f"judged per model and layout, {evidence_does}",
    )


DEFAULT_PROBES = "reports/probes"


def _is_folder_spelling(value: str) -> bool:
    """``--evidence`` given a folder (or no ``.jsonl`` that exists): the old ``--probes DIR``."""
    path = Path(value)
    if path.is_dir() or value.endswith(("/", os.sep)):
        return True
    return not path.is_file() and path.suffix != ".jsonl"


def _probe_folder(value: str) -> str:
    """``--probes DIR`` as given, refused in one line when it is a file."""
    if Path(value).is_file():
        raise InputError(
            f"{value}: not a folder of probe records (give the probe's --out folder; a file "
            "of `snapshot proxy --canary` records goes to --evidence)"
        )
    return value


def _emit(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def _money(value: float | None) -> str:
    return "no price (the price database lacks this id)" if value is None else f"${value:.6f}"


def _price_note(record: dict[str, Any]) -> str:
    price = record.get("price")
    if not price:
        return ""
    tier = "" if price["tier"] == "standard" else f", {price['tier']} tier"
    if price["inference_geo"] != "global":
        tier += f", inference_geo {price['inference_geo']}"
    return (
        f" [{price['database']}, matched {price['matched_model']}{tier}, "
        f"priced on {price['priced_on']}]"
    )


def run_cost(args: argparse.Namespace) -> int:
    from snapshot.profiles.quote import quote_request

    quote = quote_request(
        args.model,
        size=args.size,
        text=args.text,
        images=args.images,
        image_bytes=args.bytes,
        profiles_file=args.profile,
        fallback=args.fallback,
        detail=args.detail,
        today=args.date,
        tier=args.tier,
        evidence=_probe_folder(args.probes),
        inference_geo=args.inference_geo,
    )
    record = quote.record
    if args.evidence is not None:
        # Your own traffic's canary records of this model, judged (the lines printed below).
        record["traffic_evidence"] = _evidence_lines(Path(args.evidence), args.model)
    if args.json:
        _emit(record)
        return 0
    if quote.size is None:
        _print_text(args.model, record)
    else:
        _print_image(args.model, record, quote.size)
    if args.evidence is not None:
        print("\n".join(record["traffic_evidence"]))
    return 0


def _evidence_lines(path: Path, model: str | None) -> list[str]:
    """``--evidence FILE``: the canary records of your own traffic, judged (of ``model``)."""
    from snapshot.proxy.evidence import evidence_lines

    return evidence_lines(path, model=model)


def _rule_with_canaries(path: Path, model: str | None) -> list[str]:
    """``profiles --evidence FILE``: per model the records name, the default rule's pick with
    those canary records beside the committed readings and published batteries."""
    from snapshot.legibility.default_evidence import canary_reads, profile_choice
    from snapshot.legibility.frontier import PointCache
    from snapshot.legibility.weakest import committed_points
    from snapshot.proxy.evidence import judge, read_evidence

    groups = [g for g in judge(read_evidence(path)) if model is None or g.model == model]
    src = committed_points()
    points = PointCache(src).points() if src.is_file() else []
    lines = []
    for m in dict.fromkeys(g.model for g in groups):
        try:
            choice = profile_choice(m, points, canary_reads(groups, m))
        except SnapshotError as exc:  # a model no table knows: no default to weigh
            lines.append(f"default rule with these records: {m}: no profile ({exc})")
            continue
        lines.append(
            f"default rule with these records: {m}: {choice.layout} rests on {choice.rests_on}"
        )
    return lines


def _print_image(model: str, record: dict[str, Any], size: tuple[int, int]) -> None:
    w, h = size
    seen = record["seen"]
    resized = f"resized to {seen[0]}x{seen[1]}" if record["resized"] else "not resized"
    print(
        f"{model} [{record['scheme_detail']}; {record['scheme_label']}]: {w}x{h} "
        f"{resized}, {record['tokens']} tokens, {_money(record['dollars'])}"
        f"{_price_note(record)}"
    )
    if "seen_note" in record:
        print(f"  note: {record['seen_note']}")
    _print_geo(record)
    _print_storage(record, ("", "these tokens"))
    rng = record.get("range")
    if rng:
        ends = ", ".join(
            f"{e['value']}: {e['tokens']} tokens, {_money(e['dollars'])}" for e in rng["ends"]
        )
        print(f"  UNCERTAIN {rng['name']}: {ends}")
        for e in rng["ends"]:
            print(f"    {e['value']} [{e['source']}]")
    _print_settled(record)


def _print_geo(record: dict[str, Any]) -> None:
    price = record.get("price")
    if price and price["inference_geo_source"]:
        print(f"  inference_geo {price['inference_geo']}: {price['inference_geo_source']}")


def _print_storage(record: dict[str, Any], *sides: tuple[str, str]) -> None:
    """Gemini's context-cache storage per hour, for each (key prefix, what) side."""
    for prefix, what in sides:
        per_hour = record.get(f"{prefix}cache_storage_dollars_per_hour")
        if per_hour is not None:
            print(f"  cache storage: {_money(per_hour)} per hour to keep {what} cached")
    source = (record.get("price") or {}).get("cache_storage_source")
    if source:
        print(f"    [{source}]")


def _print_settled(record: dict[str, Any]) -> None:
    settled = record.get("settled")
    if settled:
        stand_in = (
            " (OFFLINE STAND-IN, not the provider's bill)" if settled["offline_stand_in"] else ""
        )
        print(f"  settled by measurement{stand_in}: {settled['value']} [{settled['source']}]")


def _print_text(model: str, r: dict[str, Any]) -> None:
    approx = "" if r["text_counter"] == "exact" else "≈"
    if not r["vision"]:
        print(f"{model}: {approx}{r['text_tokens']} text tokens ({r['text_method']}); {r['note']}")
        return
    est = " (ESTIMATE)" if r["break_even_is_estimate"] else ""
    w, h = r["page"]
    print(f"{model}: {r['chars']} chars{_price_note(r)}")
    print(
        f"  as text:   {approx}{r['text_tokens']} tokens [{r['text_method']}], "
        f"{_money(r['text_dollars'])}"
    )
    print(
        f"  as images: {r['pages']} page(s) of {w}x{h} {r['font']} x {r['tokens_per_page']} = "
        f"{r['image_tokens']} tokens, {_money(r['image_dollars'])}"
    )
    verdict = "saves" if r["imaging_pays"] else "costs more:"
    print(
        f"  imaging {verdict} {approx}{abs(r['saved_tokens'])} tokens "
        f"({r['saved_fraction']:+.1%}){est}"
    )
    print(
        f"  break-even: pages must pack more than {approx}{r['break_even_chars_per_token']:.2f} "
        f"chars per image token{est}; these pack {r['image_chars_per_token']:.2f}"
    )
    _print_geo(r)
    _print_storage(r, ("text_", "the text"), ("image_", "the pages"))
    rng = r.get("range")
    if rng:
        print(f"  UNCERTAIN {rng['name']}: the result at each end of the range")
        for e in rng["ends"]:
            pays = "pays" if e["imaging_pays"] else "does not pay"
            print(
                f"    {e['value']}: {e['pages']} page(s) x {e['tokens_per_page']} = "
                f"{e['image_tokens']} tokens, {_money(e['image_dollars'])}, "
                f"saved {e['saved_fraction']:+.1%}: imaging {pays} [{e['source']}]"
            )
        if rng["verdict_flips"]:
            print(
                "  the verdict FLIPS inside the range: `snapshot probe --model "
                f"{model} --battery usage` settles it with one request"
            )
    _print_settled(r)


def run_profiles(args: argparse.Namespace) -> int:
    if args.evidence is not None:  # your own traffic's canary records, judged
        print("\n".join(_evidence_lines(Path(args.evidence), args.model)))
        print("\n".join(_rule_with_canaries(Path(args.evidence), args.model)))
        return 0
    from snapshot.profiles.options import profile_records

    records = profile_records(
        args.model,
        profiles_file=args.profile,
        fallback=args.fallback,
        detail=args.detail,
        current_only=args.current,
        evidence=_probe_folder(args.probes),
    )
    if args.json:
        _emit(records[0] if args.model else records)
        return 0
    head = f"{'model':26} {'status':10} {'family':16} {'font':9} {'page':>10} {'grid':>8} {'chars':>6} {'tokens':>6} {'c/tok':>6} {'imgs':>5}  {'weakest OCR reader':32} scheme"
    print(head)
    provider = None
    for r in records:
        if r["provider"] != provider:
            provider = r["provider"]
            print(f"-- {provider}")
        status = r["status"] + ("" if r["status"] == "current" else "*")
        if not r["vision"]:
            print(
                f"{r['model']:26} {status:10} {r['family']:16} {'-':9} "
                f"{'no vision (text-only model)':>46}"
            )
            continue
        page = f"{r['page'][0]}x{r['page'][1]}"
        grid = f"{r['cols']}x{r['rows']}"
        imgs = "-" if r["max_images"] is None else str(r["max_images"])
        print(
            f"{r['model']:26} {status:10} {r['family']:16} {r['font']:9} {page:>10} {grid:>8} "
            f"{r['chars_per_page']:>6} {r['tokens_per_page']:>6} {r['chars_per_token']:>6.2f} {imgs:>5}"
            f"  {r.get('weakest_ocr_reader') or 'not measured':32}"
            f" {r['scheme_label']}{'' if r['resample_documented'] else ', resample unknown'}"
        )
        if not args.model:
            print(f"{'':26} {_rests_on(r)}")
        rng = r.get("uncertain")
        if rng and rng.get("ends"):
            ends = "; ".join(
                f"{e['value']} → {e['page'][0]}x{e['page'][1]}, {e['tokens_per_page']} tok, "
                f"{e['chars_per_token']:.2f} c/tok ({e['label']})"
                for e in rng["ends"]
            )
            print(f"{'':26} UNCERTAIN {rng['name']}: {ends}")
    print(
        "weakest OCR reader: native characters of the weakest whole-page reader on the default "
        "layout at the real page (reports/frontier-points.jsonl; ✓ only if readable by the "
        "weakest-reader bar); `--model M` prints the figures and the verdict"
    )
    print(
        "rests on: what the default layout rests on (the default rule, issue 40: the densest "
        "layout the model's own reads accept or, where they are silent, whose weakest "
        "qualified OCR reader reads >= 0.95 of its control page at the real page and ±4 px "
        "on both hidden texts; `--model M` names what each denser layout lacked)"
    )
    print("scheme: how far the billing rule is documented (documented / measured / uncertain)")
    print(
        "cost mode (`snapshot proxy --mode cost`): full / safe / pass by the evidence; "
        "`--model M` says which and why, `--json` has it as cost_mode"
    )
    print("status*: deprecated or retired ids still resolve; `--model ID` names the successor")
    if args.model:
        r0 = records[0]
        print(
            f"lifecycle: {r0['status']} per {r0['lifecycle_schedule']} ({r0['lifecycle_source']})"
        )
        if "cost_mode" in r0:  # snapshot proxy --mode cost without --policy
            cm = r0["cost_mode"]
            print(f"cost mode: {cm['policy']} by default ({cm['why']})")
        for e in records[0]["evidence"]:
            print(f"  model evidence [{e['label']}, {e['date']}]: {e['claim']} ({e['source']})")
        if "default" in records[0]:
            print(f"  {_rests_on(records[0])}")
            for why in records[0]["default"].get("passed_over", []):
                print(f"    passed over {why}")
        if "readability" in records[0]:
            print("  " + readability_line(records[0]["readability"]))
            if line := records[0]["readability"].get("better_ocr_line"):
                print(f"  {line}")
    return 0


def _rests_on(record: dict[str, Any]) -> str:
    """``rests on <evidence>`` for a profile record (its ``default``, the rule's verdict).

    >>> _rests_on({"default": {"kind": "readers", "rests_on": "readers: a + b, ..."}})
    'rests on readers: a + b, ...'
    """
    return f"rests on {record['default']['rests_on']}"


def readability_line(r: dict[str, object]) -> str:
    """One line for ``snapshot profiles --model M``: the library's (legibility.rests_on).

    >>> readability_line({"measured": False, "layout": "x", "why": "not measured at this page"})
    'readability (OCR, whole page): x not measured at this page'
    """
    from snapshot.legibility.rests_on import readability_line as line

    return line(r)
