"""Seeded hard test lines: the text where a misread glyph changes the meaning.

Dictionary prose flatters a reader (its language model fills in the gaps), so
legibility is measured on hex strings, ids with case and digit contrast,
camelCase identifiers and code punctuation. The same seed always gives the
same lines, on every machine, so scores are comparable across runs.

:func:`transcript_lines` adds what agent transcripts are full of (shell output,
tracebacks, JSON with ids, hashes, UUIDs, paths), and :func:`full_page_rows`
packs them into rows that fill a page edge to edge, because a half-filled page
flatters small cells. Two seeds are fixed: :data:`TUNING_SEED` for the search
(``snapshot tune``) and :data:`HELD_OUT_SEED` for the claims, which the tuner
refuses to use.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable
from typing import Literal

Kind = Literal["hex", "id", "camel", "code", "number", "shell", "traceback", "json", "uuid", "path"]
KINDS: tuple[Kind, ...] = ("hex", "id", "camel", "code", "number")
#: What agent transcripts look like: the held-out and tuning sets draw from all of these.
TRANSCRIPT_KINDS: tuple[Kind, ...] = (
    "shell",
    "traceback",
    "json",
    "uuid",
    "path",
    "hex",
    "id",
    "code",
    "number",
    "camel",
)
#: Seed of the lines ``snapshot tune`` searches on.
TUNING_SEED = 1
#: Seed of the held-out lines the frontier and the claims are measured on; never tuned on.
HELD_OUT_SEED = 20261201

_WORDS: tuple[str, ...] = (
    "get",
    "set",
    "user",
    "id",
    "token",
    "cache",
    "page",
    "row",
    "col",
    "index",
    "buffer",
    "parse",
    "read",
    "write",
    "load",
    "save",
    "item",
    "list",
    "map",
    "key",
    "value",
    "count",
    "total",
    "max",
    "min",
    "flag",
    "state",
    "node",
    "tree",
    "edge",
    "path",
    "file",
    "name",
    "type",
    "size",
    "offset",
    "limit",
    "retry",
    "timeout",
    "handler",
    "config",
    "client",
    "server",
    "request",
    "response",
    "error",
    "status",
    "result",
    "batch",
    "stream",
    "chunk",
    "frame",
    "pixel",
    "glyph",
    "font",
    "sheet",
)
# Glyph groups that readers confuse: ids are salted with them on purpose.
_CONFUSABLE = "0O1lI5S8B2Z6G9gqrnmuvwxX"
_ID_ALPHABET = string.ascii_letters + string.digits


def _hex(r: random.Random) -> str:
    parts = [
        "".join(r.choice("0123456789abcdef") for _ in range(r.choice((8, 12, 16, 40)))),
        "".join(r.choice("0123456789abcdef") for _ in range(r.choice((8, 12)))),
    ]
    prefix = r.choice(("sha ", "commit ", "0x", "#", "hash=", ""))
    return prefix + " ".join(parts)


def _id(r: random.Random) -> str:
    def token(n: int) -> str:
        return "".join(
            r.choice(_CONFUSABLE) if r.random() < 0.4 else r.choice(_ID_ALPHABET) for _ in range(n)
        )

    prefix = r.choice(("req_", "msg_", "toolu_", "sk-", "id=", "call_", ""))
    uuidish = "-".join("".join(r.choice("0123456789ABCDEF") for _ in range(k)) for k in (8, 4, 4))
    return f"{prefix}{token(r.randint(10, 18))} {uuidish}"


def _camel(r: random.Random) -> str:
    def ident() -> str:
        words = [r.choice(_WORDS) for _ in range(r.randint(2, 4))]
        head = words[0] if r.random() < 0.7 else words[0].upper()
        tail = "".join(w.capitalize() for w in words[1:])
        return head + tail + (str(r.randint(0, 99)) if r.random() < 0.3 else "")

    return " ".join(ident() for _ in range(r.randint(2, 3)))


def _code(r: random.Random) -> str:
    a, b, c = (r.choice(_WORDS) for _ in range(3))
    n = r.randint(0, 255)
    templates = (
        f"if ({a}[{n}] != {b}) {{ return {c}; }}",
        f"def {a}_{b}(self, {c}: int = {n}) -> list[str]:",
        f"{a} = {{'{b}': [{n}, {n % 7}], \"{c}\": None}}",
        f"for (i = 0; i < {a}.{b}; i++) {c} |= 1 << {n % 32};",
        f"const {a}{b.capitalize()} = ({c}) => {c}?.{a} ?? `${{{n}}}`;",
        f"assert {a} == {b}, f'{c}={{{c}!r}}'  # {n}",
        f"{a}->{b}[{n % 16}] = ~{c} & 0x{n:02x}; /* {b} */",
    )
    return r.choice(templates)


def _number(r: random.Random) -> str:
    vals = [
        f"{r.randint(0, 99999)}.{r.randint(0, 999):03d}",
        f"{r.randint(-999, 999)}",
        f"{r.random():.6f}",
        f"1e-{r.randint(2, 9)}",
        f"{r.randint(1, 12):02d}/{r.randint(1, 28):02d}/{r.randint(1990, 2030)}",
    ]
    r.shuffle(vals)
    return " ".join(vals[: r.randint(3, 5)])


_DIRS = ("src", "tests", "lib", "app", "pkg", "internal", "build", "tmp", "home/dev", "var/log")
_EXTS = (".py", ".ts", ".rs", ".go", ".json", ".md", ".log", ".yaml", ".c", ".h")
_ERRORS = (
    "KeyError",
    "ValueError",
    "TypeError",
    "FileNotFoundError",
    "AssertionError",
    "IndexError",
    "RuntimeError",
    "ConnectionResetError",
)


def _hexstr(r: random.Random, n: int) -> str:
    return "".join(r.choice("0123456789abcdef") for _ in range(n))


def _path(r: random.Random) -> str:
    parts = [r.choice(_DIRS)] + [
        r.choice(_WORDS) + (str(r.randint(0, 9)) if r.random() < 0.2 else "")
        for _ in range(r.randint(1, 3))
    ]
    name = r.choice(_WORDS) + r.choice(("_", "-", "")) + r.choice(_WORDS) + r.choice(_EXTS)
    lead = r.choice(("/", "./", "~/", "/", ""))
    return lead + "/".join([*parts, name]) + (f":{r.randint(1, 999)}" if r.random() < 0.4 else "")


def _uuid(r: random.Random) -> str:
    u = "-".join(_hexstr(r, k) for k in (8, 4, 4, 4, 12))
    return r.choice(("", "id: ", "run_id=", "trace ", "session ")) + (
        u.upper() if r.random() < 0.2 else u
    )


def _shell(r: random.Random) -> str:
    path = _path(r)
    templates = (
        f"$ git log --oneline -3  # {_hexstr(r, 7)} {r.choice(_WORDS)}: {r.choice(_WORDS)}",
        f"-rw-r--r-- 1 dev staff {r.randint(0, 99999):>6} Nov {r.randint(1, 30):2d} "
        f"{r.randint(0, 23):02d}:{r.randint(0, 59):02d} {path}",
        f"{path}:{r.randint(1, 400)}:{r.randint(1, 80)}: E{r.randint(100, 999)} "
        f"{r.choice(_WORDS)} {r.choice(('unused', 'undefined', 'too long'))}",
        f"$ grep -rn '{r.choice(_WORDS)}' {path} | wc -l  => {r.randint(0, 999)}",
        f"PID {r.randint(100, 99999)} exited with code {r.choice((0, 1, 2, 127, 137, 139))} "
        f"after {r.random() * 100:.2f}s",
        f"[{r.choice(('INFO', 'WARN', 'ERROR', 'DEBUG'))}] {r.randint(0, 23):02d}:"
        f"{r.randint(0, 59):02d}:{r.randint(0, 59):02d}.{r.randint(0, 999):03d} "
        f"{r.choice(_WORDS)}={r.randint(0, 4096)} {path}",
    )
    return r.choice(templates)


def _traceback(r: random.Random) -> str:
    path = _path(r).split(":")[0]
    a, b = r.choice(_WORDS), r.choice(_WORDS)
    templates = (
        f'  File "{path}", line {r.randint(1, 2000)}, in {a}_{b}',
        f"{r.choice(_ERRORS)}: '{a}_{b}' (got {r.randint(-9, 9999)}, expected {r.randint(0, 99)})",
        f"    {a} = self.{b}[{r.randint(0, 64)}]  # {r.choice(_ERRORS)}",
        f"Traceback (most recent call last): {r.choice(_ERRORS)} at 0x{_hexstr(r, 12)}",
    )
    return r.choice(templates)


def _json(r: random.Random) -> str:
    a, b = r.choice(_WORDS), r.choice(_WORDS)
    ident = "".join(r.choice(_ID_ALPHABET) for _ in range(r.randint(8, 24)))
    templates = (
        f'{{"id": "{r.choice(("msg_", "toolu_", "call_", "req_"))}{ident}", "{a}": {r.randint(0, 9999)}}}',
        f'"{a}_{b}": {{"sha": "{_hexstr(r, 40)}"}}',
        f'{{"type": "{a}", "{b}": [{r.randint(0, 99)}, {r.random():.3f}, null, true]}}',
        f'"{a}": "{_path(r)}", "size": {r.randint(0, 10**7)}',
    )
    return r.choice(templates)


_MAKERS: dict[Kind, Callable[[random.Random], str]] = {
    "hex": _hex,
    "id": _id,
    "camel": _camel,
    "code": _code,
    "number": _number,
    "shell": _shell,
    "traceback": _traceback,
    "json": _json,
    "uuid": _uuid,
    "path": _path,
}


def hard_lines(
    n: int, *, seed: int = 0, kinds: tuple[Kind, ...] = KINDS, max_len: int = 64
) -> list[str]:
    """``n`` hard lines of printable ASCII, kinds in rotation, each at most ``max_len`` chars."""
    if n < 0:
        raise ValueError("n must be >= 0")
    if not kinds:
        raise ValueError("at least one kind is needed")
    r = random.Random(f"snapshot-hardlines-{seed}")
    lines = []
    for i in range(n):
        line = _MAKERS[kinds[i % len(kinds)]](r)
        lines.append(line[:max_len].rstrip())
    return lines


def transcript_lines(n: int, *, seed: int = TUNING_SEED, max_len: int = 120) -> list[str]:
    """``n`` transcript-like hard lines (:data:`TRANSCRIPT_KINDS` in rotation).

    >>> transcript_lines(3, seed=HELD_OUT_SEED) == transcript_lines(3, seed=HELD_OUT_SEED)
    True
    >>> transcript_lines(2) != transcript_lines(2, seed=HELD_OUT_SEED)
    True
    """
    return hard_lines(n, seed=seed, kinds=TRANSCRIPT_KINDS, max_len=max_len)


def full_page_rows(cols: int, rows: int, *, seed: int = TUNING_SEED, page: int = 0) -> list[str]:
    """``rows`` lines of at most ``cols`` characters, each packed nearly full.

    Hard lines are joined with two spaces; the last one on a row is cut to fit, so
    every row ends within a few cells of the right margin and no row wraps:
    the page is full edge to edge, the way a snapshot's middle pages are.
    ``page`` picks another page of the same seeded stream.

    >>> rs = full_page_rows(80, 5, seed=HELD_OUT_SEED)
    >>> len(rs), all(74 <= len(r) <= 80 for r in rs)
    (5, True)
    """
    if cols < 8 or rows < 1:
        raise ValueError("a full page needs cols >= 8 and rows >= 1")
    r = random.Random(f"snapshot-fullpage-{seed}-{page}")
    out: list[str] = []
    cur = ""
    i = 0
    while len(out) < rows:
        line = _MAKERS[TRANSCRIPT_KINDS[i % len(TRANSCRIPT_KINDS)]](r)[:cols].rstrip()
        i += 1
        if not cur:
            cur = line
        elif len(cur) + 2 + len(line) <= cols:
            cur = f"{cur}  {line}"
        else:
            room = cols - len(cur) - 2
            if room >= 4:
                cur = f"{cur}  {line[:room].rstrip()}"  # top the row up from this line
            out.append(cur)
            cur = line
    return out
