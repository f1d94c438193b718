"""``snapshot proxy``: compaction in front of a live agent, one concept per module.

- :mod:`~snapshot.proxy.shapes`: the four API shapes, chosen by path;
- :mod:`~snapshot.proxy.identity`: which conversation and agent a request is;
- :mod:`~snapshot.proxy.bodies`: body ↔ conversation, splicing only the compacted span;
- :mod:`~snapshot.proxy.fidelity`: the rule the splice keeps (``outside_span_diff``);
- :mod:`~snapshot.proxy.planner`: as it came, or compacted (threshold, passes, recovery);
- :mod:`~snapshot.proxy.costmode`: ``--mode cost``, pages on every request where the
  cache-counted bill says they pay (:mod:`~snapshot.proxy.prefix_pages`: the system
  prompt and tool descriptions drawn; :mod:`~snapshot.proxy.segments`: a body as the
  provider's cache reads it);
- :mod:`~snapshot.proxy.counterfactual`: each request as sent and as the client's text
  would have cost, offline, with the cache-prefix share;
- :mod:`~snapshot.proxy.recovery`: the providers' overflow errors, learned limits;
- :mod:`~snapshot.proxy.budgets`: the request size and image count a provider enforces;
- :mod:`~snapshot.proxy.summarizer`: ``--summarizer auto|MODEL``, requests that fit the limit;
- :mod:`~snapshot.proxy.reply`: usage and the assistant turn read from a (streamed) reply;
- :mod:`~snapshot.proxy.turns`: the turn stored at its boundary;
- :mod:`~snapshot.proxy.ledger`: one JSON line per request, savings measured live;
- :mod:`~snapshot.proxy.canary`: ``--canary``, a band of a page just sent, transcribed by the model;
- :mod:`~snapshot.proxy.evidence`: those records judged (Wilson bounds, the densest layout read);
- :mod:`~snapshot.proxy.page`: ``GET /``, the live page per conversation, and its pass-through switch;
- :mod:`~snapshot.proxy.live`: the same code for harness authors (:class:`LiveSession`);
- :mod:`~snapshot.proxy.upstream`, :mod:`~snapshot.proxy.errors`, :mod:`~snapshot.proxy.app`.
"""
