"""The live probe battery: a page of agent history with planted facts, and its scoring.

The battery follows the peers' published evals (``../shared/docs/anchors.md``):
dense pages keep the gist but lose exact identifiers *silently*, so the
questions are mostly exact values a misread glyph would change:

- a 16-hex digest and a 12-hex commit (0/8/B/6, 3/8, 5/S confusions),
- exact numbers (an integer with thousands and a decimal),
- an identifier whose case-contrast twin is also on the page
  (``loadLedgerEntry`` against ``LoadLedgerEntry``),
- an identifier built from O/0 and l/1/I traps,
- a gist question (multiple choice, so its scoring is exact), and
- never-stated questions, whose right answer is "not stated": they catch a
  reader that confabulates instead of abstaining.

Near-miss distractors (another digest, another count) sit on the same page,
so an answer must come from the right line, not from the only hex in sight.

Each answer is scored ``exact``, ``abstained`` (said it could not read it, or
gave nothing) or ``wrong`` (a silent substitution or a confabulation). One
``wrong`` matters more than several abstentions: a reader that abstains can be
given the text; one that substitutes cannot be trusted with the page.

Everything is seeded: the same seed and capacity give the same page text and
the same questions, so a page's sha256 identifies the battery it carries.
"""

from __future__ import annotations

import os
import random
import re
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from snapshot.errors import InputError
from snapshot.legibility.records import (
    ProbeRecord,
    QuestionResult,
    SavedRecord,
    Score,
    save,
    saved_record,
)
from snapshot.readability.scoring import levenshtein

if TYPE_CHECKING:
    from snapshot.rendering.geometry import Geometry

BATTERY = "agent-history/1"

Kind = Literal["hex", "number", "identifier", "gist", "never_stated"]

NOT_STATED = "not stated"

INSTRUCTIONS = """\
The image is a page of an earlier conversation between a user, a coding \
assistant and its tools, drawn as small monospaced text. Answer each question \
below from the page alone.

- Copy exact values (hashes, numbers, names) character for character.
- If the page does not contain the answer, reply exactly: not stated
- If the page contains it but you cannot read it with certainty, reply: illegible
- Do not guess.

ModelAnswer with one line per question, in the form `<number>: <answer>`, and nothing else.

Questions:
"""


@dataclass(frozen=True)
class Question:
    """One question of a battery and the answer that scores exact."""

    qid: int
    kind: Kind
    text: str
    expected: str


@dataclass(frozen=True)
class Battery:
    """A seeded page text and the questions about it."""

    seed: int
    text: str
    questions: tuple[Question, ...]
    # Values that must appear verbatim on the rendered page (needles and
    # distractors): a rendering that drops one would make the battery unfair.
    planted: tuple[str, ...]
    name: str = BATTERY

    def prompt(self) -> str:
        """The instructions and numbered questions sent with the page."""
        lines = [f"{q.qid}. {q.text}" for q in self.questions]
        return INSTRUCTIONS + "\n".join(lines) + "\n"


# --- generation ------------------------------------------------------------


# Each topic is what a session is mainly about: the gist question asks for it,
# the filler is drawn from its words, and the other topics are the wrong choices.
@dataclass(frozen=True)
class _Topic:
    gist: str
    service: str
    files: tuple[str, ...]
    commands: tuple[str, ...]
    asks: tuple[str, ...]
    notes: tuple[str, ...]


