"""API keys: where they are read from, and how they are kept out of every output.

A key is handed to a provider's SDK and nowhere else. Every string that comes back
from a provider (a reply, an error message, an SDK log record) passes through
:func:`redact` before it reaches a record, a report, a log or the terminal, since a
server may echo the key it was sent. One module for every live call in the package:
the legibility probes, the usage probes and the ladder's live summary.

>>> redact("401: key sk-ant-abcdefghijklmnopqrstu is invalid")
'401: key [REDACTED] is invalid'
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from snapshot.errors import LiveError, SnapshotError

T = TypeVar("T")

#: Environment variables holding each provider's key, in order of preference.
KEY_ENV: Mapping[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_API_KEY",),
    "openai": ("OPENAI_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
}

REDACTED = "[REDACTED]"

# Shapes of provider keys, redacted even when the exact secret is not known to
# the caller (a key from another variable, a key echoed back partly masked in a
# provider's error message). Anthropic keys start "sk-ant-", OpenAI keys "sk-"
# or "sk-proj-", Google API keys "AIza" followed by 35 characters.
_KEY_SHAPES = re.compile(
    r"sk-ant-[A-Za-z0-9_\-*]{8,}"
    r"|sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-*]{16,}"
    r"|AIza[0-9A-Za-z_\-]{30,}"
    r"|(?i:bearer)\s+[A-Za-z0-9_\-.*]{8,}"
)

#: Secrets shorter than this are not substituted by value: replacing every "a" in a
#: record because a test used the key "a" would destroy the record without protecting
#: anything.
MIN_SECRET_CHARS = 6

# Loggers whose records may carry request details; see redacting_logs.
_SDK_LOGGERS = ("anthropic", "openai", "google_genai", "google.genai", "httpx", "httpcore")


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every known secret and every key-shaped string replaced.

    >>> redact("token my-custom-secret-value", ["my-custom-secret-value"])
    'token [REDACTED]'
    """
    for secret in sorted(
        {s for s in secrets if s and len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True
    ):
        text = text.replace(secret, REDACTED)
    return _KEY_SHAPES.sub(REDACTED, text)


def redact_value(value: Any, secrets: Iterable[str] = ()) -> Any:
    """A JSON-like value with :func:`redact` applied to every string in it.

    >>> redact_value({"reply": ["echo s3cret-key"]}, ["s3cret-key"])
    {'reply': ['echo [REDACTED]']}
    """
    secrets = tuple(secrets)
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {redact(str(k), secrets): redact_value(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v, secrets) for v in value]
    return value


def env_secrets(env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Every provider key present in the environment, for redaction of outputs.

    >>> env_secrets({"ANTHROPIC_API_KEY": "a-key-1", "GOOGLE_API_KEY": " g-key-2 ", "HOME": "/"})
    ('a-key-1', 'g-key-2')
    """
    env = os.environ if env is None else env
    names = [n for names in KEY_ENV.values() for n in names]
    return tuple(v for n in names if (v := env.get(n, "").strip()))


class _Redactor(logging.Filter):
    def __init__(self, secrets: tuple[str, ...]) -> None:
        super().__init__()
        self.secrets = secrets

    def filter(self, record: logging.LogRecord) -> bool:
        # Render the message now, so arguments cannot reintroduce the secret.
        try:
            message = record.getMessage()
        except Exception:
            message = str(record.msg)
        record.msg = redact(message, self.secrets)
        record.args = None
        return True


@contextlib.contextmanager
def redacting_logs(secrets: tuple[str, ...]) -> Iterator[None]:
    """While it runs, every SDK log record is redacted of ``secrets`` and key shapes.

    >>> import io, logging
    >>> sdk_log, seen = logging.getLogger("httpx"), io.StringIO()
    >>> handler = logging.StreamHandler(seen)
    >>> sdk_log.addHandler(handler)
    >>> with redacting_logs(("s3cret-key",)):
    ...     sdk_log.warning("sending %s", "s3cret-key")
    >>> sdk_log.removeHandler(handler)
    >>> seen.getvalue().strip()
    'sending [REDACTED]'
    """
    # A filter on a logger sees only records logged *to that logger*, not those
    # propagated from its children, so it goes on every SDK logger that exists
    # (the SDK is imported by now, so its module loggers do).
    flt = _Redactor(secrets)
    names = [
        n
        for n in list(logging.Logger.manager.loggerDict)
        if any(n == p or n.startswith(p + ".") for p in _SDK_LOGGERS)
    ]
    loggers = [logging.getLogger(n) for n in names]
    for lg in loggers:
        lg.addFilter(flt)
    try:
        yield
    finally:
        for lg in loggers:
            lg.removeFilter(flt)


def guarded_call(what: str, call: Callable[[], T], secrets: Sequence[str] = ()) -> T:
    """Run one SDK call so that no key can leave through its errors or its logs.

    Any exception the SDK raises (HTTP 401, a dead endpoint, validation) becomes
    one-line :class:`~snapshot.errors.LiveError` naming ``what`` with every key in
    ``secrets`` and in the environment redacted; the reply itself is the caller's to
    pass through :func:`redact_reply`.

    Parameters
    ----------
    what : str
        Names the call in the error (``"claude-sonnet-4-5: live summary"``).
    call : callable
        The SDK call, taking no arguments.
    secrets : sequence of str
        Keys to redact besides those in the environment.

    Returns
    -------
    object
        What ``call`` returned.

    Raises
    ------
    LiveError

    Examples
    --------
    >>> def fails() -> None:
    ...     raise RuntimeError("401: key sk-ant-abcdefghijklmnopqrstu is invalid")
    >>> try:
    ...     guarded_call("m: live summary", fails)
    ... except LiveError as exc:
    ...     print(exc)
    m: live summary failed (RuntimeError): 401: key [REDACTED] is invalid
    """
    all_secrets = (*secrets, *env_secrets())
    try:
        with redacting_logs(all_secrets):
            return call()
    except SnapshotError:
        raise
    except Exception as exc:
        detail = " ".join(str(exc).split())[:400]
        raise LiveError(
            redact(f"{what} failed ({type(exc).__name__}): {detail}", all_secrets)
        ) from None


def redact_reply(text: str, secrets: Sequence[str] = ()) -> str:
    """A model's reply with every key redacted: a server may echo the key it was sent.

    >>> redact_reply("the summary; by the way your key is sk-proj-abcdefghijklmnopqrst")
    'the summary; by the way your key is [REDACTED]'
    """
    return redact(text, (*secrets, *env_secrets()))
