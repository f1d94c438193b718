"""Rung 3, snapshots: the middle of the history drawn as text on pixel sheets.

Shape: verbatim head (the task and constraints), the middle rendered to pages
with the reader's profile, verbatim tail (recent turns). The middle's source
text is kept with the conversation (in the snapshot message's ``meta``), and
every pass redraws all pages from it, never from earlier pixels: identical
source gives identical pages, so a provider's prompt cache keeps hitting.

Options, each measured in the report like any other choice:

- ``factsheet_chars``: exact identifiers from the imaged middle kept as a short
  text list beside the pages, within that budget.
- ``exact_ids_share``: every exact id on the pages (hashes, UUIDs, long
  numbers, ``path:line``; :mod:`snapshot.ladder.exact_ids`) also carried as one
  line of text beside them, within that share of the imaged text's tokens; the
  record's ``exact_ids`` says how many of those on the pages the text keeps.
- ``foveate_chars``: the last that many characters of the middle (nearest the
  tail) drawn in the profile's default layout; the rest in the dense layout
  (:data:`snapshot.profiles.dense.DENSE_STYLE`).
- ``dense``: every page of a new segment in the dense layout (the proxy's next
  step when the default layout cannot fit); a segment keeps the layout it was
  drawn in, so its pages stay the same bytes on later passes.

Pages of one segment are fixed by that segment alone: its page headers count
its own pages, its reading guide names its own messages, and a later pass
appends a segment instead of redrawing the run, so the prefix a provider
cached survives the next pass.
"""

from __future__ import annotations

import functools
import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from snapshot.ladder.cut import find_cut, split_oversized
from snapshot.ladder.exact_ids import coverage, exact_index
from snapshot.ladder.needles import candidates
from snapshot.ladder.record import RungRecord, StrategyResult, linear_copy
from snapshot.ladder.serialize import ROLE_MARKERS, serialize
from snapshot.ladder.target import Target
from snapshot.profiles.dense import dense_geometry
from snapshot.rendering.geometry import Geometry
from snapshot.rendering.page import Page, render_document
from snapshot.transcript.model import Conversation, ImageBlock, Message, TextBlock

SNAPSHOT_KIND = "snapshot"


@dataclass(frozen=True)
class SheetOptions:
    keep_turns: int = 2
    # The verbatim tail is also at most this share of the conversation's characters.
    tail_share: float | None = 0.2
    factsheet_chars: int = 0
    # The exact-id index may cost at most this share of the imaged text's tokens (0: none).
    exact_ids_share: float = 0.1
    foveate_chars: int = 0
    # Image only when the pages cost at most this share of the text they replace.
    max_cost_ratio: float = 1.0
    dense: bool = False
    # Earlier pages stay as they are (the proxy: the provider's cache of them holds); a
    # new segment too short to pay for its pages waits as text instead of a redraw.
    append_only: bool = False


def is_snapshot(message: Message) -> bool:
    return message.meta.get("kind") == SNAPSHOT_KIND


def factsheet(source: str, budget: int) -> str:
    """Exact identifiers from ``source``, most frequent first, within ``budget`` characters.

    >>> factsheet("see src/app.py and src/app.py, commit 9f8e7d6c2", 200).splitlines()
    ['Exact identifiers from the pages:', 'src/app.py', '9f8e7d6c2']
    """
    return _factsheet(source, budget) if budget > 0 else ""


# The report draws the same middle for each profile of a conversation, one after the
# other: the last sheet is kept (only one: at most one middle's text stays in memory).
@functools.lru_cache(maxsize=1)
def _factsheet(source: str, budget: int) -> str:
    found = candidates(source)
    counts: Counter[str] = Counter()
    for kind in ("hex", "path", "number", "name"):
        for s in found.get(kind, ()):
            counts[s] = source.count(s)
    lines: list[str] = []
    used = len("Exact identifiers from the pages:\n")
    for ident, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if used + len(ident) + 1 > budget:
            continue
        lines.append(ident)
        used += len(ident) + 1
    return "Exact identifiers from the pages:\n" + "\n".join(lines) if lines else ""