_TOPICS: tuple[_Topic, ...] = (
    _Topic(
        "moving the invoices table to a new schema",
        "billing",
        ("migrations/0042_invoices.py", "billing/models.py", "billing/queries.py"),
        ("python manage.py migrate billing", "pytest tests/billing -q", "psql -c '\\d invoices'"),
        (
            "can you move the invoices table to the new schema without downtime?",
            "check that old invoices still load after the migration",
        ),
        (
            "the migration adds the new columns first and backfills them in batches",
            "the old column stays until every reader has switched",
            "invoice totals match before and after on the sample",
        ),
    ),
    _Topic(
        "fixing a flaky websocket reconnect test",
        "gateway",
        ("gateway/ws.py", "tests/test_reconnect.py", "gateway/backoff.py"),
        (
            "pytest tests/test_reconnect.py -q -x",
            "pytest -k reconnect --count 20",
            "git diff gateway/",
        ),
        (
            "the reconnect test fails about once in ten runs, can you find out why?",
            "make the reconnect test stable without sleeping longer",
        ),
        (
            "the test races the backoff timer against the server shutdown",
            "a fake clock makes the reconnect order deterministic",
            "twenty runs in a row pass with the fake clock",
        ),
    ),
    _Topic(
        "speeding up the thumbnail image pipeline",
        "media",
        ("media/thumbs.py", "media/workers.py", "bench/bench_thumbs.py"),
        ("python bench/bench_thumbs.py", "pytest tests/media -q", "py-spy top --pid 4711"),
        (
            "thumbnails got slow after the last release, can you profile it?",
            "try decoding the images once instead of per size",
        ),
        (
            "most of the time goes to decoding the same image three times",
            "decoding once and resizing from the decoded copy halves the time",
            "the worker pool was capped at two processes by mistake",
        ),
    ),
    _Topic(
        "adding rate limiting to the public search API",
        "search",
        ("search/api.py", "search/limits.py", "tests/test_limits.py"),
        ("pytest tests/test_limits.py -q", "curl -s localhost/search?q=a", "git log --oneline -5"),
        (
            "add a per-client rate limit to the search endpoint",
            "clients over the limit should get a clear error with a retry time",
        ),
        (
            "a token bucket per client id keeps bursts cheap",
            "the limiter answers with the time until the next token",
            "anonymous clients share one bucket per address",
        ),
    ),
    _Topic(
        "porting the command line config loader to TOML",
        "cli",
        ("cli/config.py", "cli/defaults.toml", "tests/test_config.py"),
        ("pytest tests/test_config.py -q", "python -m cli --print-config", "git status --short"),
        (
            "switch the config file from INI to TOML and keep old files working",
            "warn once when an old INI file is found",
        ),
        (
            "tomllib reads the new file and the INI reader stays as a fallback",
            "nested sections map to tables one to one",
            "the warning names the file and the command that converts it",
        ),
    ),
)

_RESULTS = (
    "ok",
    "done, no errors",
    "exit status 0",
    "3 files changed",
    "all checks passed",
    "no output",
    "1 warning, see above",
)

# Questions about facts the page never states. Each lists words that must not
# appear in the page text, which generation checks: a never-stated question
# is only fair while the page truly never states it.
_NEVER_STATED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("What port does the metrics exporter listen on?", ("metric", "exporter", "port ")),
    ("What is the email address of the code reviewer?", ("@", "email", "review")),
    ("What is the name of the feature flag that was turned off?", ("feature", "flag")),
    ("What exit code did the failed deploy return?", ("deploy",)),
    ("What is the ID of the support ticket that was closed?", ("ticket", "support")),
    ("Which region was the rollback performed in?", ("rollback", "region")),
)

# Words for identifiers: verb + noun pairs give camelCase / PascalCase twins.
_VERBS = ("load", "parse", "flush", "merge", "fetch", "build", "render", "check")
_NOUNS = ("Ledger", "Entry", "Batch", "Cursor", "Index", "Record", "Bucket", "Frame")
# O/0 and l/1/I are the pairs a 5-px font can collapse.
_TRAPS = "O0lI1"
_ID_PREFIXES = ("job", "node", "queue", "worker")


def _hex(rng: random.Random, n: int) -> str:
    # Rejection-sample until both digits and letters occur: an all-digit
    # "hex" would test numbers, not hex.
    while True:
        s = "".join(rng.choice("0123456789abcdef") for _ in range(n))
        if any(c.isdigit() for c in s) and any(c.isalpha() for c in s):
            return s


def _near_miss(rng: random.Random, value: str, alphabet: str) -> str:
    """``value`` with 2-3 characters changed: a distractor that looks alike."""
    chars = list(value)
    for i in rng.sample(range(len(chars)), k=rng.choice((2, 3))):
        chars[i] = rng.choice([c for c in alphabet if c != chars[i]])
    return "".join(chars)


