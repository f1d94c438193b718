"""snapshot: old conversation history as dense pixel sheets a vision model can read.

The public surface is small and loaded lazily, so ``import snapshot`` is cheap::

    >>> import snapshot
    >>> font = snapshot.load_font("snap5x8")
    >>> pages = snapshot.render("hello, world", snapshot.Geometry(font, cols=80, rows=10))
    >>> snapshot.read(pages[0].pixels, font).splitlines()[-1]
    'hello, world'

``__version__`` is the installed distribution's version::

    >>> from importlib.metadata import version
    >>> snapshot.__version__ == version("snapshot")
    True
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "SnapshotError": "snapshot.errors",
    "Font": "snapshot.rendering.glyphs",
    "load_font": "snapshot.rendering.glyphs",
    "Geometry": "snapshot.rendering.geometry",
    "Page": "snapshot.rendering.page",
    "render": "snapshot.rendering.page",
    "iter_pages": "snapshot.rendering.page",
    "read": "snapshot.rendering.decode",
    "Profile": "snapshot.profiles",
    "profile_for": "snapshot.profiles",
    "image_tokens": "snapshot.profiles",
    # The researcher's surface (snapshot/api.py): import, compact, export, store.
    "import_conversation": "snapshot.api",
    "import_conversations": "snapshot.api",
    "export_request": "snapshot.api",
    "compact": "snapshot.api",
    "run_ladder": "snapshot.api",
    "target_for": "snapshot.api",
    "Store": "snapshot.api",
    "Conversation": "snapshot.api",
    "Message": "snapshot.api",
    "CompactOptions": "snapshot.api",
    "CompactOutcome": "snapshot.api",
    # The live proxy's compaction for harness authors (snapshot/proxy/live.py).
    "LiveSession": "snapshot.proxy.live",
    "LadderResult": "snapshot.api",
}

__all__ = [*sorted(_EXPORTS), "__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'snapshot' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
