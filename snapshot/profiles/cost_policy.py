"""Which policy ``snapshot proxy --mode cost`` uses for a model, and why: its evidence.

Cost mode draws on pages only what a model's readability evidence supports. The
evidence is what ``snapshot profiles --model M`` prints: the lab's committed verdict
on the model's default layout (:func:`snapshot.profiles.readability.default_choice`:
``model evidence``, ``readers`` or ``none``) and the family's measured model reads
(the profile's evidence rows, each with source and date):

- ``full`` (the system prompt's long text, the tool descriptions and older, closed
  history): the verdict rests on model evidence for the very layout the profile draws;
- ``safe`` (older, closed history only; live tool output, the system prompt and the
  tool descriptions stay text): the evidence is thin, OCR readers only (proxies for
  models), or measured model reads of the family while the verdict on this layout
  is still ``none``;
- ``pass`` (nothing imaged, the request goes as it came): no evidence at all, a
  model that reads no images, or one no table knows.

A user's canary records (``snapshot proxy --canary``) are judged by the proxy on
top of this: a layout they find readable gets ``full``, one they find unreadable
no more than ``safe`` (:class:`snapshot.proxy.costmode.CostMode`).

>>> from snapshot.profiles import profile_for
>>> cost_policy(profile_for("claude-fable-5", warn=False)).policy
'full'
>>> thin = cost_policy(profile_for("claude-opus-5", warn=False))
>>> thin.policy, thin.why[:5]
('safe', 'thin:')
>>> p = cost_policy(profile_for("some-unknown-model", fallback=True, warn=False))
>>> p.policy, p.why[:31]
('pass', 'no table knows this model: no r')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from snapshot.profiles.profile import Profile
from snapshot.profiles.readability import default_choice

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
    choice = default_choice(profile.canonical)
    size = "" if profile.font_size is None else f"@{profile.font_size}"
    drawn = f"{profile.font}{size} {profile.shade} gap {profile.col_gap}x{profile.row_gap}"
    rests_on = str(choice.get("summary") or choice.get("rests_on") or "no verdict")
    same = choice.get("layout") == drawn
    if same and choice.get("kind") == "model evidence":
        return CostPolicy("full", f"{drawn}: {rests_on}")
    if same and choice.get("kind") == "readers":
        return CostPolicy(
            "safe", f"thin: {drawn}: OCR readers only (proxies for models): {rests_on}"
        )
    measured = [e for e in profile.evidence if e.fact.label == "measured"]
    if measured:
        return CostPolicy(
            "safe",
            f"thin: {len(measured)} measured model read(s) of the family (first: "
            f"{measured[0].claim[:100]}), but the verdict on {drawn} is {rests_on}",
        )
    return CostPolicy("pass", f"no evidence for {drawn}: {rests_on}")
