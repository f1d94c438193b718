"""The project's error types.

Every error a user can cause (bad input, an unknown model or font, a refused
save) is a :class:`SnapshotError`. The command line prints its message on one
line and exits with status 2; a traceback means a bug in snapshot itself.
"""

from __future__ import annotations


class SnapshotError(Exception):
    """Base class: a problem with the input or the request, explained in words.

    Catch it to handle every error a user can cause, whatever its kind:

    >>> from snapshot.rendering.glyphs import load_font
    >>> try:
    ...     load_font("no-such-font")
    ... except SnapshotError as exc:
    ...     print(type(exc).__name__)
    UnknownFontError
    """


class InputError(SnapshotError, ValueError):
    """Input that cannot be used as given (malformed JSON, not an image, ...)."""


class UnknownFontError(SnapshotError, LookupError):
    """A font name that is neither bundled, installed, nor a readable file."""


class UnknownModelError(SnapshotError, LookupError):
    """A model id that no provider table resolves."""


class ImageError(InputError):
    """A file that is not a usable image: corrupt, truncated, wrong mode, too large."""


class TranscriptError(InputError):
    """A transcript that cannot be imported, saved or exported as asked."""


class BudgetError(SnapshotError):
    """A request that cannot be fitted to a token, byte or image budget."""


class LiveError(SnapshotError):
    """A live call that could not be made or did not succeed (key, SDK, provider)."""
