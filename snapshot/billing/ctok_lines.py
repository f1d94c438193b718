"""Claude text tokens by ``ctok``, counted piece by piece: the same count, each piece once.

``ctok.token_count`` normalises a whole text into its marked stream, tiles the
stream with the fewest vocabulary pieces, and renders every token as a string
the count then only takes the length of. The report counts hundreds of message
texts that share most of their lines and words (a message, its elided form, the
same message in another rung), so this module cuts each text where ctok's own
rules provably cut it and counts each distinct piece once per process:

- **A newline after a non-space** opens a whitespace run of its own after a run
  that is not whitespace, so every rule of ``ctok.normalize.stream_norm`` that
  looks at a neighbour run sees the same neighbour class either way (a ``\\n``
  writes no marker and makes none beside it; the seam rule needs a literal
  space). From that newline on the stream is what the piece alone gives, after
  the frame's ``⟨bow⟩`` a stream starting at a message edge writes first.
- **A lone space between two ASCII letters** lies between two word runs; both
  words are written ``⟨bow⟩…⟨eow⟩`` whatever is beside them, and the space is the
  seam ``⟨eow⟩⟨bow⟩``: the piece from the space on, alone, writes that space
  first, and it is dropped (checked: the word before must end with ``⟨eow⟩``,
  the piece must go on with case markers and ``⟨bow⟩``).
- **The tiling cuts there too.** Every vocabulary piece holding a newline is
  newlines only and no piece goes on past ``⟨eow⟩`` (both checked on the loaded
  vocabulary; otherwise nothing is cut), so no tile crosses a cut and the fewest
  tiles of the whole is the sum over the pieces, and over the words of a piece.

A piece of printable ASCII (with tabs and newlines: all an NFC-folded ASCII text
holds) is marked by :meth:`_Lines.ascii_stream`, ctok's ``stream_norm`` with the
branches ASCII cannot reach taken out: its runs cut by one regular expression
over ctok's own classes of the 97 characters (checked when loaded), each word's
case marking as ctok's ``mark_case`` writes an ASCII word (no uncased letter can
block it), once per distinct word. It is the same stream
(``tests/test_ctok_lines.py`` compares the two), at about a third of the CPU: the
new text of each request is most of what a proxy counts.

- **A word is cut again before each ⟨bow⟩** (with the case markers before it) where
  every vocabulary piece holds case markers and ⟨bow⟩ at its head only (checked
  on the loaded vocabulary; true of v3, v4.7 and v4.8): ``2631519⟨bow⟩ffe⟨eow⟩``
  tiles as the number, new, plus a word seen before.

Each word is tiled by ``min_vocab_tile``'s recurrence over ctok's own reverse trie
of the vocabulary, with ctok's own byte floor, keeping the count only (no tiles, so
no tie order: about half the CPU); the trailing newlines by ctok's ``frame_tail``.
Anything unexpected (a ctok without these internals, a piece whose stream does not
start as it should) returns None and the caller counts the whole text with
``ctok.token_count``.
Equality with ``ctok.token_count`` on every distinct message of the benchmark
corpus: ``bench/test_ctok_lines.py``; a fixed sample, one real session and
Hypothesis-drawn texts: ``tests/test_ctok_lines.py``.

>>> import ctok
>>> text = "def f(x):\\n    return x  # ok\\n\\nIt's DONE.\\n"
>>> content_tokens(text, "4.8") == ctok.token_count(text, "4.8") - 6  # v4.8's frame: 6
True
"""

from __future__ import annotations

import functools
import re

#: Distinct pieces (and words) kept per ctok version before the memo starts over.
MEMO_PIECES = 200_000
#: Characters of distinct pieces kept before the memo starts over (one-line tool
#: results can be megabytes long: memory stays bounded by this, not by the count).
MEMO_CHARS = 32_000_000
#: Longest word (stream up to its ⟨eow⟩) kept in the word memo.
WORD_CHARS = 64

#: A lone space between two ASCII letters: two word runs, the seam between them.
_SEAM_SPACE = re.compile("(?<=[A-Za-z]) (?=[A-Za-z])")
#: What an NFC-folded ASCII text can hold (ctok's fold strips the other controls).
_ASCII = re.compile("[\t\n\x20-\x7e]*")
#: ASCII's runs, one group per ctok class: letters, digits, whitespace, the rest.
_ASCII_RUNS = re.compile("([A-Za-z]+)|([0-9]+)|([\t\n ]+)|([^A-Za-z0-9\t\n ]+)")


