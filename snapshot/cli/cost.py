"""``snapshot cost`` and ``snapshot profiles``: what a page or a text costs on a model.

Parsing and printing only; the numbers come from :mod:`snapshot.profiles` and
:mod:`snapshot.billing`.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

_SIZE = re.compile(r"^\s*(\d+)\s*[xX×]\s*(\d+)\s*$")


def register(subparsers: Any) -> None:
    c = subparsers.add_parser(
        "cost",
        help="image tokens and dollars for an image size, or a text imaged vs kept as text",
        description=(
            "With --size WxH: what MODEL sees of such an image and the tokens it bills. "
            "With --text FILE: the file's text tokens (exact for OpenAI, a labelled estimate for "
            "Claude and Gemini) against the image tokens of the pages it fills, the savings, "
            "and the break-even density."
        ),
    )
    _common(c)
    what = c.add_mutually_exclusive_group(required=True)
    what.add_argument("--size", metavar="WxH", help="image size in px, e.g. 1568x728")
    what.add_argument("--text", metavar="FILE", help="a text file ('-' for stdin)")
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
    _common(p, model_required=False)
    p.set_defaults(func=run_profiles)


def _common(p: argparse.ArgumentParser, *, model_required: bool = True) -> None:
    p.add_argument(
        "--model",
        required=model_required,
        help="model id, alias or gateway route (claude-sonnet-4-5, us.anthropic.…-v1:0, "
        "anthropic/claude-sonnet-4.5, gpt-4o, gemini-3.6-flash, ...)",
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


def _resolve(args: argparse.Namespace, model: str) -> Any:
    from snapshot.profiles import load_profiles, profile_for

    overrides = load_profiles(args.profile) if args.profile else None
    return profile_for(model, fallback=args.fallback, overrides=overrides, detail=args.detail)


def _parse_size(text: str) -> tuple[int, int]:
    from snapshot.errors import InputError

    m = _SIZE.match(text)
    if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1:
        raise InputError(f"--size must look like 1568x728 (positive width x height), got {text!r}")
    return int(m.group(1)), int(m.group(2))


def _emit(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def _money(value: float | None) -> str:
    return "n/a (no sourced price)" if value is None else f"${value:.6f}"


def _price_record(canonical: str) -> dict[str, Any] | None:
    from snapshot.billing.prices import price_for

    price = price_for(canonical)
    if price is None:
        return None
    return {
        "input_per_mtok": price.input,
        "cache_write_per_mtok": price.cache_write,
        "cache_read_per_mtok": price.cache_read,
        "output_per_mtok": price.output,
        "label": price.fact.label,
        "source": price.fact.source,
        "date": price.fact.date,
    }


def run_cost(args: argparse.Namespace) -> int:
    profile = _resolve(args, args.model)
    if args.size:
        return _cost_size(args, profile, _parse_size(args.size))
    return _cost_text(args, profile, args.text)


def _cost_size(args: argparse.Namespace, profile: Any, size: tuple[int, int]) -> int:
    from snapshot.billing.prices import dollars
    from snapshot.errors import InputError

    if not profile.vision:
        raise InputError(
            f"{args.model} is a text-only model: it cannot see images; "
            "try `snapshot cost --text FILE` for its text tokens"
        )
    w, h = size
    seen = profile.scheme.seen(w, h)
    tokens = profile.image_tokens(w, h)
    price = _price_record(profile.canonical)
    cost = dollars(tokens, price["input_per_mtok"] if price else None)
    record = {
        "model": args.model,
        "canonical": profile.canonical,
        "route": profile.route,
        "scheme": profile.scheme.kind,
        "scheme_label": profile.scheme.label,
        "tokens": tokens,
        "seen": list(seen),
        "resized": tuple(seen) != (w, h),
        "dollars": cost,
        "price": price,
    }
    padded = getattr(profile.scheme, "padded", None)
    if padded is not None:
        record["padded"] = list(padded(w, h))  # Anthropic: pad to 28-multiples, no resample
    if getattr(profile.scheme, "seen_documented", True) is False:
        record["seen_note"] = "internal resample undocumented (unknown): upload size shown"
    if args.json:
        _emit(record)
        return 0
    resized = f"resized to {seen[0]}x{seen[1]}" if record["resized"] else "not resized"
    print(
        f"{args.model} [{profile.scheme.describe()}; {profile.scheme.label}]: {w}x{h} {resized}, "
        f"{tokens} tokens, {_money(cost)}"
    )
    if "seen_note" in record:
        print(f"  note: {record['seen_note']}")
    return 0


def _cost_text(args: argparse.Namespace, profile: Any, path: str) -> int:
    from snapshot.billing.prices import dollars
    from snapshot.billing.providers import text_tokenizer_for
    from snapshot.billing.text_tokens import compare, count_text
    from snapshot.errors import InputError
    from snapshot.text import decode_bytes, layout, normalize

    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc
    raw, _ = decode_bytes(data)
    text_count = count_text(raw, text_tokenizer_for(profile.canonical, profile.family))
    price = _price_record(profile.canonical)
    per_m = price["input_per_mtok"] if price else None
    record: dict[str, Any] = {
        "model": args.model,
        "canonical": profile.canonical,
        "scheme": profile.scheme.kind,
        "vision": profile.vision,
        "chars": text_count.chars,
        "text_tokens": text_count.tokens,
        "text_tokens_exact": text_count.exact,
        "text_method": text_count.method,
        "text_source": text_count.source,
        "text_dollars": dollars(text_count.tokens, per_m),
        "price": price,
    }
    if not profile.vision:
        record["note"] = "text-only model: it cannot read pages, so imaging is not an option"
        if args.json:
            _emit(record)
        else:
            approx = "" if text_count.exact else "≈"
            print(
                f"{args.model}: {approx}{text_count.tokens} text tokens ({text_count.method}); {record['note']}"
            )
        return 0
    geometry = profile.geometry()
    normalized = normalize(raw).text
    pages = len(layout(normalized, geometry))
    sol = profile.solution()
    comp = compare(
        text_count, pages=pages, tokens_per_page=sol.tokens, chars_imaged=len(normalized)
    )
    image_dollars = dollars(comp.image_tokens, per_m)
    text_dollars = record["text_dollars"]
    record.update(
        {
            "font": profile.font,
            "page": list(sol.size),
            "pages": pages,
            "tokens_per_page": sol.tokens,
            "image_tokens": comp.image_tokens,
            "image_dollars": image_dollars,
            "saved_tokens": comp.saved_tokens,
            "saved_fraction": round(comp.saved_fraction, 4),
            "saved_dollars": None
            if text_dollars is None or image_dollars is None
            else round(text_dollars - image_dollars, 9),
            "image_chars_per_token": round(comp.image_chars_per_token, 3),
            "break_even_chars_per_token": round(comp.break_even, 3),
            "break_even_is_estimate": not text_count.exact,
            "imaging_pays": comp.imaging_pays,
        }
    )
    if args.json:
        _emit(record)
        return 0
    est = "" if text_count.exact else " (ESTIMATE)"
    approx = "" if text_count.exact else "≈"
    w, h = sol.size
    print(f"{args.model}: {text_count.chars} chars")
    print(
        f"  as text:   {approx}{text_count.tokens} tokens [{text_count.method}], {_money(text_dollars)}"
    )
    print(
        f"  as images: {pages} page(s) of {w}x{h} {profile.font} x {sol.tokens} = "
        f"{comp.image_tokens} tokens, {_money(image_dollars)}"
    )
    verdict = "saves" if comp.imaging_pays else "costs more:"
    print(
        f"  imaging {verdict} {approx}{abs(comp.saved_tokens)} tokens ({comp.saved_fraction:+.1%}){est}"
    )
    print(
        f"  break-even: pages must pack more than {approx}{comp.break_even:.2f} chars per image "
        f"token{est}; these pack {comp.image_chars_per_token:.2f}"
    )
    return 0


def run_profiles(args: argparse.Namespace) -> int:
    from snapshot.profiles import all_profiles, load_profiles

    if args.model:
        records = [_resolve(args, args.model).as_dict()]
    elif args.profile:
        records = [p.as_dict() for p in load_profiles(args.profile).values()]
    else:
        records = [p.as_dict() for p in all_profiles()]
    if args.json:
        _emit(records[0] if args.model else records)
        return 0
    head = f"{'model':26} {'family':16} {'font':9} {'page':>10} {'grid':>8} {'chars':>6} {'tokens':>6} {'c/tok':>6} {'imgs':>5}  scheme"
    print(head)
    for r in records:
        if not r["vision"]:
            print(f"{r['model']:26} {r['family']:16} {'-':9} {'no vision (text-only model)':>46}")
            continue
        page = f"{r['page'][0]}x{r['page'][1]}"
        grid = f"{r['cols']}x{r['rows']}"
        imgs = "-" if r["max_images"] is None else str(r["max_images"])
        print(
            f"{r['model']:26} {r['family']:16} {r['font']:9} {page:>10} {grid:>8} "
            f"{r['chars_per_page']:>6} {r['tokens_per_page']:>6} {r['chars_per_token']:>6.2f} {imgs:>5}"
            f"  {r['scheme_label']}{'' if r['resample_documented'] else ', resample unknown'}"
        )
    print("scheme: how far the billing rule is documented (documented / measured / uncertain)")
    if args.model:
        for e in records[0]["evidence"]:
            print(f"  evidence [{e['label']}, {e['date']}]: {e['claim']} ({e['source']})")
    return 0
