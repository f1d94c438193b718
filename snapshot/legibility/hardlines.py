"""Seeded hard test lines: the text where a misread glyph changes the meaning.

Dictionary prose flatters a reader (its language model fills in the gaps), so
legibility is measured on hex strings, ids with case and digit contrast,
camelCase identifiers and code punctuation. The same seed always gives the
same lines, on every machine, so scores are comparable across runs.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable
from typing import Literal

Kind = Literal["hex", "id", "camel", "code", "number"]
KINDS: tuple[Kind, ...] = ("hex", "id", "camel", "code", "number")

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


_MAKERS: dict[Kind, Callable[[random.Random], str]] = {
    "hex": _hex,
    "id": _id,
    "camel": _camel,
    "code": _code,
    "number": _number,
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
