"""Argument types that refuse nonsense numbers at the parser, with the range in the message.

``--limit -1`` or ``--budget-ratio nan`` used to be taken as given and fail
(or silently do something odd) deep inside a command; these types make
argparse reject them in one line naming the flag's allowed range.

>>> at_least(1)("3")
3
>>> at_least(0)("-1")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: -1 is less than 0
>>> finite_float(0.0, 1.0)("nan")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: nan is not a finite number
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def at_least(lowest: int) -> Callable[[str], int]:
    """An argparse ``type`` for an integer no smaller than ``lowest``.

    Parameters
    ----------
    lowest : int
        The smallest value accepted.

    Returns
    -------
    callable
        Parses the text; raises :class:`argparse.ArgumentTypeError` naming the limit.
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < lowest:
            raise argparse.ArgumentTypeError(f"{value} is less than {lowest}")
        return value

    parse.__name__ = f"integer >= {lowest}"
    return parse


def finite_float(lowest: float = -math.inf, highest: float = math.inf) -> Callable[[str], float]:
    """An argparse ``type`` for a finite number in ``[lowest, highest]``.

    Parameters
    ----------
    lowest, highest : float
        The accepted range, both ends included.

    Returns
    -------
    callable
        Parses the text; raises :class:`argparse.ArgumentTypeError` for nan, inf or out of range.
    """

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text} is not a finite number")
        if not lowest <= value <= highest:
            raise argparse.ArgumentTypeError(f"{value:g} is outside {lowest:g}..{highest:g}")
        return value

    parse.__name__ = "number"
    return parse


def int_between(lowest: int, highest: int) -> Callable[[str], int]:
    """An argparse ``type`` for an integer in ``[lowest, highest]``, both ends included.

    Parameters
    ----------
    lowest, highest : int
        The accepted range.

    Returns
    -------
    callable
        Parses the text; raises :class:`argparse.ArgumentTypeError` naming the range.

    Examples
    --------
    >>> int_between(3, 10_000)("40")
    40
    >>> int_between(3, 10_000)("20000")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be between 3 and 10,000, got 20,000
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if not lowest <= value <= highest:
            raise argparse.ArgumentTypeError(
                f"must be between {lowest} and {highest:,}, got {value:,}"
            )
        return value

    parse.__name__ = f"integer in {lowest}..{highest}"
    return parse


def page_size_or_own(text: str) -> tuple[int, int] | str:
    """An argparse ``type`` for ``WxH`` in pixels, or the word ``own``.

    >>> page_size_or_own("784x728"), page_size_or_own("own")
    ((784, 728), 'own')
    >>> page_size_or_own("big")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 'big': give WxH in px, e.g. 784x728, or 'own'
    """
    if text == "own":
        return text
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give WxH in px, e.g. 784x728, or 'own'"
        ) from None
    if w < 1 or h < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: width and height must be at least 1 px")
    return (w, h)


def iso_day(text: str) -> str:
    """An argparse ``type`` for a calendar day written ``YYYY-MM-DD``.

    >>> iso_day("2027-01-02")
    '2027-01-02'
    >>> iso_day("2027-02-30")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '2027-02-30': give a real day as YYYY-MM-DD, e.g. 2027-01-02
    """
    import datetime as dt

    try:
        if len(text) != 10:
            raise ValueError(text)
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give a real day as YYYY-MM-DD, e.g. 2027-01-02"
        ) from None


#: ``--tier`` choices (the same as :data:`snapshot.billing.prices.TIERS`; the CLI imports
#: no library module at start-up).
PRICE_TIERS = ("standard", "batch", "flex", "priority")


def pricing_arguments(p: argparse.ArgumentParser, *, date_help: str) -> None:
    """Add ``--tier`` and ``--date``: the price tier and the day a command prices at.

    ``snapshot cost`` and ``snapshot report`` share them (one spelling, one check).

    >>> p = argparse.ArgumentParser()
    >>> pricing_arguments(p, date_help="the day")
    >>> p.parse_args(["--tier", "batch", "--date", "2027-01-02"])
    Namespace(tier='batch', date='2027-01-02')
    >>> p.parse_args([]).tier
    'standard'
    """
    p.add_argument(
        "--tier",
        choices=PRICE_TIERS,
        default="standard",
        help="price tier where the provider has it (batch -50%%; OpenAI flex/priority, "
        "Gemini priority); default standard",
    )
    p.add_argument("--date", type=iso_day, default=None, metavar="YYYY-MM-DD", help=date_help)


def utc_clock(text: str) -> float:
    """An argparse ``type`` for ``HH:MM``, a UTC time today, as epoch seconds.

    >>> import time
    >>> utc_clock("00:00") == (time.time() // 86400) * 86400
    True
    >>> utc_clock("25:00")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '25:00': give a UTC time as HH:MM, e.g. 07:50
    """
    import time

    try:
        hh, mm = (int(v) for v in text.split(":"))
    except ValueError:
        hh = mm = -1
    if not (0 <= hh < 24 and 0 <= mm < 60):
        raise argparse.ArgumentTypeError(f"{text!r}: give a UTC time as HH:MM, e.g. 07:50")
    return (time.time() // 86400) * 86400 + hh * 3600 + mm * 60