def _clock(minute: int) -> str:
    return f"[{9 + minute // 60:02d}:{minute % 60:02d}]"


# The needles and distractors take about 600 cells; below this a page has no
# room for the filler that makes finding them a reading task.
MIN_CAPACITY = 900


def make_battery(seed: int = 0, capacity: int = 20_000) -> Battery:
    """A page text of at most ``capacity`` characters, its needles and questions.

    ``capacity`` is the number of cells on the page (``Geometry.chars_per_page``
    in flow mode, where a newline takes one cell), so the text fits one page.
    """
    if capacity < MIN_CAPACITY:
        raise ValueError(
            f"capacity {capacity} is too small for a battery page (need >= {MIN_CAPACITY})"
        )
    rng = random.Random(seed)
    topic_i = rng.randrange(len(_TOPICS))
    topic = _TOPICS[topic_i]

    digest = _hex(rng, 16)
    digest_other = _near_miss(rng, digest, "0123456789abcdef")
    commit = _hex(rng, 12)
    artifact = (
        f"{topic.service}-{rng.randrange(2, 9)}.{rng.randrange(0, 20)}.{rng.randrange(0, 10)}"
    )
    artifact_other = f"{topic.service}-assets"
    rows = rng.randrange(1_000_000, 9_999_999)
    rows_skipped = int(str(rows)[::-1]) % 100_000 + 1_000  # looks alike, far smaller
    p99 = f"{rng.randrange(1, 9)}.{rng.randrange(0, 10_000):04d}"
    verb, noun1, noun2 = rng.choice(_VERBS), *rng.sample(_NOUNS, 2)
    camel = f"{verb}{noun1}{noun2}"
    pascal = camel[0].upper() + camel[1:]
    trap_kind = rng.choice(_ID_PREFIXES)
    trap_id = f"{trap_kind}-" + "".join(rng.choice(_TRAPS) for _ in range(4))
    trap_id += "".join(rng.choice(_TRAPS + "abcdef") for _ in range(4))
    trap_other = _near_miss(rng, trap_id[-8:], _TRAPS)
    trap_other = trap_id[:-8] + trap_other
    msg = rng.choice(("fix off-by-one in batch cursor", "handle empty pages", "retry on timeout"))

    # The facts asked about, and look-alike distractors in a different role
    # (another artifact's digest, the skipped count, the job left alone).
    needles = [
        f"tool_result: built dist/{artifact}.tar.gz digest {digest}",
        f"tool_result: [main {commit}] {msg}",
        f"tool_result: backfill processed {rows:,} rows, skipped {rows_skipped:,}",
        f"tool_result: p99 latency {p99} s over the last run",
        f"assistant: renamed the helper to {camel}; the class {pascal} keeps its name",
        f"tool_result: retried {trap_id} after the timeout; {trap_other} was left alone",
        f"tool_result: built dist/{artifact_other}.tar.gz digest {digest_other}",
    ]
    rng.shuffle(needles)

    never = rng.sample(_NEVER_STATED, 2)
    gist_choices = [topic_i, *rng.sample([i for i in range(len(_TOPICS)) if i != topic_i], 3)]
    rng.shuffle(gist_choices)
    letters = "ABCD"
    gist_letter = letters[gist_choices.index(topic_i)]
    gist_text = "What was this session mainly about? Answer with the letter only: " + "; ".join(
        f"{letters[k]}) {_TOPICS[i].gist}" for k, i in enumerate(gist_choices)
    )

    questions = [
        Question(0, "hex", f"What is the 16-character hex digest of {artifact}.tar.gz?", digest),
        Question(0, "hex", f"What is the 12-character hash of the commit '{msg}'?", commit),
        Question(
            0,
            "number",
            "How many rows did the backfill process? Give the exact number.",
            f"{rows:,}",
        ),
        Question(0, "number", "What p99 latency was measured, in seconds?", p99),
        Question(0, "identifier", "What is the exact new name of the renamed helper?", camel),
        Question(
            0, "identifier", f"What is the exact ID of the {trap_kind} that was retried?", trap_id
        ),
        Question(0, "gist", gist_text, gist_letter),
        *(Question(0, "never_stated", q, NOT_STATED) for q, _ in never),
    ]
    rng.shuffle(questions)
    questions = [Question(i + 1, q.kind, q.text, q.expected) for i, q in enumerate(questions)]

    # Filler fills what the needles leave, then needles go in at seeded places,
    # spread over the page (top, middle and bottom rows all get tested).
    budget = capacity - sum(len(n) + 10 for n in needles)
    if budget < 0:  # only for unlucky seeds near MIN_CAPACITY
        raise ValueError(f"capacity {capacity} cannot hold this battery's facts (seed {seed})")
    filler = _filler(rng, topic, budget)
    slots = sorted(rng.sample(range(1, max(len(filler), len(needles) + 1)), k=len(needles)))
    lines = list(filler)
    for offset, (slot, needle) in enumerate(zip(slots, needles, strict=True)):
        lines.insert(slot + offset, needle)
    text = "\n".join(f"{_clock(i)} {line}" for i, line in enumerate(lines))
    # The budget counts 10 cells of clock and newline per line, one more than
    # they take, so the text fits; a check keeps that promise explicit.
    if len(text) > capacity:
        raise AssertionError(f"battery text of {len(text)} cells overflows {capacity}")

    lowered = text.lower()
    for q, absent in never:
        clash = [w for w in absent if w in lowered]
        if clash:  # a generator bug, not a user error
            raise AssertionError(f"never-stated question {q!r} is answered by words {clash}")

    planted = (digest, digest_other, commit, f"{rows:,}", p99, camel, pascal, trap_id, trap_other)
    return Battery(seed=seed, text=text, questions=tuple(questions), planted=planted)


