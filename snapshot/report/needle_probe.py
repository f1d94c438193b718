"""The needle battery on a live model: the report's own pages, read back by a real reader.

``snapshot probe --model M`` (needle battery) draws exactly the pages the
report's whole-page readers read for M's profile: the snapshot strategy's
pages of each conversation, a seeded sample of full pages, and on each page a
seeded sample of needles from its own text (:func:`snapshot.ladder.needles.page_battery`).
The model is asked to transcribe each page; a needle counts when it occurs in
the transcription, whitespace ignored — the same rule as for the OCR readers.

The protocol is pre-registered (:data:`PREREGISTERED`: seed, conversations,
pages per conversation, needles per class): a record says whether it followed
it. A page whose call failed is recorded with its error and counts for
nothing (never as a miss). Records hold no keys: every string that came back
is redacted (:func:`snapshot.providers.keys.redact_value`).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from snapshot.errors import InputError, LiveError
from snapshot.ladder.needles import CLASSES, Needle, found, page_battery
from snapshot.readability.scoring import wilson_interval
from snapshot.rendering.page import Page

if TYPE_CHECKING:
    from snapshot.legibility.records import SavedRecord

SCHEMA = "snapshot.needle-probe/1"
BATTERY = "needles/1"

PROMPT = """\
The image is one page of an earlier conversation between a user, a coding \
assistant and its tools, drawn as small monospaced text (a small arrow cell \
marks a line break inside the flowed text). Transcribe the whole page exactly, \
row by row, character for character, including the first row. Do not correct, \
summarize or explain anything. If you cannot read a character, write ? in its \
place. ModelAnswer with the transcription only.
"""


@dataclass(frozen=True)
class Protocol:
    """What a needle probe reads, fixed before any live run."""

    seed: int = 20261129  # the report's Settings.seed: the same pages as the report
    conversations: int = 30  # the first N conversations of the source, in order
    pages_per_conversation: int = 1  # the report's Settings.reader_pages
    per_class: int = 3  # the report's Settings.page_needles_per_class


PREREGISTERED = Protocol()


@dataclass(frozen=True)
class ProbedPage:
    """One page shown to the model and the needles asked about it."""

    source: str
    page: int
    page_sha256: str
    needles: tuple[tuple[str, str], ...]  # (class, text)
    hits: tuple[bool, ...] | None  # None: the call failed, nothing measured
    reply: str | None = None
    error: str | None = None
    usage: dict[str, int] = field(default_factory=dict)

    def asked(self) -> dict[str, int]:
        if self.hits is None:
            return {}
        out: dict[str, int] = {}
        for kind, _text in self.needles:
            out[kind] = out.get(kind, 0) + 1
        return out

    def found(self) -> dict[str, int]:
        if self.hits is None:
            return {}
        out: dict[str, int] = {}
        for (kind, _text), hit in zip(self.needles, self.hits, strict=True):
            out[kind] = out.get(kind, 0) + int(hit)
        return out


@dataclass(frozen=True)
class NeedleProbeRecord:
    """Everything needed to audit and pool one live needle probe."""

    model: str
    provider: str
    api: str
    profile: str | None
    family: str | None
    font: str
    page_size: tuple[int, int]
    source: str  # "demo" or the manifest path
    protocol: dict[str, int]
    preregistered: bool
    pages: tuple[ProbedPage, ...]
    timestamp: str
    duration_s: float
    snapshot_version: str
    battery: str = BATTERY
    prompt: str = PROMPT
    schema: str = SCHEMA

    def totals(self) -> tuple[int, int, dict[str, tuple[int, int]]]:
        """(found, needles, by class) over the pages that were measured."""
        by: dict[str, list[int]] = {k: [0, 0] for k in CLASSES}
        for p in self.pages:
            asked, hit = p.asked(), p.found()
            for k, n in asked.items():
                by[k][0] += hit.get(k, 0)
                by[k][1] += n
        f = sum(v[0] for v in by.values())
        n = sum(v[1] for v in by.values())
        return f, n, {k: (v[0], v[1]) for k, v in by.items() if v[1]}

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["page_size"] = list(self.page_size)
        f, n, by = self.totals()
        data["summary"] = {
            "needles": n,
            "found": f,
            "share": f / n if n else None,
            "wilson95": list(wilson_interval(f, n)),
            "by_class": {
                k: {"found": a, "needles": b, "wilson95": list(wilson_interval(a, b))}
                for k, (a, b) in by.items()
            },
            "pages_measured": sum(1 for p in self.pages if p.hits is not None),
            "pages_failed": sum(1 for p in self.pages if p.hits is None),
        }
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NeedleProbeRecord:
        if data.get("schema") != SCHEMA:
            raise InputError(
                f"not a needle-probe record (schema {data.get('schema')!r}, expected {SCHEMA!r})"
            )
        names = {f.name for f in dataclasses.fields(cls)}
        kw = {k: v for k, v in data.items() if k in names}
        kw["page_size"] = tuple(kw["page_size"])
        pages = []
        for p in kw["pages"]:
            p = dict(p)
            p["needles"] = tuple(tuple(n) for n in p["needles"])
            p["hits"] = None if p.get("hits") is None else tuple(bool(h) for h in p["hits"])
            pages.append(ProbedPage(**p))
        kw["pages"] = tuple(pages)
        return cls(**kw)

    def to_json(self, secrets: Iterable[str] = ()) -> str:
        from snapshot.providers.keys import redact_value

        return json.dumps(
            redact_value(self.to_dict(), tuple(secrets)), indent=1, ensure_ascii=False
        )


# ---------------------------------------------------------------------------- the battery


@dataclass(frozen=True)
class BatteryPage:
    source: str
    index: int
    page: Page
    needles: tuple[Needle, ...]


def battery_pages(
    model: str, corpus: Path | None = None, protocol: Protocol = PREREGISTERED
) -> Iterator[BatteryPage]:
    """The pages (and needles) the report's whole-page readers read for ``model``'s profile."""
    from snapshot.ladder.sheets import SheetOptions, snapshot
    from snapshot.ladder.target import target_for
    from snapshot.report.matrix import Settings, source_seed
    from snapshot.report.readability import full_pages
    from snapshot.report.sources import corpus_sources, demo_sources

    settings = Settings(
        seed=protocol.seed,
        reader_pages=protocol.pages_per_conversation,
        page_needles_per_class=protocol.per_class,
    )
    target = target_for(model)
    sources = (
        corpus_sources(corpus, limit=protocol.conversations)
        if corpus is not None
        else iter(demo_sources()[: protocol.conversations])
    )
    opts = SheetOptions(keep_turns=settings.keep_turns, tail_share=settings.tail_share)
    for source in sources:
        pages = list(snapshot(source.conversation, target, opts).pages)
        battery = page_battery(
            [p.text for p in pages],
            eligible=full_pages(pages),
            seed=f"{source_seed(source.id, settings)}:{target.model}",
            pages=settings.reader_pages,
            per_class=settings.page_needles_per_class,
        )
        for i, needles in battery:
            yield BatteryPage(source.id, i, pages[i], tuple(needles))


def run_needle_probe(
    model: str,
    *,
    corpus: Path | None = None,
    protocol: Protocol = PREREGISTERED,
    api: str | None = None,
    api_key: str | None = None,
    base_url: str | None = None,
    timeout: float = 180.0,
    max_retries: int = 2,
) -> NeedleProbeRecord:
    """Show ``model`` every battery page, search its transcriptions for the needles.

    Raises
    ------
    MissingKeyError, MissingExtraError
        Before anything is rendered: no key in the environment, or no SDK.
    InputError
        The source holds no full page for this profile.
    """
    import hashlib
    import time

    import snapshot
    from snapshot.profiles.probe_target import probe_target_for
    from snapshot.providers import live

    target = probe_target_for(model, api=api)
    key = api_key if api_key is not None else live.key_from_env(target.provider, model=model)
    live.import_sdk(target.provider)
    start = time.monotonic()
    when = datetime.datetime.now(datetime.UTC)
    probed: list[ProbedPage] = []
    font, size = target.font, target.page_size
    for bp in battery_pages(model, corpus, protocol):
        png = bp.page.png()
        font, size = bp.page.geometry.font.name, bp.page.geometry.size
        needles = [(n.kind, n.text) for n in bp.needles]
        try:
            reply = live.ask(
                target,
                png,
                PROMPT,
                api_key=key,
                base_url=base_url,
                timeout=timeout,
                max_retries=max_retries,
                max_tokens=8192,
            )
        except LiveError as exc:
            digest = hashlib.sha256(png).hexdigest()
            probed.append(
                ProbedPage(bp.source, bp.index, digest, tuple(needles), None, error=str(exc))
            )
            continue
        hits = tuple(found(bp.needles, reply.text))
        probed.append(
            ProbedPage(
                bp.source,
                bp.index,
                hashlib.sha256(png).hexdigest(),
                tuple(needles),
                hits,
                reply=reply.text,
                usage=reply.usage,
            )
        )
    if not probed:
        where = str(corpus) if corpus else "the bundled demo transcripts"
        raise InputError(
            f"{where} hold no full page for {model}'s profile: give --corpus "
            "PATH/benchmark.manifest.json (a longer source)"
        )
    return NeedleProbeRecord(
        model=model,
        provider=target.provider,
        api=target.api,
        profile=target.profile,
        family=target.family,
        font=font,
        page_size=(int(size[0]), int(size[1])),
        source=str(corpus) if corpus else "demo",
        protocol=dataclasses.asdict(protocol),
        preregistered=protocol == PREREGISTERED,
        pages=tuple(probed),
        timestamp=when.isoformat(timespec="seconds").replace("+00:00", "Z"),
        duration_s=round(time.monotonic() - start, 3),
        snapshot_version=snapshot.__version__,
    )


def probe_needles_and_save(
    model: str,
    out_dir: str | os.PathLike[str],
    *,
    corpus: Path | None = None,
    conversations: int | None = None,
    seed: int = 0,
    api: str | None = None,
    base_url: str | None = None,
    timeout: float = 180.0,
) -> SavedRecord:
    """Run the needle battery on ``model`` (:func:`run_needle_probe`) and save the record.

    The protocol is :data:`PREREGISTERED` but for ``conversations`` when given
    and ``seed`` when not 0 (0 keeps the pre-registered seed); the record says
    when it departs. Every key in the environment is redacted from what is
    written and from the returned document.

    Raises
    ------
    InputError
        ``corpus`` is not a file (before any key is looked for).

    Examples
    --------
    >>> probe_needles_and_save("claude-opus-4-8", "out", corpus=Path("no/such.json"))
    Traceback (most recent call last):
    ...
    snapshot.errors.InputError: --corpus no/such.json: no such manifest file
    """
    from snapshot.legibility.records import saved_record
    from snapshot.providers.keys import env_secrets

    if corpus is not None and not corpus.is_file():
        raise InputError(f"--corpus {corpus}: no such manifest file")
    protocol = PREREGISTERED
    if conversations is not None:
        protocol = dataclasses.replace(protocol, conversations=conversations)
    if seed:
        protocol = dataclasses.replace(protocol, seed=seed)
    record = run_needle_probe(
        model, corpus=corpus, protocol=protocol, api=api, base_url=base_url, timeout=timeout
    )
    secrets = env_secrets()
    return saved_record(record, save(record, out_dir, secrets), secrets)


# ---------------------------------------------------------------------------- records on disk


def save(
    record: NeedleProbeRecord, out_dir: str | os.PathLike[str], secrets: Iterable[str] = ()
) -> Path:
    """Write ``record`` as ``YYYY-MM-DD-<model>-needles[-n].json``; never overwrite one."""
    import re

    from snapshot.providers.keys import MIN_SECRET_CHARS

    secrets = tuple(secrets)
    text = record.to_json(secrets) + "\n"
    if any(s and len(s) >= MIN_SECRET_CHARS and s in text for s in secrets):
        raise AssertionError("a secret survived redaction; refusing to write the record")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model = re.sub(r"[^A-Za-z0-9.\-]+", "_", record.model).strip("_") or "model"
    base = f"{record.timestamp[:10]}-{model}-needles"
    fd, tmp = tempfile.mkstemp(prefix=".needles-", suffix=".json", dir=out)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        n = 1
        while True:
            path = out / (f"{base}.json" if n == 1 else f"{base}-{n}.json")
            try:
                os.link(tmp, path)
                return path
            except FileExistsError:
                n += 1
    finally:
        os.unlink(tmp)


def load_records(folder: Path) -> list[dict[str, Any]]:
    """Every needle-probe record in ``folder`` (other JSON files, e.g. question probes, skipped).

    Raises
    ------
    InputError
        A file that claims the needle schema but cannot be read (names the file).
    """
    out: list[dict[str, Any]] = []
    for path in sorted(Path(folder).glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"{path}: not a readable JSON record ({exc})") from exc
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            continue
        try:
            NeedleProbeRecord.from_dict(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{path}: a broken needle-probe record ({exc})") from exc
        out.append(data)
    return out


def summary_lines(record: NeedleProbeRecord) -> Sequence[str]:
    """What the CLI prints: totals with the interval, then by class."""
    f, n, by = record.totals()
    lo, hi = wilson_interval(f, n)
    w, h = record.page_size
    failed = sum(1 for p in record.pages if p.hits is None)
    lines = [
        f"{record.model} ({record.provider} {record.api}) transcribed {len(record.pages) - failed} "
        f"of {len(record.pages)} {w}x{h} {record.font} pages from {record.source}"
        + ("" if record.preregistered else " (NOT the pre-registered protocol)"),
        f"needles found {f}/{n} = {100 * f / n:.1f} % [95 % Wilson {100 * lo:.1f}–{100 * hi:.1f}]"
        if n
        else "no needle measured",
    ]
    for k, (a, b) in by.items():
        lo, hi = wilson_interval(a, b)
        lines.append(f"  {k:<10} {a:>4}/{b:<4} [{100 * lo:.0f}–{100 * hi:.0f}]")
    for p in record.pages:
        if p.error:
            lines.append(f"  page {p.source}#{p.page}: not measured: {p.error}")
    return lines
