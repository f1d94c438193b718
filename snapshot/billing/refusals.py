"""Requests a provider would refuse, as opposed to resize: the error ``snapshot cost`` raises.

>>> err = RequestRefused("too many patches", rule="openai-30000-patch-limit")
>>> err.rule, isinstance(err, ImageError)
('openai-30000-patch-limit', True)
"""

from __future__ import annotations

from snapshot.errors import ImageError


class RequestRefused(ImageError):
    """An image or request the provider rejects; ``rule`` names the documented limit."""

    def __init__(self, message: str, *, rule: str) -> None:
        super().__init__(f"refused by rule {rule}: {message}")
        self.rule = rule


__all__ = ["RequestRefused"]