def reading_guide(
    pages: Sequence[Page], covers: Sequence[str], fonts: str, *, first: bool = True
) -> str:
    """What one segment's pages hold and how to read them; fixed by the segment alone.

    Nothing in it depends on later passes (the resume point is :func:`resume_note`),
    so a segment's guide and pages are the same bytes on every pass.

    >>> reading_guide([], [], "snap5x8", first=False)[:49]
    'The next 0 image(s) are pages of the conversation'
    """
    covered = f"messages #{covers[0][-8:]} to #{covers[-1][-8:]}" if covers else "no messages"
    if not first:
        return (
            f"The next {len(pages)} image(s) are pages of the conversation after those "
            f"({covered}, {len(covers)} messages), drawn the same way in {fonts}; their page "
            "numbers start again at 1."
        )
    roles = ", ".join(ROLE_MARKERS[k] for k in ("user", "assistant", "tool_call", "tool_result"))
    return (
        f"The {len(pages)} image(s) below are pages of the earlier conversation "
        f"({covered}, {len(covers)} messages), drawn as plain text in {fonts}. "
        "Read each page left to right, top to bottom; its first row says 'page i/n'. "
        f"Each message starts with a role line: {roles}. "
        "A small reverse-video arrow cell marks a line break inside the flowed text."
    )


def resume_note(tail_first: Message | None) -> str:
    """Where the verbatim conversation resumes after the pages.

    >>> resume_note(None)
    'No verbatim messages follow the pages.'
    """
    if tail_first is None:
        return "No verbatim messages follow the pages."
    return f"The verbatim conversation resumes after the pages with message #{tail_first.id[-8:]}."


def _render(
    source: str, target: Target, options: SheetOptions, dense: bool | None = None
) -> tuple[list[Page], list[str]]:
    """Pages for ``source`` and the text spans no font could draw (``dense``: the
    segment's own layout; None: the options')."""
    geometry = target.geometry
    if geometry is None:
        return [], []
    pages, kept = _drawn(
        source, geometry, options.dense if dense is None else dense, options.foveate_chars
    )
    return list(pages), list(kept)


# A proxy pass redraws every earlier segment of a conversation from its text into the
# same bytes: the last few drawings are kept, so an unchanged segment is drawn once.
@functools.lru_cache(maxsize=16)
def _drawn(
    source: str, geometry: Geometry, dense: bool, foveate_chars: int
) -> tuple[tuple[Page, ...], tuple[str, ...]]:
    parts: list[tuple[str, Geometry]] = [(source, geometry)]
    if dense:
        parts = [(source, dense_geometry(geometry))]
    elif foveate_chars > 0 and len(source) > foveate_chars:
        # foveation: the far past in the dense layout, the part nearest the tail in the
        # profile's default layout
        split = len(source) - foveate_chars
        parts = [(source[:split], dense_geometry(geometry)), (source[split:], geometry)]
    pages: list[Page] = []
    kept: list[str] = []
    for text, geo in parts:
        rendering = render_document(text, geo, unrenderable="keep")
        pages.extend(rendering.pages)
        kept.extend(span.text for span in rendering.kept)
    return tuple(pages), tuple(kept)


@dataclass(frozen=True)
class Segment:
    """One span of the middle imaged as its own page run: its source text and message ids.

    A later pass keeps an earlier snapshot's segments and adds one for the
    messages it newly images, so the pages of an unchanged span are redrawn from
    its text into the same bytes (the prompt-cache prefix holds).
    """

    source: str
    covers: tuple[str, ...]
    dense: bool = False  # drawn in the dense layout (kept on every later pass)

    def to_json(self) -> dict[str, Any]:
        return {"source_text": self.source, "covers": list(self.covers), "dense": self.dense}


def segments_of(message: Message) -> list[Segment]:
    """The segments an earlier snapshot message holds (one, for a snapshot without a list)."""
    listed = message.meta.get("segments")
    if isinstance(listed, list) and listed:
        return [
            Segment(str(s["source_text"]), tuple(s.get("covers", ())), bool(s.get("dense")))
            for s in listed
        ]
    return [Segment(str(message.meta["source_text"]), tuple(message.meta.get("covers", ())))]