def _filler(rng: random.Random, topic: _Topic, budget: int) -> list[str]:
    lines: list[str] = []
    used = 0
    while True:
        choice = rng.random()
        if choice < 0.15:
            line = f"user: {rng.choice(topic.asks)}"
        elif choice < 0.35:
            line = f"assistant: I'll look at {rng.choice(topic.files)} next."
        elif choice < 0.55:
            line = f"tool_use bash: {rng.choice(topic.commands)}"
        elif choice < 0.75:
            line = f"tool_result: {rng.choice(_RESULTS)}"
        elif choice < 0.9:
            line = f"assistant: {rng.choice(topic.notes)}."
        else:
            n = rng.randrange(2, 60)
            line = f"tool_result: {n} passed in {rng.randrange(1, 30)}.{rng.randrange(10)}s"
        cost = len(line) + 10  # clock prefix and newline
        if used + cost > budget:
            return lines
        lines.append(line)
        used += cost


# --- answers and scoring ---------------------------------------------------

# "1: x", "1. x", "1) x", "- 1: x", "**1.** x", "Q1: x", '"1": "x",' (models
# drift into markdown or JSON even when asked for plain lines).
_ANSWER_LINE = re.compile(
    r'^\s*(?:[-*#>]+\s*)?(?:\*\*)?(?:Q(?:uestion)?\s*)?"?(\d{1,2})"?(?:\*\*)?'
    r"\s*[:.)\]-]\s*(?:\*\*)?\s*(.*?)\s*$",
    re.I,
)

# "The page does not say": the right answer to a never-stated question, an
# abstention on any other.
_SAYS_ABSENT = re.compile(
    r"\b(not stated|not (?:mentioned|shown|given|present|specified|provided|included|found"
    r"|visible|on the page|in the (?:page|image|text))"
    r"|(?:isn't|is not|was not|wasn't|never) (?:stated|mentioned|shown|given|specified)"
    r"|no (?:such|mention|information|record)"
    r"|(?:does not|doesn't|did not|didn't) (?:say|state|mention|appear|show)"
    r"|no\b[^.\n]{0,40}\b(?:stated|mentioned|given|shown|specified)"
    r"|unknown|none|n/a)(?![\w/])",
    re.I,
)
# "I cannot read it": an abstention on every question.
_CANNOT_READ = re.compile(
    r"\b(illegible|unreadable|ilegivel|not (?:legible|readable|clear)|unclear"
    r"|(?:cannot|can't|can not|unable to) (?:read|make out|tell|determine|see|decipher))\b",
    re.I,
)


