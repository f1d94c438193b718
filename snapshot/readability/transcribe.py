"""Asking a model to transcribe a page: the prompt, and its reply as the page's rows
(the live probes' and the proxy canary's shared wording)."""

from __future__ import annotations

__all__ = ["TRANSCRIBE_PROMPT", "reply_rows"]

TRANSCRIBE_PROMPT = (
    "Transcribe all the text in this image exactly as written, character for character, "
    "top to bottom: one output line for each line of text in the image, an empty output "
    "line for an empty one. Output only the transcription, with no commentary or code fences."
)


def reply_rows(text: str, rows: int) -> list[str]:
    """A transcription reply as the page's text rows, top first.

    Code fences are dropped, and so is a page header the model transcribed as
    well (a line that parses as one, or, when the reply has more lines than the
    page has rows, a first line starting ``page``). Lines after the last row
    (a closing remark) are ignored by position.

    >>> reply_rows("page 1/1 lines snap8x16 40x3 pad 2 gap 0x0 cell 8x16\\nab\\ncd\\nDone.", 2)
    ['ab', 'cd', 'Done.']
    >>> reply_rows("```\\nab\\n```", 2)
    ['ab']
    """
    from snapshot.rendering.text import parse_header

    lines = [ln for ln in text.split("\n") if not ln.startswith("```")]
    while lines and parse_header(lines[0].strip()) is not None:
        lines = lines[1:]
    if len(lines) > rows and lines[0].lstrip().lower().startswith("page"):
        lines = lines[1:]  # a header too garbled to parse
    return lines