@dataclass
class _Drawn:
    segment: Segment
    pages: list[Page]
    kept: list[str]


def snapshot(
    conv: Conversation, target: Target, options: SheetOptions | None = None
) -> StrategyResult:
    """Image the middle of ``conv`` for ``target``; head and tail stay byte-identical.

    An earlier snapshot in the middle keeps its segments (redrawn from their
    source text into the same bytes); the messages newly imaged become one more
    segment after them. Only when that is refused (too many pages or bytes,
    unprofitable) or leaves messages as text is everything redrawn as one segment
    instead, and once when ``options.dense`` meets pages of the default layout.
    With ``options.append_only`` a new segment too short to pay for its pages is
    not drawn: its messages stay text until there are enough of them (the earlier
    pages, and the provider's cache of them, stay as they are).
    """
    opts = options or SheetOptions()
    if opts.dense and any(
        not seg.dense for m in conv.path() if is_snapshot(m) for seg in segments_of(m)
    ):
        # The dense layout asked for when the default one cannot fit: every page redrawn
        # dense, once (later passes append dense segments to it).
        return _snapshot(conv, target, opts, merge=True)
    result = _snapshot(conv, target, opts, merge=False)
    data = result.record.data
    segmented = data.get("segments", 1) > 1 or data.get("earlier")
    limited = data.get("refused") not in (None, "unprofitable")
    if segmented and (
        limited or data.get("left_as_text") or (data.get("refused") and not opts.append_only)
    ):
        merged = _snapshot(conv, target, opts, merge=True)
        if merged.record.data.get("refused") is None and (
            result.record.data.get("refused")
            or merged.record.data.get("left_as_text", 0) < result.record.data["left_as_text"]
        ):
            return merged
    return result