# What an invented answer to a never-stated question looks like: a number of
# two or more digits (ports, exit codes, ids) or an email address. A lone digit
# is allowed so "not stated on page 1" stays an abstention from guessing.
_VALUE_LIKE = re.compile(r"\d{2,}|\S@\S")


def parse_answers(reply: str, n: int) -> dict[int, str]:
    """Answers by question number from a ``<number>: <answer>`` reply.

    Lines that do not start with a question number in ``1..n`` are ignored
    (models sometimes add a preamble); the first answer to a number wins.
    """
    answers: dict[int, str] = {}
    for line in reply.replace("```", "\n").splitlines():
        m = _ANSWER_LINE.match(line)
        if m:
            qid = int(m.group(1))
            if 1 <= qid <= n and qid not in answers:
                answers[qid] = m.group(2)
    return answers


def _clean(answer: str) -> str:
    s = answer.strip()
    s = re.sub(r"^(?:answer|a)\s*[:=]\s*", "", s, flags=re.I)
    s = s.replace("**", "")
    s = s.strip().strip("`'\"“”‘’").strip()
    s = s.rstrip(".;,").strip("`'\"").strip()
    # A function named with its call parentheses is still its name.
    return s.removesuffix("()")


def _ungroup(s: str) -> str:
    # Thousands separators are presentation, not value: 1,234,567 = 1234567.
    return re.sub(r"(?<=\d)[,_ ](?=\d{3}\b)", "", s)


