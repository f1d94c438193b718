"""pxpipe 0.13.2, the peer the cost bench measures against: built outside the checkout, run as is.

Its source is ``../shared/peers/pxpipe-0.13.2`` (MIT; ``PEER.md``); it is not on the npm
registry. :func:`build` follows PEER.md: copy the source to
``${XDG_CACHE_HOME:-~/.cache}/snapshot/peers/pxpipe-0.13.2`` (``SNAPSHOT_PXPIPE`` overrides),
``npm install --no-save`` its runtime dependency and bundler from the registry (npm also
installs the devDependencies its package.json lists, ~400 MB, into that cache), then ``node
build-node.mjs``. Nothing of it enters the repository; the bench only runs ``node bin/cli.js``.

Run: ``python bench/pxpipe_peer.py`` (builds when needed, prints where).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

VERSION = "0.13.2"
_SOURCE_NAME = f"pxpipe-{VERSION}"
_DEPS = ("gpt-tokenizer@^3.4.0", "esbuild@^0.28.1")


def shared_source() -> Path:
    """The peer's source in the shared folder (``$SNAPSHOT_SHARED`` or ``../shared``)."""
    shared = os.environ.get("SNAPSHOT_SHARED")
    base = Path(shared) if shared else Path(__file__).resolve().parents[2] / "shared"
    return base / "peers" / _SOURCE_NAME


def folder() -> Path:
    override = os.environ.get("SNAPSHOT_PXPIPE")
    if override:
        return Path(override)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "snapshot" / "peers" / _SOURCE_NAME


def entry() -> Path | None:
    """``bin/cli.js`` of a built copy, or None."""
    where = folder()
    built = (where / "dist" / "node.js").is_file() and (where / "bin" / "cli.js").is_file()
    return where / "bin" / "cli.js" if built else None


def why_missing() -> str:
    """One line saying how to get the peer (for a skipped arm)."""
    if not shared_source().is_dir():
        return f"pxpipe {VERSION} not found: {shared_source()} is missing (set SNAPSHOT_SHARED)"
    return f"pxpipe {VERSION} is not built: run python bench/pxpipe_peer.py"


def build() -> Path:
    """Build the peer when it is not built yet; ``bin/cli.js``."""
    found = entry()
    if found is not None:
        return found
    source, where = shared_source(), folder()
    if not source.is_dir():
        raise RuntimeError(why_missing())
    where.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, where, dirs_exist_ok=True)
    npm = ["npm", "install", "--no-save", "--no-audit", "--no-fund", *_DEPS]
    subprocess.run(npm, cwd=where, check=True)
    subprocess.run(["node", "build-node.mjs"], cwd=where, check=True)
    found = entry()
    if found is None:
        raise RuntimeError(f"pxpipe {VERSION}: the build left no dist/node.js in {where}")
    return found


if __name__ == "__main__":
    try:
        print(build())
    except (RuntimeError, subprocess.CalledProcessError, OSError) as exc:
        print(f"pxpipe_peer: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
