"""Billing: what each provider sees and bills for an image, and what text costs instead.

- :mod:`snapshot.billing.schemes`: pure functions per scheme, ``seen(w, h)`` and ``tokens(w, h)``.
- :mod:`snapshot.billing.providers`: the data tables (models, families, routes, limits,
  reader evidence), every row with its source, label and date.
- :mod:`snapshot.billing.prices`: dated dollars per million tokens.
- :mod:`snapshot.billing.text_tokens`: the text-side baseline and the break-even density.

Model ids are resolved to a profile by :func:`snapshot.profiles.profile_for`.

>>> from snapshot.billing.schemes import AnthropicPatches
>>> AnthropicPatches().tokens(1568, 728)
1456
"""
