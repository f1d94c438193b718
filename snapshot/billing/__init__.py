"""Billing: what each provider sees and bills for an image, what text costs, and in dollars.

- :mod:`snapshot.billing.schemes`: pure functions per scheme, ``seen(w, h)`` and ``tokens(w, h)``.
- :mod:`snapshot.billing.rows`: the row types of the provider tables (with lifecycle).
- :mod:`snapshot.billing.providers`: the tables (models, routes, limits, prices, text
  counters), every row with its source, label and date; checked at import. The reader
  evidence behind each family's font and page is profile data
  (:mod:`snapshot.profiles.families`).
- :mod:`snapshot.billing.prices`: dollars from the pinned ``genai-prices`` database, by the
  id as given, with cache and long-context rates.
- :mod:`snapshot.billing.text_tokens`: the one text counter (exact / reconstruction /
  estimate) and the break-even density.
- :mod:`snapshot.billing.refusals`: requests a provider refuses rather than resizes.

Model ids are resolved to a profile by :func:`snapshot.profiles.profile_for`.

>>> from snapshot.billing.schemes import AnthropicPatches
>>> AnthropicPatches().tokens(1568, 728)
1456
"""