def _candidates(kind: Kind, answer: str, expected: str) -> list[str]:
    """Value-shaped tokens in a longer answer ("the digest is 3fa9..." → "3fa9...")."""
    if kind == "hex":
        lo, hi = len(expected) - 3, len(expected) + 3
        found = re.findall(rf"\b[0-9A-Za-z]{{{lo},{hi}}}\b", answer)
        found = [t for t in found if sum(c in string.hexdigits for c in t) >= len(t) - 2]
    elif kind == "number":
        found = re.findall(r"-?\d[\d,_]*(?:\.\d+)?", _ungroup(answer))
        found = [_ungroup(t).rstrip(",_") for t in found]
    else:
        found = [
            t
            for t in re.findall(r"[A-Za-z0-9_\-]+", answer)
            if levenshtein(t.lower(), expected.lower()) <= max(2, len(expected) // 3)
        ]
    return list(dict.fromkeys(found))


def _same(kind: Kind, value: str, expected: str) -> bool:
    if kind == "hex":
        # A digest is the same value in either case; case traps are the
        # identifier questions' job.
        return value.lower() == expected.lower()
    if kind == "number":
        return _ungroup(value) == _ungroup(expected)
    return value == expected


def score_answer(question: Question, answer: str | None) -> QuestionResult:
    """Score one answer: exact, abstained, or wrong (with its edit distance)."""

    def result(score: Score, distance: int | None = None) -> QuestionResult:
        return QuestionResult(
            qid=question.qid,
            kind=question.kind,
            question=question.text,
            expected=question.expected,
            answer=answer,
            score=score,
            distance=distance,
        )

    if answer is None or not _clean(answer):
        return result("abstained")  # silence is not a confabulation
    cleaned = _clean(answer)

    if question.kind == "never_stated":
        # A value offered for a fact the page never states is a confabulation,
        # hedged or not ("probably 9100, not clearly visible").
        if _VALUE_LIKE.search(cleaned):
            return result("wrong")
        if _SAYS_ABSENT.search(cleaned):
            return result("exact")
        if _CANNOT_READ.search(cleaned):
            return result("abstained")
        return result("wrong")  # an invented value

    if _CANNOT_READ.search(cleaned):
        return result("abstained")
    # "Not stated" about a fact that is on the page is an abstention too,
    # unless a value came with it ("not stated, maybe 3fa9...": a guess).
    if _SAYS_ABSENT.search(cleaned) and (
        question.kind == "gist" or not _candidates(question.kind, cleaned, question.expected)
    ):
        return result("abstained")

    if question.kind == "gist":
        m = re.match(r"^\(?([A-Da-d])\b\)?", cleaned)
        letter = m.group(1).upper() if m else None
        return result("exact" if letter == question.expected else "wrong")

    kind, expected = question.kind, question.expected
    if _same(kind, cleaned, expected):
        return result("exact", 0)
    if kind == "number":
        # A unit glued to the number ("1.6818s") is not part of the value.
        cleaned = re.sub(r"(?<=\d)(?:s|ms|sec|seconds|rows)$", "", cleaned)
        if _same(kind, cleaned, expected):
            return result("exact", 0)
    if not any(c.isspace() for c in cleaned):
        # A bare value: compare it whole, so a misread first glyph ("l,088,442")
        # is one edit, not a shorter number found inside it.
        return result("wrong", _distance(kind, cleaned, expected))
    found = _candidates(kind, cleaned, expected)
    if len(found) == 1:
        value = found[0]
        if _same(kind, value, expected):
            return result("exact", 0)
        return result("wrong", _distance(kind, value, expected))
    # Several candidates is a hedge ("either X or Y"): not an exact read.
    return result("wrong", _distance(kind, cleaned, expected))


def _distance(kind: Kind, value: str, expected: str) -> int:
    """Edit distance in the terms _same compares (hex case and digit grouping aside)."""
    if kind == "hex":
        return levenshtein(value.lower(), expected.lower())
    if kind == "number":
        # A misread digit can break the grouping ("l,088,442"): take the
        # closer of the raw and the ungrouped comparison.
        return min(levenshtein(value, expected), levenshtein(_ungroup(value), _ungroup(expected)))
    return levenshtein(value, expected)


def score_reply(battery: Battery, reply: str) -> tuple[QuestionResult, ...]:
    """Score a whole reply against the battery's questions."""
    answers = parse_answers(reply, len(battery.questions))
    return tuple(score_answer(q, answers.get(q.qid)) for q in battery.questions)


def canned_reply(battery: Battery, overrides: Iterable[tuple[int, str]] = ()) -> str:
    """A reply answering every question exactly, with some answers replaced.

    For tests and dry runs: the exact reply scores all ``exact``.
    """
    answers = {q.qid: q.expected for q in battery.questions}
    answers.update(dict(overrides))
    return "\n".join(f"{qid}: {answers[qid]}" for qid in sorted(answers))


def counts(results: Sequence[QuestionResult]) -> dict[str, int]:
    out = {"exact": 0, "abstained": 0, "wrong": 0}
    for r in results:
        out[r.score] += 1
    return out


# --- running a probe -------------------------------------------------------

# build_page's size when a caller gives none (run_probe and the CLI use the
# model's profile): the 1568x728 sheet at which the peers measured 5x8 reads
# (anchors.md, pxpipe).
DEFAULT_PAGE_SIZE = (1568, 728)


@dataclass(frozen=True)
class ProbePage:
    """A battery drawn on one page: the PNG a model is shown, and its identity."""

    battery: Battery
    png: bytes
    sha256: str
    size: tuple[int, int]
    font: str


def build_page(
    seed: int = 0,
    font: str = "snap5x8",
    page_size: tuple[int, int] = DEFAULT_PAGE_SIZE,
    padding: int = 2,
    *,
    geometry: Geometry | None = None,
) -> ProbePage:
    """Render a seeded battery onto exactly one page with the project's renderer.

    ``geometry`` (a profile's) wins over ``font``, ``page_size`` and ``padding``.
    """
    import hashlib

    from snapshot.rendering.geometry import Geometry
    from snapshot.rendering.glyphs import load_font
    from snapshot.rendering.page import render

    if geometry is None:
        geometry = Geometry.fit(load_font(font), *page_size, padding=padding)
    loaded = geometry.font
    font = loaded.name
    page_size = (int(geometry.size[0]), int(geometry.size[1]))
    capacity = int(geometry.chars_per_page)
    if capacity < MIN_CAPACITY:
        raise InputError(
            f"a {page_size[0]}x{page_size[1]} page in {font} holds {capacity} characters; "
            f"the probe battery needs {MIN_CAPACITY}: use a smaller font or a larger page"
        )
    # Flow layout costs one cell per character and per newline, so a text of
    # at most `capacity` characters is one page; shrink and retry if the
    # renderer disagrees (wide fallback glyphs would take two cells).
    for _ in range(5):
        try:
            battery = make_battery(seed, capacity)
        except ValueError as exc:
            raise InputError(f"{exc}: use a smaller font or a larger page") from None
        pages = render(battery.text, geometry)
        if len(pages) == 1:
            break
        capacity = max(MIN_CAPACITY, int(capacity * 0.9))
    else:
        raise InputError(f"the probe battery does not fit one {page_size[0]}x{page_size[1]} page")
    page = pages[0]
    missing = [v for v in battery.planted if v not in page.text]
    if missing:
        raise InputError(f"font {font!r} cannot draw the probe values {missing} on the page")
    png = page.png()
    return ProbePage(
        battery=battery,
        png=png,
        sha256=hashlib.sha256(png).hexdigest(),
        size=(int(geometry.size[0]), int(geometry.size[1])),
        font=loaded.name,
    )


def run_probe(
    model: str,
    *,
    font: str | None = None,
    seed: int = 0,
    api: str | None = None,
    api_key: str | None = None,
    base_url: str | None = None,
    timeout: float = 180.0,
    max_retries: int = 2,
) -> ProbeRecord:
    """Show ``model`` a battery page, score its reply, and return the record.

    The page is the one the model's profile draws (its font and solved page
    size); ``font`` replaces the font and the page is solved again for it.
    The key defaults to the provider's environment variable
    (:func:`snapshot.providers.live.key_from_env`); the record holds no key.
    """
    import datetime

    import snapshot
    from snapshot.profiles.probe_target import probe_target_for
    from snapshot.providers import live

    target = probe_target_for(model, api=api, font=font)
    key = api_key if api_key is not None else live.key_from_env(target.provider, model=model)
    live.import_sdk(target.provider)  # fail on a missing extra before rendering
    page = build_page(seed, geometry=target.geometry())
    when = datetime.datetime.now(datetime.UTC)
    reply = live.ask(
        target,
        page.png,
        page.battery.prompt(),
        api_key=key,
        base_url=base_url,
        timeout=timeout,
        max_retries=max_retries,
    )
    results = score_reply(page.battery, reply.text)
    return ProbeRecord(
        model=model,
        provider=target.provider,
        api=target.api,
        profile=target.profile,
        family=target.family,
        font=page.font,
        page_sha256=page.sha256,
        page_size=page.size,
        seed=seed,
        battery=page.battery.name,
        image_options=target.image_options(),
        questions=results,
        reply=reply.text,
        timestamp=when.isoformat(timespec="seconds").replace("+00:00", "Z"),
        duration_s=round(reply.duration_s, 3),
        usage=reply.usage,
        snapshot_version=snapshot.__version__,
    )


def probe_and_save(
    model: str,
    out_dir: str | os.PathLike[str],
    *,
    font: str | None = None,
    seed: int = 0,
    api: str | None = None,
    base_url: str | None = None,
    timeout: float = 180.0,
) -> SavedRecord:
    """Run the question battery on ``model`` (:func:`run_probe`) and save the record.

    Answers were redacted with the key used; every key in the environment is
    redacted again from what is written and from the returned document, in
    case one came back.

    Examples
    --------
    A model no provider serves fails before anything is drawn or sent:

    >>> probe_and_save("no-such-model", "reports/probes")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    snapshot.errors.UnknownModelError: no live provider for model 'no-such-model'; ...
    """
    from snapshot.providers.keys import env_secrets

    record = run_probe(model, font=font, seed=seed, api=api, base_url=base_url, timeout=timeout)
    secrets = env_secrets()
    return saved_record(record, save(record, out_dir, secrets), secrets)
