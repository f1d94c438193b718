"""The public names stay what they are, whatever was imported first."""

from __future__ import annotations

import subprocess
import sys

import pytest

PUBLIC = [
    "load_font",
    "Geometry",
    "render",
    "read",
    "Page",
    "profile_for",
    "image_tokens",
    "Profile",
    "import_conversation",
    "import_conversations",
    "export_request",
    "compact",
    "run_ladder",
    "target_for",
    "Store",
    "Conversation",
    "Message",
]


@pytest.mark.parametrize(
    "first",
    [
        "snapshot.rendering.decode",
        "snapshot.rendering.page",
        "snapshot.rendering.glyphs",
        "snapshot.profiles",
        "snapshot.legibility.readers",
    ],
)
def test_importing_a_submodule_first_does_not_shadow_a_public_function(first: str) -> None:
    code = (
        f"import {first}\nimport snapshot\n"
        f"bad = [n for n in {PUBLIC!r} if type(getattr(snapshot, n)).__name__ == 'module']\n"
        "assert not bad, bad\n"
        "assert callable(snapshot.read) and callable(snapshot.render)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
