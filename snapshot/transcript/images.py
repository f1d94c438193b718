"""Images only from where they belong: the one reader of image headers and image files.

A transcript can name an image by path (an image block's ``path``, OSWorld's
``screenshot_file``, a screenshot beside a WebVoyager log). Whatever a file
says, a path-referenced image is read only when it

1. resolves (symlinks followed) inside the transcript's own folder or, for a
   stored conversation, its folder in the store (which holds copies of the
   images, made when it was stored; see :func:`image_roots`),
2. is a regular file of at most :data:`MAX_IMAGE_BYTES`, and
3. sniffs, by its header, as the image type it claims.

Anything else is refused with :class:`ImageRefused`, whose ``reason`` the
exporters put into the placeholder they send instead and into their notes; so a
conversation whose image path is ``~/.ssh/id_rsa`` sends ``[image ... not
included: ...]``, never the key. Inline image bytes get check 3 too, so bad
base64 becomes a placeholder, not a 0-byte PNG.

>>> import tempfile, pathlib
>>> from snapshot.rendering.raster import to_png
>>> import numpy as np
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "shot.png").write_bytes(to_png(np.zeros((3, 4), np.uint8), (4, 3)))
>>> image_header((d / "shot.png").read_bytes())
('image/png', 4, 3)
>>> len(read_image(ImageBlock("image/png", path=str(d / "shot.png")), [d])) > 0
True
>>> try:
...     read_image(ImageBlock("image/png", path="/etc/passwd"), [d])
... except ImageRefused as exc:
...     print(exc.reason.split(";")[0])
image file outside the transcript's folder
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from snapshot.errors import TranscriptError
from snapshot.transcript.files import is_inside, read_regular_file, trusted_roots
from snapshot.transcript.image_header import (  # noqa: F401  (the header names re-exported)
    MAX_IMAGE_PIXELS,
    ImageTooLarge,
    check_pixel_count,
    image_file_header,
    image_header,
    referenced_image_bytes,
)
from snapshot.transcript.model import Conversation, ImageBlock

#: Largest image file read by path: providers take at most 20 MB an image.
MAX_IMAGE_BYTES = 32 * 1024 * 1024


class ImageRefused(TranscriptError):
    """An image that is not sent: ``reason`` says why, for the placeholder and the notes."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.reason = reason


def image_roots(conv: Conversation, *extra: str | os.PathLike[str]) -> list[Path]:
    """The folders a conversation's path-referenced images may come from.

    For a conversation read from a store file, its ``image_folders``: the
    store file's own folder, where the store keeps copies of its images. The
    ``source`` the file records is not trusted (a hand-edited file could name
    any folder). For a conversation an importer made, the folder of the file
    it was imported from (or that folder itself, for a format kept as a
    folder). Plus ``extra`` in both cases.

    Parameters
    ----------
    conv : Conversation
    *extra : path
        Further trusted folders.

    Returns
    -------
    list of Path
        Resolved folders; the file system root and the home folder are never trusted whole.
    """
    roots: list[str | os.PathLike[str]] = list(extra)
    if conv.image_folders is not None:
        roots.extend(conv.image_folders)
    elif conv.source:
        src = Path(conv.source)
        roots.append(src if src.is_dir() else src.parent)
    return trusted_roots(roots)


def read_image(img: ImageBlock, roots: Sequence[str | os.PathLike[str]]) -> bytes:
    """The encoded bytes of ``img``, if it is an image that may be sent.

    Parameters
    ----------
    img : ImageBlock
        Inline bytes, or a path.
    roots : sequence of path
        Folders a referenced file must resolve inside (:func:`image_roots`).

    Returns
    -------
    bytes

    Raises
    ------
    ImageRefused
        With ``reason``: outside the folders, not a regular file, over the byte
        limit, not an image, or not the type it claims.
    """
    where = img.origin or img.path or "image"
    if img.data is not None:
        data = img.data
    elif img.path is None:
        raise ImageRefused(where, "image block has neither bytes nor a file reference")
    else:
        where = img.path
        try:
            real = Path(img.path).resolve()
        except (OSError, RuntimeError, ValueError) as exc:
            raise ImageRefused(where, f"image path cannot be resolved ({exc})") from exc
        if not is_inside(real, trusted_roots(roots)):
            raise ImageRefused(
                where,
                "image file outside the transcript's folder; only images beside the "
                "transcript (or in the store) are sent",
            )
        try:
            data = read_regular_file(real, MAX_IMAGE_BYTES)
        except FileNotFoundError:
            raise ImageRefused(where, "image file does not exist") from None
        except TranscriptError as exc:
            raise ImageRefused(where, str(exc).removeprefix(f"{real}: ")) from exc
    try:
        media_type, _, _ = image_header(data)
    except TranscriptError as exc:
        raise ImageRefused(where, str(exc)) from exc
    if media_type != img.media_type:
        raise ImageRefused(where, f"is {media_type}, not the {img.media_type} it claims")
    return data


def image_size(img: ImageBlock, roots: Sequence[str | os.PathLike[str]]) -> tuple[int, int] | None:
    """``(width, height)`` as recorded, else from the header of a sendable image, else None."""
    if img.width and img.height:
        return img.width, img.height
    try:
        _, w, h = image_header(read_image(img, roots))
    except TranscriptError:
        return None
    return w, h


def image_from_file(
    path: Path, origin: str, roots: Sequence[str | os.PathLike[str]] | None = None
) -> ImageBlock:
    """An :class:`ImageBlock` referencing an image file, its size read from the header.

    Parameters
    ----------
    path : Path
        The image file an importer found.
    origin : str
        What the placeholder calls it once dropped.
    roots : sequence of path, optional
        When given, the file must resolve inside one of them (a path taken from
        a record, which may say ``../../home/me/.ssh/id_rsa``).

    Raises
    ------
    TranscriptError
        Outside ``roots``, not a regular file, or not an image that can be kept.
    """
    if roots is not None:
        try:
            real = path.resolve()
        except (OSError, RuntimeError, ValueError) as exc:
            raise TranscriptError(f"{path}: cannot be resolved ({exc})") from exc
        if not is_inside(real, trusted_roots(roots)):
            raise TranscriptError(f"{path}: image file outside the run's folder; not read")
    media_type, width, height = image_file_header(path)
    return ImageBlock(
        media_type=media_type, path=str(path), width=width, height=height, origin=origin
    )
