"""One live request whose ``usage`` settles a disputed billing fact (``snapshot probe --battery usage``).

The model is shown one page the package would send (its profile's page, drawn by
the project's renderer) and a one-line prompt. ``usage.input_tokens`` minus the
prompt's own text tokens is the page's image bill; the range end whose prediction
lies within :data:`TOLERANCE` of it is the settled value, else the measured
multiplier itself. The record is saved beside the other probe records and read
by ``cost``, ``profiles`` and ``report`` from then on
(:func:`snapshot.billing.uncertain.load_settled`). A run against ``--base-url``
on the loopback interface is marked ``offline_stand_in`` and every output citing
it says so.

>>> settle(2823, {"1.2": 2823, "1.5": 3528})
'1.2'
>>> settle(3100, {"1.2": 2823, "1.5": 3528}) is None
True
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from snapshot.billing.uncertain import USAGE_KIND, range_for
from snapshot.errors import InputError, LiveError

#: The prompt sent with the page: as short as possible, so the image dominates the bill.
PROMPT = "Reply with the single word OK."
#: A prediction within this share (or 16 tokens, for chat framing) of the bill settles its end.
TOLERANCE = 0.02
_FRAMING_TOKENS = 16
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def settle(image_tokens: int, predicted: dict[str, int]) -> str | None:
    """The range end whose predicted image tokens match the measured ones, or None.

    >>> settle(3540, {"1.2": 2823, "1.5": 3528})
    '1.5'
    """
    best = min(predicted, key=lambda v: abs(predicted[v] - image_tokens))
    slack = max(_FRAMING_TOKENS, TOLERANCE * predicted[best])
    return best if abs(predicted[best] - image_tokens) <= slack else None


@dataclass(frozen=True)
class UsageRecord:
    """What one usage probe sent and what the provider billed (no key: redacted on save)."""

    model: str
    canonical: str
    provider: str
    api: str
    endpoint: str
    offline_stand_in: bool
    timestamp: str
    range: str
    disputed_field: str
    page: tuple[int, int]
    page_sha256: str
    patches: int | None
    prompt: str
    prompt_text_tokens: int
    input_tokens: int
    output_tokens: int | None
    image_tokens: int
    predicted: dict[str, int]
    value: str
    settles: bool
    kind: str = USAGE_KIND
    notes: list[str] = field(default_factory=list)

    @property
    def date(self) -> str:
        return self.timestamp[:10]

    def to_json(self, secrets: tuple[str, ...] = ()) -> str:
        from snapshot.providers.keys import redact

        doc = {**asdict(self), "date": self.date, "page": list(self.page)}
        return redact(json.dumps(doc, indent=1, ensure_ascii=False), secrets)


def _stand_in(base_url: str | None) -> bool:
    return base_url is not None and (urlparse(base_url).hostname or "") in _LOOPBACK


def run_usage_probe(
    model: str,
    *,
    api: str | None = None,
    api_key: str | None = None,
    base_url: str | None = None,
    timeout: float = 180.0,
) -> UsageRecord:
    """Send ``model`` one page and the prompt; return the usage and what it settles."""
    from snapshot.legibility.probes import build_page
    from snapshot.profiles import count_text_tokens, profile_for
    from snapshot.profiles.probe_target import probe_target_for
    from snapshot.providers import live

    profile = profile_for(model)
    rng = range_for(profile.canonical)
    ends = profile.range_ends()
    if rng is None or not ends:
        raise InputError(
            f"{model}: no disputed billing fact to settle (see `snapshot facts`); "
            "the usage battery measures models whose image rule is a range"
        )
    target = probe_target_for(model, api=api)
    page = build_page(geometry=target.geometry())
    key = api_key or live.key_from_env(target.provider, model=model)
    reply = live.ask(
        target, page.png, PROMPT, api_key=key, base_url=base_url, timeout=timeout, max_tokens=16
    )
    if "input_tokens" not in reply.usage:
        raise LiveError(f"{model}: the reply carried no usage.input_tokens to measure")
    w, h = page.size
    prompt_tokens = count_text_tokens(profile, PROMPT).tokens
    image = reply.usage["input_tokens"] - prompt_tokens
    predicted = {value: prof.image_tokens(w, h) for value, _, prof in ends}
    settled = settle(image, predicted)
    patches_of = getattr(profile.scheme, "patches", None)
    patches = int(patches_of(w, h)) if patches_of is not None else None
    notes = [
        f"image tokens = usage.input_tokens {reply.usage['input_tokens']} - the prompt's "
        f"{prompt_tokens} text tokens (chat framing, a few tokens, is inside the tolerance)"
    ]
    if settled is None:
        if not patches:
            raise LiveError(f"{model}: the bill {image} matches no end of {rng.name}")
        value = f"{image / patches:.2f}"
        notes.append(f"matches no end of the range: the measured {rng.field} {value} is kept")
    else:
        value = settled
    stand_in = _stand_in(base_url)
    if stand_in:
        notes.append(f"OFFLINE STAND-IN at {base_url}: not the provider's bill")
    return UsageRecord(
        model=model,
        canonical=profile.canonical,
        provider=target.provider,
        api=target.api,
        endpoint=base_url or f"the {target.provider} API",
        offline_stand_in=stand_in,
        timestamp=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        range=rng.name,
        disputed_field=rng.field,
        page=(w, h),
        page_sha256=page.sha256,
        patches=patches,
        prompt=PROMPT,
        prompt_text_tokens=prompt_tokens,
        input_tokens=reply.usage["input_tokens"],
        output_tokens=reply.usage.get("output_tokens"),
        image_tokens=image,
        predicted=predicted,
        value=value,
        settles=settled is not None,
        notes=notes,
    )


def probe_usage_and_save(model: str, out: str | Path, **kw: Any) -> Any:
    """Run :func:`run_usage_probe` and save the record in ``out`` (a new dated file)."""
    from snapshot.legibility import records
    from snapshot.providers.keys import env_secrets

    record = run_usage_probe(model, **kw)
    secrets = (*((kw["api_key"],) if kw.get("api_key") else ()), *env_secrets())
    path = records.save(record, out, secrets)  # type: ignore[arg-type]
    return records.saved_record(record, path, secrets)


__all__ = [
    "PROMPT",
    "TOLERANCE",
    "UsageRecord",
    "probe_usage_and_save",
    "run_usage_probe",
    "settle",
]
