"""Which policy ``snapshot proxy --mode cost`` uses for a model, and why: its evidence.

Cost mode draws on pages only what a model's readability evidence supports:

- ``full`` (the system prompt's long text, the tool descriptions and older, closed
  history): the profile's family has measured model reads on record and no row
  of its evidence is ``uncertain`` (a default borrowed from a sibling, an
  undocumented resample);
- ``safe`` (older, closed history only; live tool output, the system prompt and
  the tool descriptions stay text): the evidence is thin, measured reads exist
  but some row is ``uncertain``;
- ``pass`` (nothing imaged, the request goes as it came): no evidence at all, a
  model that reads no images, or one no table knows.

The evidence is the profile's own (``snapshot profiles --model M`` lists it with
source and date); a user's canary records (``snapshot proxy --canary``) are
judged by the proxy on top of this: a layout they find readable gets ``full``,
one they find unreadable no more than ``safe`` (:class:`snapshot.proxy.costmode.CostMode`).

>>> from snapshot.profiles import profile_for
>>> cost_policy(profile_for("claude-fable-5", warn=False)).policy
'full'
>>> cost_policy(profile_for("gemini-3.5-flash", warn=False)).policy
'safe'
>>> p = cost_policy(profile_for("some-unknown-model", fallback=True, warn=False))
>>> p.policy, p.why[:31]
('pass', 'no table knows this model: no r')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from snapshot.profiles.profile import Profile

__all__ = ["POLICIES", "CostPolicy", "Policy", "cost_policy"]

Policy = Literal["full", "safe", "pass"]
#: The policies ``--policy`` takes (``pass`` is never asked for: it is what no evidence gets).
POLICIES = ("safe", "full")


@dataclass(frozen=True)
class CostPolicy:
    """The default policy for one model and the evidence it rests on (one line)."""

    policy: Policy
    why: str

    def record(self) -> dict[str, str]:
        return {"policy": self.policy, "why": self.why}


def cost_policy(profile: Profile) -> CostPolicy:
    """The policy ``--mode cost`` uses for ``profile`` without ``--policy`` (see the module)."""
    if not profile.vision:
        return CostPolicy("pass", "the model reads no images: its requests go as they came")
    if profile.fallback or profile.resolved_by == "fallback":
        return CostPolicy("pass", "no table knows this model: no readability evidence")
    if profile.resolved_by == "override":
        return CostPolicy("pass", "a profile file set its page: no model read of that layout")
    measured = [e for e in profile.evidence if e.fact.label == "measured"]
    if not measured:
        return CostPolicy(
            "pass", f"no measured model read on record for its family ({profile.family})"
        )
    doubt = [e for e in profile.evidence if e.fact.label == "uncertain"]
    if doubt:
        return CostPolicy(
            "safe",
            f"thin: {len(measured)} measured read(s) of the family, but {doubt[0].claim[:120]}",
        )
    return CostPolicy(
        "full",
        f"{len(measured)} measured model read(s) of the family, first: {measured[0].claim[:120]}",
    )
