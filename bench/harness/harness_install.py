"""Install the three agent CLIs, pinned, from the npm registry into a cache outside the checkout.

Each goes into its own folder, ``${XDG_CACHE_HOME:-~/.cache}/snapshot/harness/<pkg>@<ver>``
(``SNAPSHOT_HARNESS_CACHE`` overrides the root), with ``npm install --no-audit --no-fund
--save-exact``. Idempotent: a folder whose ``package.json`` already names the version and whose
binary exists is left alone. Before installing, ``npm view PKG@VER version`` checks that the pin
exists; if it does not, the newest published version is used and the run says so.

Run: ``python bench/harness/harness_install.py`` (prints one JSON line per CLI: package, pinned,
installed, bin). ``--check`` only reports what is installed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

#: The pins of issue 38 item 8 (the versions harnesses-2026-12.md was observed with).
PINS: dict[str, tuple[str, str]] = {
    "claude": ("@anthropic-ai/claude-code", "2.1.332"),
    "codex": ("@openai/codex", "0.171.0"),
    "gemini": ("@google/gemini-cli", "0.61.0"),
}


@dataclass(frozen=True)
class Installed:
    cli: str
    package: str
    pinned: str
    version: str  # what is installed (the pin, or the newest if the pin is missing)
    bin: str
    note: str = ""


def cache_root() -> Path:
    """Where the CLIs live: $SNAPSHOT_HARNESS_CACHE, else $XDG_CACHE_HOME/snapshot/harness."""
    override = os.environ.get("SNAPSHOT_HARNESS_CACHE")
    if override:
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "snapshot" / "harness"


def folder(package: str, version: str) -> Path:
    return cache_root() / f"{package.replace('/', '__')}@{version}"


def binary(cli: str, package: str, version: str) -> Path:
    return folder(package, version) / "node_modules" / ".bin" / cli


def installed(cli: str) -> Installed | None:
    """The installed CLI (pinned version first, else any cached version), or None."""
    package, pinned = PINS[cli]
    candidates = [folder(package, pinned)]
    root = cache_root()
    if root.is_dir():
        prefix = f"{package.replace('/', '__')}@"
        candidates += sorted(p for p in root.iterdir() if p.name.startswith(prefix))
    for where in candidates:
        version = where.name.rsplit("@", 1)[1]
        exe = where / "node_modules" / ".bin" / cli
        if exe.exists() and _installed_version(where, package) == version:
            note = "" if version == pinned else f"pinned {pinned} missing from the registry"
            return Installed(cli, package, pinned, version, str(exe), note)
    return None


def _installed_version(where: Path, package: str) -> str | None:
    manifest = where / "node_modules" / package / "package.json"
    try:
        return str(json.loads(manifest.read_text(encoding="utf-8"))["version"])
    except (OSError, ValueError, KeyError):
        return None


def _npm_view(spec: str) -> str | None:
    done = subprocess.run(
        ["npm", "view", spec, "version"], capture_output=True, text=True, timeout=120, check=False
    )
    lines = done.stdout.strip().splitlines()
    return lines[-1].strip().strip("'") if done.returncode == 0 and lines else None


def install(cli: str) -> Installed:
    """Install one CLI (idempotent); the pin if the registry has it, else the newest."""
    package, pinned = PINS[cli]
    if (have := installed(cli)) is not None and have.version == pinned:
        return have
    version, note = pinned, ""
    if _npm_view(f"{package}@{pinned}") != pinned:
        newest = _npm_view(package)
        if newest is None:
            raise SystemExit(f"install: npm view {package} failed (no registry?)")
        version, note = newest, f"pinned {pinned} missing from the registry; using {newest}"
        print(f"install: {note}", file=sys.stderr)
    where = folder(package, version)
    where.mkdir(parents=True, exist_ok=True)
    if not (where / "package.json").exists():
        (where / "package.json").write_text('{"private": true}\n', encoding="utf-8")
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--save-exact", f"{package}@{version}"],
        cwd=where,
        check=True,
        timeout=1800,
    )
    exe = binary(cli, package, version)
    if not exe.exists():
        raise SystemExit(f"install: {package}@{version} installed but {exe} is missing")
    return Installed(cli, package, pinned, version, str(exe), note)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only report what is installed")
    parser.add_argument("clis", nargs="*", help=f"which of {', '.join(PINS)} (default: all)")
    args = parser.parse_args(argv)
    for cli in args.clis or list(PINS):
        if cli not in PINS:
            parser.error(f"unknown CLI {cli!r}; one of {', '.join(PINS)}")
        got = installed(cli) if args.check else install(cli)
        print(json.dumps(asdict(got) if got else {"cli": cli, "installed": False}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