def _snapshot(
    conv: Conversation, target: Target, opts: SheetOptions, *, merge: bool
) -> StrategyResult:
    path = split_oversized(conv.path(), tail_share=opts.tail_share)  # one huge reply: image most
    if not target.vision or target.geometry is None:
        return StrategyResult(conv, RungRecord("snapshot", notes=("reader cannot see images",)))

    cut = find_cut(path, keep_turns=opts.keep_turns, tail_share=opts.tail_share)
    head, middle, tail = cut.split(path)
    # Fold an earlier snapshot into this one: its retained source text, never its pixels.
    earlier = [m for m in middle if is_snapshot(m)]
    fresh = [m for m in middle if not is_snapshot(m)]
    if not fresh:
        note = "no middle to image" if not earlier else "nothing new since the last snapshot"
        return StrategyResult(conv, RungRecord("snapshot", notes=(note,)))
    kept_segments = [seg for m in earlier for seg in segments_of(m)]
    prefix: list[Segment] = []
    if merge:  # one segment: the earlier source text, then the new messages
        prefix, kept_segments = kept_segments, []
    drawn = [_Drawn(seg, *_render(seg.source, target, opts, seg.dense)) for seg in kept_segments]
    earlier_pages = sum(len(d.pages) for d in drawn)
    fresh_source = "\n".join([*(seg.source for seg in prefix), serialize(fresh)])
    pages, kept = _render(fresh_source, target, opts)
    if len(pages) == 0:
        return StrategyResult(
            conv, RungRecord("snapshot", notes=("middle is empty after normalization",))
        )

    existing_images = sum(len(m.images()) for m in head + tail)
    budget = target.max_request_bytes - _request_bytes(head + tail)
    page_bytes = [_base64_len(len(p.png())) for d in drawn for p in d.pages]
    page_bytes += [_base64_len(len(p.png())) for p in pages]
    fit = len(page_bytes) if sum(page_bytes) <= budget else max(budget, 0) // max(page_bytes)
    bytes_bind = fit < target.max_images - existing_images
    allowed = min(target.max_images - existing_images, fit)
    left: list[Message] = []
    overflow_note = ""
    if earlier_pages + len(pages) > allowed:
        # More pages than the request may carry: image the oldest part that fits
        # and leave the rest as (already elided) text, rather than imaging nothing.
        imaged = _fitting_prefix(
            fresh, [seg.source for seg in prefix], allowed - earlier_pages, target, opts
        )
        if imaged == 0:
            return StrategyResult(
                conv,
                RungRecord(
                    "snapshot",
                    notes=(
                        f"refused: not even the oldest middle messages fit in {max(allowed, 0)} "
                        + (
                            f"pages ({target.max_images} images per request, {existing_images} "
                            "already in the head and tail"
                            if not bytes_bind
                            else f"pages ({target.max_request_bytes:,} bytes per request, "
                            f"{max(budget, 0):,} left beside the head and tail"
                        )
                        + (f", {earlier_pages} earlier pages)" if earlier_pages else ")"),
                    ),
                    data={
                        "refused": "max_request_bytes" if bytes_bind else "max_images",
                        "earlier": earlier_pages,
                    },
                ),
            )
        fresh, left = fresh[:imaged], fresh[imaged:]
        middle = [*earlier, *fresh]
        fresh_source = "\n".join([*(seg.source for seg in prefix), serialize(fresh)])
        pages, kept = _render(fresh_source, target, opts)
        limit = (
            f"image limit: {target.max_images} images per request ({existing_images} in the "
            "head and tail)"
            if not bytes_bind
            else f"request size limit: {target.max_request_bytes:,} bytes per request"
        )
        overflow_note = (
            f"{limit} leave room for {allowed} pages; imaged the oldest {len(fresh)} "
            f"middle messages, the {len(left)} after them ({sum(m.chars() for m in left):,} "
            "characters) stay as text"
        )
    covers = tuple(i for seg in prefix for i in seg.covers) + tuple(m.id for m in fresh)
    drawn.append(_Drawn(Segment(fresh_source, covers, opts.dense), pages, kept))
    all_pages = [p for d in drawn for p in d.pages]
    pngs = [p.png() for p in all_pages]
    too_big = [i + 1 for i, b in enumerate(pngs) if _base64_len(len(b)) > target.max_image_bytes]
    request = sum(_base64_len(len(b)) for b in pngs)
    if request > budget:  # the oldest prefix re-drawn into fewer but larger pages
        return StrategyResult(
            conv,
            RungRecord(
                "snapshot",
                notes=(
                    f"refused: the pages take {request:,} bytes base64; the request has room "
                    f"for {max(budget, 0):,} of its {target.max_request_bytes:,}",
                ),
                data={"refused": "max_request_bytes"},
            ),
        )
    if too_big:
        return StrategyResult(
            conv,
            RungRecord(
                "snapshot",
                notes=(f"refused: pages {too_big} exceed {target.max_image_bytes:,} bytes base64",),
                data={"refused": "max_image_bytes"},
            ),
        )

    source = "\n".join(d.segment.source for d in drawn)
    text_cost = target.tokens(middle)
    page_cost = sum(target.image_tokens(*p.geometry.size) for p in all_pages)
    facts = factsheet(source, opts.factsheet_chars)
    ids = exact_index(source, round(opts.exact_ids_share * text_cost), _text_counter(target))
    kept_text = "\n".join(k for d in drawn for k in d.kept)
    side_cost = round(target.text_tokens(ids + facts + kept_text) * target.correction)
    if page_cost + side_cost > opts.max_cost_ratio * text_cost:
        return StrategyResult(
            conv,
            RungRecord(
                "snapshot",
                notes=(
                    f"unprofitable: {len(all_pages)} pages cost {page_cost:,} tokens, "
                    f"the text {text_cost:,}",
                ),
                data={
                    "earlier": earlier_pages,
                    "refused": "unprofitable",
                    "page_tokens": page_cost,
                    "text_tokens": text_cost,
                },
            ),
        )

    blocks: list[TextBlock | ImageBlock] = []
    png_iter = iter(pngs)
    for k, d in enumerate(drawn):
        fonts = " and ".join(sorted({p.geometry.font.name for p in d.pages}))
        blocks.append(TextBlock(reading_guide(d.pages, d.segment.covers, fonts, first=k == 0)))
        for i, page in enumerate(d.pages, start=1):
            w, h = page.geometry.size
            origin = f"snapshot page {i}/{len(d.pages)}"
            if len(drawn) > 1:
                origin = f"snapshot segment {k + 1} page {i}/{len(d.pages)}"
            blocks.append(
                ImageBlock("image/png", data=next(png_iter), width=w, height=h, origin=origin)
            )
    blocks.append(TextBlock(resume_note(next(iter([*left, *tail]), None))))
    if ids:
        blocks.append(TextBlock(ids))
    if facts:
        blocks.append(TextBlock(facts))
    if kept_text:
        blocks.append(TextBlock("Text the page fonts cannot draw, in page order:\n" + kept_text))

    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()
    covered = [mid for d in drawn for mid in d.segment.covers]
    message = Message(
        id=f"snapshot-{digest[:16]}",
        parent=None,
        role="user",
        blocks=tuple(blocks),
        meta={
            "kind": SNAPSHOT_KIND,
            "source_text": source,
            "source_sha256": digest,
            "covers": covered,
            "segments": [d.segment.to_json() for d in drawn],
            "model": target.model,
        },
    )
    notes: tuple[str, ...] = (f"{len(middle)} messages → {len(all_pages)} pages",)
    if earlier_pages:
        notes = (*notes, f"{earlier_pages} earlier pages redrawn from their source text")
    if overflow_note:
        notes = (*notes, overflow_note)
    as_text, on_pages = coverage(source, f"{ids}\n{facts}")
    if on_pages:
        notes = (*notes, f"exact ids: {as_text} of {on_pages} on the pages also kept as text")
    record = RungRecord(
        "snapshot",
        changed=len(middle),
        chars_removed=len(fresh_source),
        notes=notes,
        data={
            "left_as_text": len(left),
            "pages": len(all_pages),
            "segments": len(drawn),
            "page_bytes": sum(len(b) for b in pngs),
            "page_tokens": page_cost,
            "text_tokens": text_cost,
            "factsheet_chars": len(facts),
            "exact_ids": {"on_pages": on_pages, "as_text": as_text},
            "kept_chars": len(kept_text),
            "source_sha256": digest,
            "page_sizes": sorted({f"{p.geometry.size[0]}x{p.geometry.size[1]}" for p in all_pages}),
        },
    )
    return StrategyResult(
        linear_copy(conv, [*head, message, *left, *tail]), record, tuple(all_pages)
    )


