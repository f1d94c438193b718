"""Image headers: what an encoded image says it is, read without decoding its pixels.

The one header reader (:func:`image_header`), and the size of a file that is
an image (:func:`referenced_image_bytes`). It depends on nothing of the
conversation model, so the model's :attr:`~snapshot.transcript.model.ImageBlock.size`
can use it; the image guard (:mod:`snapshot.transcript.images`) builds on it.

>>> from snapshot.rendering.raster import to_png
>>> import numpy as np
>>> image_header(to_png(np.zeros((3, 4), np.uint8), (4, 3)))
('image/png', 4, 3)
"""

from __future__ import annotations

import io
import struct
from pathlib import Path
from warnings import catch_warnings, simplefilter

from snapshot.errors import TranscriptError

__all__ = [
    "MAX_IMAGE_PIXELS",
    "ImageTooLarge",
    "check_pixel_count",
    "image_file_header",
    "image_header",
    "referenced_image_bytes",
]

#: Images larger than this many pixels are refused: a header claiming
#: 50 000 x 50 000 is a decompression bomb waiting for whoever decodes it later.
MAX_IMAGE_PIXELS = 1 << 28

_PIL_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# Headers (even JPEG's EXIF) sit at the start of the file.
_HEAD_BYTES = 256 * 1024


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