class _Lines:
    """One ctok version's model, its piece tiler and the memos of what it tiled."""

    def __init__(self, version: str) -> None:
        from ctok.constants import (
            BOW_G,
            CAPS_G,
            CONTRACTION_SUFFIXES,
            DIGIT,
            EOW_G,
            LITERAL_MARKER_ESCAPE_TABLE,
            MARKER_GLYPHS,
            PUNCT,
            SEAM_RE,
            SHIFT_G,
            WORDY,
        )
        from ctok.engine import char_cost, frame_tail
        from ctok.main import _family, _model
        from ctok.normalize import (
            SPACE,
            _contraction_seam,
            _opens_word,
            classify,
            nfc,
            raw_head_space,
            stream_norm,
        )

        self.model = _model(_family(version))
        self.prefix = BOW_G if self.model.frame_bow else ""
        self.bow, self.case = BOW_G, SHIFT_G + CAPS_G
        #: piece -> (its tiles, whether its stream ends with ⟨eow⟩)
        self.memo: dict[str, tuple[int, bool]] = {}
        self.memo_chars = 0
        self.words: dict[str, int] = {}
        self._nfc, self._stream, self._head = nfc, stream_norm, raw_head_space
        self._classify, self._space = classify, SPACE
        self._frame_tail = frame_tail
        # The tiling walks ctok's reverse trie of the vocabulary (min_vocab_tile's index).
        trie = self.model.trie
        self._trie_root, self._trie_end = trie.root, type(trie)._END
        self._markers, self._char_cost = MARKER_GLYPHS, char_cost
        vocab = self.model.vocab
        # The split is exact only if no vocabulary piece joins a newline to anything
        # else, and a tile ends at every ⟨eow⟩ only if no piece goes on past one.
        self.eow = EOW_G
        self.splits = all(set(p) == {"\n"} for p in vocab if "\n" in p) and all(
            p.find(EOW_G) in (-1, len(p) - 1) for p in vocab
        )
        # The ASCII path: ctok's classes of the ASCII it can meet, one per regex group (else
        # the path is off), and no ASCII character its marker escape rewrites.
        self.classes = ("", WORDY, DIGIT, SPACE, PUNCT)
        self.wordy, self.punct, self.frame_bow = WORDY, PUNCT, bool(self.model.frame_bow)
        ascii_chars = "\t\n" + "".join(map(chr, range(0x20, 0x7F)))
        self.fast = all(
            classify(c) == self.classes[_ASCII_RUNS.fullmatch(c).lastindex or 0]  # type: ignore[union-attr]
            for c in ascii_chars
        ) and all(k >= 0x80 for k in LITERAL_MARKER_ESCAPE_TABLE)
        self._seam, self._seam_to = SEAM_RE, "\\1" + EOW_G + "\\2" + BOW_G
        self._opens_word, self._contraction_seam = _opens_word, _contraction_seam
        self._marked_words: dict[str, tuple[str, str]] = {}
        self.caps_marker, self.shift_marker = CAPS_G, SHIFT_G
        self._suffixes = CONTRACTION_SUFFIXES
        # A word is cut before each ⟨bow⟩ (with the case markers before it) only if every
        # vocabulary piece holds case markers and ⟨bow⟩ in its head alone, so no tile can
        # cross such a cut and the fewest tiles of a word is the sum over its parts.
        self.bow_cuts = all(
            p.lstrip(self.case).count(BOW_G) <= int(p.lstrip(self.case).startswith(BOW_G))
            and not any(c in self.case for c in p.lstrip(self.case))
            for p in vocab
        )
        self._bow_cut = re.compile(f"(?<=[^{self.case}])(?=[{self.case}]*{BOW_G})")
        self.parts: dict[str, int] = {}

    def _tiles(self, stream: str) -> int:
        """The fewest tiles of a stream: the sum over its words (a tile ends at ⟨eow⟩)."""
        words, eow, total = self.words, self.eow, 0
        if len(words) > MEMO_PIECES:
            words.clear()
            self.parts.clear()
        *closed, last = stream.split(eow)
        for word in closed:
            hit = words.get(word)
            if hit is None:
                hit = self._word(word + eow)
                if len(word) <= WORD_CHARS:  # a long "word" (a blob) seldom comes again
                    words[word] = hit
            total += hit
        return total + (self._word(last) if last else 0)

    def _word(self, word: str) -> int:
        """The fewest tiles of one word: the sum over its parts cut before each ⟨bow⟩ (and
        the case markers before it), where the vocabulary lets no tile cross one; each
        part tiled once (``2631519⟨bow⟩ffe⟨eow⟩``: the number is new, the rest seen)."""
        if not self.bow_cuts:
            return self._tile(word)
        parts, total = self.parts, 0
        for part in self._bow_cut.split(word):
            if not part:
                continue
            hit = parts.get(part)
            if hit is None:
                hit = self._tile(part)
                if len(part) <= WORD_CHARS:
                    parts[part] = hit
            total += hit
        return total

    def _tile(self, stream: str) -> int:
        """The fewest tiles of ``stream``: the value of ctok's ``min_vocab_tile`` over the
        model's reverse trie, with ctok's one-character floor (a marker no piece absorbs is
        a token, anything else its vocabulary spelling or its bytes). Only the count is
        kept, not the tiles, so no tie order matters."""
        model, markers, char_cost = self.model, self._markers, self._char_cost
        root, terminal = self._trie_root, self._trie_end
        best = [0] * (len(stream) + 1)
        for end in range(1, len(stream) + 1):
            ch = stream[end - 1]
            node = root.get(ch)
            if node is not None and terminal in node:
                fewest = best[end - 1] + 1
            else:
                fewest = best[end - 1] + (1 if ch in markers else int(char_cost(model, ch)))
            start = end - 1
            while node is not None and start:
                start -= 1
                node = node.get(stream[start])
                if node is not None and terminal in node and best[start] + 1 < fewest:
                    fewest = best[start] + 1
            best[end] = fewest
        return best[-1]

    def _cuts(self, norm: str, end: int) -> list[int]:
        """Where ``norm[:end]`` splits: a newline after a non-space, a seam space."""
        cuts, at = [], norm.find("\n", 1, end)
        classify, space = self._classify, self._space
        while at != -1:
            if classify(norm[at - 1]) != space:
                cuts.append(at)
            at = norm.find("\n", at + 1, end)
        cuts += [m.start() for m in _SEAM_SPACE.finditer(norm, 0, end)]
        return sorted(cuts)

    def stream(self, norm: str, head_space: bool) -> str:
        """ctok's ``stream_norm(norm, model, raw_head_space=head_space)``, by
        :meth:`ascii_stream` where ``norm`` is ASCII."""
        if self.fast and _ASCII.fullmatch(norm):
            return self.ascii_stream(norm, head_space)
        return str(self._stream(norm, self.model, raw_head_space=head_space))

    def ascii_stream(self, norm: str, head_space: bool) -> str:
        """ctok's ``stream_norm`` of an NFC-folded ASCII text, its branches in its order: a
        run is a word (case markers, ⟨bow⟩ unless a contraction's apostrophe is its seam,
        ⟨eow⟩), punctuation (a marker on each side that borders a space), or digits and
        whitespace (as they are: ASCII digits take no border marker); then the seams."""
        norm = norm.rstrip("\n")
        if self.frame_bow and head_space and norm[:1] == " " and norm[1:2] != " ":
            norm = norm[1:]
        classes = self.classes
        runs = [(classes[m.lastindex or 0], m.group()) for m in _ASCII_RUNS.finditer(norm)]
        bow, eow, wordy, punct, space = self.bow, self.eow, self.wordy, self.punct, self._space
        if not runs:
            return bow if self.frame_bow else ""
        n_runs = len(runs)

        def borders_space(i: int, side: int) -> bool:
            j = i + side
            if j < 0:
                return self.frame_bow
            if j >= n_runs or runs[j][0] != space:
                return False
            if side < 0:
                return runs[j][1][-1:] == " "
            return runs[j][1][:1] == " " and runs[j][1][:2] != "  "

        first = runs[0]
        head_quote = self._opens_word(runs, 0)
        has_own_bow = not head_quote and (
            first[0] in (wordy, punct) or (first[0] == space and first[1][:1] == " ")
        )
        out = [] if has_own_bow or not self.frame_bow else [" " if head_quote else bow]
        marked_words, suffixes = self._marked_words, self._suffixes
        for i, (cls, body) in enumerate(runs):
            if cls == wordy:
                found = marked_words.get(body)
                if found is None:
                    found = self._marked_word(body)
                # ctok's _contraction_seam: only a suffix after a lone apostrophe can be one.
                seam = body in suffixes and i > 0 and self._contraction_seam(runs, i)
                out.append(found[0] + ("" if seam else bow) + found[1] + eow)
            elif cls == punct:
                takes_bow = borders_space(i, -1) and not (body == "'" and self._opens_word(runs, i))
                out.append(
                    (bow if takes_bow else "") + body + (eow if borders_space(i, +1) else "")
                )
            else:
                out.append(body)
        return str(self._seam.sub(self._seam_to, "".join(out)))

    def _marked_word(self, body: str) -> tuple[str, str]:
        """An ASCII word as ctok's ``mark_case`` writes it, split into its case markers and
        its letters (ASCII has no uncased letter, so ctok's blocks cannot apply), kept."""
        caps = self.model.allcaps_min
        if caps is not None and body.isupper() and len(body) >= caps:
            found = (self.caps_marker, body.lower())
        elif body[0].isupper() and body[1:] == body[1:].lower():
            found = (self.shift_marker, body.lower())
        else:
            found = ("", body)
        if len(self._marked_words) > MEMO_PIECES:
            self._marked_words.clear()
        self._marked_words[body] = found
        return found

    def _piece(self, piece: str) -> tuple[int, bool] | None:
        """Tiles of a piece that starts at a cut, as it stands in the whole stream."""
        stream = self.stream(piece, False)
        if piece[0] == "\n":
            # A stream starting at a message edge writes the frame's ⟨bow⟩ first.
            if not stream.startswith(self.prefix + "\n"):
                return None
            body = stream[len(self.prefix) :]
        else:
            # In the whole stream this space is the seam ⟨eow⟩⟨bow⟩: not written.
            if stream[:1] != " " or not stream[1:].lstrip(self.case).startswith(self.bow):
                return None
            body = stream[1:]
        return self._tiles(body), body.endswith(self.eow)

    def count(self, text: str) -> int | None:
        """Content tokens of ``text``; None when this split cannot vouch for the count."""
        model = self.model
        norm = self._nfc(text, fold_quotes=model.fold_quotes)
        n_tail = len(norm) - len(norm.rstrip("\n"))
        cuts = self._cuts(norm, len(norm) - n_tail) if self.splits else []
        if not cuts:
            return None
        head = self.stream(norm[: cuts[0]], bool(self._head(text)))
        total = self._tiles(head) + len(self._frame_tail(n_tail, model))
        ends_eow = head.endswith(self.eow)
        memo = self.memo
        if len(memo) > MEMO_PIECES or self.memo_chars > MEMO_CHARS:
            memo.clear()
            self.memo_chars = 0
        for start, stop in zip(cuts, [*cuts[1:], len(norm)], strict=True):
            piece = norm[start:stop]
            hit = memo.get(piece)
            if hit is None:
                hit = self._piece(piece)
                if hit is None:
                    return None
                memo[piece] = hit
                self.memo_chars += len(piece)
            if piece[0] == " " and not ends_eow:
                return None  # a seam needs the word before it closed
            total += hit[0]
            ends_eow = hit[1]
        return total


@functools.lru_cache(maxsize=8)
def _lines(version: str) -> _Lines | None:
    try:
        return _Lines(version)
    except (ImportError, AttributeError, KeyError, TypeError):
        return None  # a ctok without the internals this split reads


def content_tokens(text: str, version: str) -> int | None:
    """ctok's tiles for ``text``: ``ctok.token_count(text, version)`` minus the
    message frame's fixed tokens, each distinct piece normalised and tiled once per
    process; None where the split cannot vouch for the count (count the whole text
    with ``ctok.token_count`` then).

    >>> content_tokens("hello world\\nhello world\\n", "4.8")  # 3 + newline + 3
    7
    >>> content_tokens("x=1;y=2", "4.8") is None  # no cut in it: count it whole
    True
    """
    lines = _lines(version)
    return lines.count(text) if lines is not None else None


__all__ = ["content_tokens"]
