"""The ``snapshot`` command: a thin layer over the library.

Each subcommand lives in its own module under ``snapshot.cli`` and exposes
``register(subparsers)``, which adds its parser and sets ``func`` to a
function taking the parsed ``argparse.Namespace`` and returning an exit code.
Heavy imports happen inside those functions, so ``snapshot --help`` is fast.

There is one exit path (:func:`main`): an error a user can cause (a
:class:`SnapshotError`, or an ``OSError``, ``UnicodeError``, ``MemoryError`` or
``ValueError`` raised while reading their input) is printed as one line naming
the file and the problem, with control characters escaped and any provider key
redacted, and the exit status is 2. ``--debug`` (anywhere on the command line,
or ``SNAPSHOT_DEBUG=1``) also prints the traceback.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
import traceback
from collections.abc import Sequence

from snapshot.errors import SnapshotError

# One module per group of subcommands; add a line when a group lands.
COMMAND_MODULES: tuple[str, ...] = (
    "snapshot.cli.render",
    "snapshot.cli.session",
    "snapshot.cli.probe",
    "snapshot.cli.transcripts",
    "snapshot.cli.export",
    "snapshot.cli.cost",
    "snapshot.cli.report",
    "snapshot.cli.traffic",
    "snapshot.cli.legibility",
    "snapshot.cli.proxy",
    "snapshot.cli.facts",
    "snapshot.cli.store",
)


# What a user's bad input raises besides SnapshotError (a FIFO, a full disk,
# half an emoji, a file too big to hold, a number out of range).
USER_ERRORS: tuple[type[BaseException], ...] = (
    SnapshotError,
    OSError,
    UnicodeError,
    MemoryError,
    ValueError,
    RecursionError,
)

# Arguments that name the input a command works on, in the order they are tried
# when an error does not say which file it was about.
_INPUT_ARGS = ("conv", "path", "input", "file", "pages", "corpus", "profile", "out")


# What to do about the OSErrors bad input or a bad --out causes, by errno.
_OS_HINTS: dict[int, str] = {
    errno.EEXIST: "already exists and is not a folder; give another --out",
    errno.ENOTDIR: "part of this path is a file, not a folder",
    errno.EISDIR: "is a folder; give a file",
    errno.EACCES: "permission denied; pick a path you can read or write",
    errno.EROFS: "read-only file system; pick a path you can write to",
    errno.ENOSPC: "no space left on the device; free some space and run again",
    errno.ENAMETOOLONG: "file name too long",
}


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: usage goes to ``--help``, not to every mistake."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="snapshot",
        description="Draw conversation history as pixel sheets and measure what it saves.",
    )
    parser.add_argument(
        "--debug", action="store_true", help="show the traceback of an error (also anywhere later)"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def _subject(args: argparse.Namespace) -> str | None:
    for name in _INPUT_ARGS:
        value = getattr(args, name, None)
        if isinstance(value, str | os.PathLike) and str(value):
            return str(value)
        if isinstance(value, list) and value and isinstance(value[0], str | os.PathLike):
            return str(value[0])
    return None


def error_line(exc: BaseException, subject: str | None = None) -> str:
    """The one line a user sees for ``exc``: the file, the problem, what to do.

    Parameters
    ----------
    exc : BaseException
        One of :data:`USER_ERRORS`.
    subject : str, optional
        The input the command was working on, named when the error does not name a file.

    Returns
    -------
    str
        One line, control characters escaped, provider keys redacted.

    Examples
    --------
    >>> error_line(FileNotFoundError(2, "No such file or directory", "a.json"))
    'a.json: No such file or directory'
    >>> error_line(UnicodeEncodeError("utf-8", "\\ud83d", 0, 1, "surrogates not allowed"), "s.json")
    "s.json: text cannot be encoded: 'utf-8' codec can't encode character '\\\\ud83d' in position 0: surrogates not allowed"
    """
    from snapshot.cli.terminal import safe_line

    if isinstance(exc, SnapshotError):
        text = str(exc)
    elif isinstance(exc, OSError):
        name = exc.filename or subject
        problem = _OS_HINTS.get(exc.errno or 0) or exc.strerror or str(exc) or type(exc).__name__
        text = f"{name}: {problem}" if name else problem
        if exc.filename2:
            text += f" (and {exc.filename2})"
    elif isinstance(exc, MemoryError):
        text = f"{subject or 'the input'}: too large to hold in memory; give a smaller input"
    elif isinstance(exc, RecursionError):
        text = f"{subject or 'the input'}: nested too deeply to process"
    elif isinstance(exc, UnicodeError):
        text = f"{subject or 'the input'}: text cannot be encoded: {exc}"
    else:
        detail = str(exc) or type(exc).__name__
        text = f"{subject}: {detail}" if subject and subject not in detail else detail
    return _redacted(safe_line(" ".join(text.split())))


def _redacted(text: str) -> str:
    from snapshot.providers.keys import redact

    secrets = [v for k, v in os.environ.items() if k.endswith(("_API_KEY", "_TOKEN")) and v]
    return redact(text, secrets)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``snapshot`` command; returns the exit status (0 ok, 1 not met, 2 bad input)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    debug = "--debug" in argv[:cut] or os.environ.get("SNAPSHOT_DEBUG", "") not in ("", "0")
    argv = [a for i, a in enumerate(argv) if i >= cut or a != "--debug"]
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        late = getattr(args, "late_positional", None)
        if late and len(extra) == 1 and getattr(args, late) is None and extra[0][:1] != "-":
            setattr(args, late, extra.pop())  # e.g. checkpoint CONV --workspace W LABEL
        if extra:
            command = " ".join(
                str(n) for n in ("snapshot", args.command, getattr(args, "job", None)) if n
            )
            from snapshot.cli.terminal import safe_line

            given = _redacted(safe_line(" ".join(extra)))
            print(
                f"{command}: error: unrecognized arguments: {given} (see {command} --help)",
                file=sys.stderr,
            )
            return 2
        # The command line as given, for records that say how they were made (results.json).
        args.argv = argv
    except SystemExit as exc:  # --help (0) or a usage error (2), already printed
        return exc.code if isinstance(exc.code, int) else 2
    try:
        code: int = args.func(args)
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("snapshot: interrupted", file=sys.stderr)
        return 130
    except USER_ERRORS as exc:
        if debug:  # escaped and redacted like the line itself
            from snapshot.cli.terminal import safe_line

            print(_redacted(safe_line(traceback.format_exc(), keep="\n")), file=sys.stderr, end="")
        print(f"snapshot: error: {error_line(exc, _subject(args))}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
