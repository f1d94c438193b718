"""How readability is judged, below every layer that judges it: scoring a reading of a
page against its text (:mod:`snapshot.readability.scoring`), the bar a layout must reach
(:mod:`snapshot.readability.goal`), the transcription prompt a model reads a page with
(:mod:`snapshot.readability.transcribe`).

The lab (:mod:`snapshot.legibility`), the benchmark report and the proxy's canary all
score with these; nothing here imports them::

    >>> from snapshot.readability.scoring import score_page
    >>> score_page("id 9f8e7d6c2", "id 9f8e7d6c2").hard_tokens_exact
    1
"""