def _text_counter(target: Target) -> Callable[[str], int]:
    """The target's text counter as the ladder plans with it (its correction applied)."""
    return lambda text: round(target.text_tokens(text) * target.correction)


def _split_points(messages: Sequence[Message]) -> list[int]:
    """Indexes where ``messages`` may be cut without parting a call from its result."""
    points = []
    open_calls: set[str] = set()
    for i, m in enumerate(messages, start=1):
        open_calls.difference_update(r.call_id for r in m.tool_results())
        open_calls.update(c.id for c in m.tool_calls())
        if not open_calls:
            points.append(i)
    return points


def _fitting_prefix(
    fresh: Sequence[Message],
    earlier_text: Sequence[str],
    allowed: int,
    target: Target,
    options: SheetOptions,
) -> int:
    """The most leading messages of ``fresh`` whose pages (with earlier snapshots) fit ``allowed``."""
    if allowed <= 0:
        return 0
    points = _split_points(fresh)
    best, lo, hi = 0, 0, len(points) - 1
    while lo <= hi:  # pages grow with the prefix: binary search the split points
        mid = (lo + hi) // 2
        source = "\n".join([*earlier_text, serialize(fresh[: points[mid]])])
        if len(_render(source, target, options)[0]) <= allowed:
            best, lo = points[mid], mid + 1
        else:
            hi = mid - 1
    return best


def _request_bytes(messages: Sequence[Message]) -> int:
    """What ``messages`` add to a request: their text as UTF-8 and their images as base64
    (the JSON framing around them is not counted)."""
    text = len(serialize(list(messages)).encode("utf-8"))
    return text + sum(_base64_len(len(i.data or b"")) for m in messages for i in m.images())


def _base64_len(n: int) -> int:
    return 4 * ((n + 2) // 3)
