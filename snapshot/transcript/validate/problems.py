"""What a validator found: one :class:`Problem` per way a body breaks a provider's rules."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One reason a provider would refuse a request body.

    ``where`` is a JSON path into the body (``messages[3].content[0]``),
    ``rule`` names the check (``schema``, ``role-order``, ``unanswered-call``,
    ...), ``source`` says whose rule it is (the OpenAPI spec, an SDK's types,
    a documented rule).

    >>> str(Problem("messages[0]", "role-order", "starts with assistant", "documented rule"))
    'messages[0]: role-order: starts with assistant (documented rule)'
    """

    where: str
    rule: str
    message: str
    source: str

    def __str__(self) -> str:
        return f"{self.where}: {self.rule}: {self.message} ({self.source})"


def json_path(parts: tuple[str | int, ...] | list[str | int]) -> str:
    """``("messages", 3, "content")`` → ``messages[3].content``.

    >>> json_path(("messages", 3, "content", 0))
    'messages[3].content[0]'
    >>> json_path(())
    '(body)'
    """
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += f".{p}" if out else str(p)
    return out or "(body)"
