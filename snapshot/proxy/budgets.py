"""What a provider enforces on a request besides tokens: its size and its images.

An upstream body never exceeds these (:class:`Budget`): the route's request size
and image count from the limit tables (``snapshot.profiles``, each row with its
source), tightened where a provider is known to fail below its documented
limit, and by the size of a body the provider has refused for its bytes (413):

- Anthropic: requests carrying more than about 20 MiB of images fail (500/502 or an
  empty 200), below the documented 32 MB (measured by pxpipe 0.13.2, whose
  ``maxImageBytes`` defaults to 18 MiB; /work/shared/docs/anchors.md, read
  2026-12): the whole body is kept under 20 MiB.
- OpenRouter: keeps 8 images per request and silently drops the rest (SC CHANGELOG
  15.11.7, 2026-06-12, measured; a later release budgets 90:
  providers-2026-12.md, a disputed fact, so the smaller end of the range).

>>> b = budget_for("anthropic", "https://api.anthropic.com", max_request_bytes=32_000_000,
...                max_images=100)
>>> b.max_bytes, b.max_images
(20971520, 100)
>>> budget_for("openai", "https://openrouter.ai/api", max_request_bytes=None, max_images=20).max_images
8
>>> count_images({"messages": [{"role": "user", "content": [
...     {"type": "image", "source": {"type": "base64", "data": "AAAA"}},
...     {"type": "text", "text": "hi"}, {"type": ["not", "a", "type"]}]}]})
1
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

MIB = 1024 * 1024
# Below a provider's documented limit, where it is known to fail (see the module docstring).
ANTHROPIC_IMAGE_BYTES = 20 * MIB
OPENROUTER_IMAGES = 8
# A body refused for its bytes: the next is at most this share of it.
BYTES_MARGIN = 0.95

_IMAGE_TYPES = {"image", "image_url", "input_image"}
_IMAGE_KEYS = {"inlineData", "inline_data"}


@dataclass(frozen=True)
class Budget:
    """The most bytes and images one upstream body may carry (None: no limit known)."""

    max_bytes: int | None
    max_images: int | None

    def over(self, data: bytes, images: int) -> str | None:
        """Why a body of ``data`` with ``images`` images is over this budget, or None."""
        if self.max_bytes is not None and len(data) > self.max_bytes:
            return f"the body is {len(data):,} bytes, over the {self.max_bytes:,} allowed"
        if self.max_images is not None and images > self.max_images:
            return f"the body carries {images} images, over the {self.max_images} allowed"
        return None


def budget_for(
    provider: str,
    upstream: str,
    *,
    max_request_bytes: int | None,
    max_images: int | None,
    too_many_bytes: int | None = None,
) -> Budget:
    """The budget of one upstream: the route's limits, tightened by what is known to fail."""
    sizes = [v for v in (max_request_bytes,) if v is not None]
    images = [v for v in (max_images,) if v is not None]
    if provider == "anthropic":
        sizes.append(ANTHROPIC_IMAGE_BYTES)
    host = urlsplit(upstream).hostname or ""
    if host == "openrouter.ai" or host.endswith(".openrouter.ai"):
        images.append(OPENROUTER_IMAGES)
    if too_many_bytes is not None:
        sizes.append(int(too_many_bytes * BYTES_MARGIN))
    return Budget(min(sizes) if sizes else None, min(images) if images else None)


def count_images(value: Any) -> int:
    """Image blocks in a request body of any of the four shapes."""
    if isinstance(value, list):
        return sum(count_images(v) for v in value)
    if not isinstance(value, dict):
        return 0
    kind = value.get("type")
    own = 1 if (isinstance(kind, str) and kind in _IMAGE_TYPES) or _IMAGE_KEYS & value.keys() else 0
    return own + sum(count_images(v) for v in value.values() if isinstance(v, dict | list))
