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
>>> from snapshot.raster import to_png
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

import io
import os
import struct
from collections.abc import Sequence
from pathlib import Path
from warnings import catch_warnings, simplefilter

from snapshot.errors import TranscriptError
from snapshot.transcript.files import is_inside, read_regular_file, trusted_roots
from snapshot.transcript.model import Conversation, ImageBlock

#: Largest image file read by path: providers take at most 20 MB an image.
MAX_IMAGE_BYTES = 32 * 1024 * 1024

#: Images larger than this many pixels are refused: a header claiming
#: 50 000 x 50 000 is a decompression bomb waiting for whoever decodes it later.
MAX_IMAGE_PIXELS = 1 << 28

_PIL_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# Headers (even JPEG's EXIF) sit at the start of the file.
_HEAD_BYTES = 256 * 1024


class ImageRefused(TranscriptError):
    """An image that is not sent: ``reason`` says why, for the placeholder and the notes."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.reason = reason


class ImageTooLarge(TranscriptError):
    """An image header claims more pixels than is safe to keep: a decompression bomb."""


def check_pixel_count(width: int, height: int) -> None:
    """Raise :class:`ImageTooLarge` when ``width`` x ``height`` exceeds :data:`MAX_IMAGE_PIXELS`."""
    if width * height > MAX_IMAGE_PIXELS:
        raise ImageTooLarge(f"image claims {width}x{height} pixels, more than is safe to keep")


def image_header(data: bytes) -> tuple[str, int, int]:
    """``(media type, width, height)`` from an encoded image's header: the one header reader.

    Pillow's ``open`` reads only the header; pixels are never decoded here.

    Parameters
    ----------
    data : bytes
        The start of an encoded image (the whole file, or its first 256 KiB).

    Returns
    -------
    (str, int, int)

    Raises
    ------
    TranscriptError
        Not a PNG/JPEG/GIF/WebP image; :class:`ImageTooLarge` when it claims more
        than :data:`MAX_IMAGE_PIXELS` pixels.
    """
    from PIL import Image

    if not data:
        raise TranscriptError("not an image (0 bytes)")
    if data.startswith(_PNG_SIGNATURE) and data[12:16] == b"IHDR" and len(data) >= 24:
        # A bomb is refused on its IHDR alone, even when Pillow wants more chunks.
        check_pixel_count(*struct.unpack(">II", data[16:24]))
    try:
        with catch_warnings():
            simplefilter("ignore")  # Pillow's bomb warning: we apply our own cap
            with Image.open(io.BytesIO(data)) as img:
                fmt = img.format or ""
                width, height = img.size
    except Image.DecompressionBombError as exc:
        raise ImageTooLarge(f"image too large to be safe: {exc}") from exc
    except Exception as exc:  # Pillow raises many types for garbage bytes
        raise TranscriptError(
            f"not an image ({len(data)} bytes starting {data[:8]!r}): {exc}"
        ) from exc
    media_type = _PIL_FORMATS.get(fmt)
    if media_type is None:
        raise TranscriptError(f"unsupported image format {fmt or 'unknown'!r}")
    check_pixel_count(width, height)
    return media_type, width, height


def image_file_header(path: Path) -> tuple[str, int, int]:
    """Like :func:`image_header` for a regular file, reading only its first bytes."""
    try:
        return image_header(_head(path))
    except TranscriptError as exc:
        if str(exc).startswith(str(path)):
            raise
        raise TranscriptError(f"{path}: {exc}") from exc


def referenced_image_bytes(path: Path) -> int:
    """The size of ``path`` when it is a regular file that starts as an image, else 0.

    >>> referenced_image_bytes(Path("/etc/hostname"))  # a file, but not an image
    0
    """
    try:
        image_file_header(path)
        return path.stat().st_size
    except (TranscriptError, OSError):
        return 0


def _head(path: Path) -> bytes:
    from snapshot.transcript.files import require_regular_file

    require_regular_file(path)
    try:
        with open(path, "rb") as fh:
            return fh.read(_HEAD_BYTES)
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot be read: {exc.strerror or exc}") from exc


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
