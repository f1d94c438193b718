"""Images only from where they belong: no local file rides along in a provider request."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest

from snapshot import cli
from snapshot.raster import to_png
from snapshot.transcript.images import ImageRefused, image_roots, read_image
from snapshot.transcript.model import ImageBlock, TextBlock, linear
from snapshot.transcript.store import Store

PNG = to_png(np.zeros((3, 4), np.uint8), (4, 3))


def _store_with_image(ws: Path, block: dict[str, object]) -> Path:
    """A store file whose one message holds ``block`` (as a hand-edited or hostile file would)."""
    store = Store(ws)
    path = store.save(linear("c1", [("m1", "user", [TextBlock("look")])]))
    doc = json.loads(path.read_text())
    doc["conversation"]["messages"][0]["blocks"].append(block)
    path.write_text(json.dumps(doc))
    return path


def _export(capsys: pytest.CaptureFixture[str], path: Path) -> tuple[int, str, str]:
    code = cli.main(["export", str(path), "--to", "anthropic"])
    out, err = capsys.readouterr()
    return code, out, err


def test_issue_repro_a_text_file_named_as_an_image_is_not_sent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "id_rsa"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n")
    path = _store_with_image(
        tmp_path / "ws", {"type": "image", "media_type": "image/png", "path": str(secret)}
    )
    code, out, err = _export(capsys, path)
    assert code == 0
    assert "secret" not in out and base64.b64encode(secret.read_bytes()).decode() not in out
    assert "not included" in out and "outside the transcript's folder" in out
    assert "outside the transcript's folder" in err  # the note says why too


def test_only_images_inside_the_transcripts_folder_are_read(tmp_path: Path) -> None:
    home = tmp_path / "run"
    home.mkdir()
    inside = home / "shot.png"
    inside.write_bytes(PNG)
    outside = tmp_path / "other.png"
    outside.write_bytes(PNG)
    (home / "link.png").symlink_to(outside)
    (home / "fake.png").write_text("not a png")
    (home / "really.gif").write_bytes(PNG)
    conv = linear("c", [("m", "user", [TextBlock("x")])])
    from dataclasses import replace

    roots = image_roots(replace(conv, source=str(home / "traj.jsonl")))
    assert read_image(ImageBlock("image/png", path=str(inside)), roots) == PNG
    cases = {
        str(outside): "outside",
        str(home / "link.png"): "outside",  # symlinks are followed before the check
        str(home / "../other.png"): "outside",
        str(home / "fake.png"): "not an image",
        str(home / "really.gif"): "not the image/gif it claims",
        str(home / "missing.png"): "does not exist",
        str(home): "folder",
    }
    for path, reason in cases.items():
        media = "image/gif" if path.endswith(".gif") else "image/png"
        with pytest.raises(ImageRefused, match=reason):
            read_image(ImageBlock(media, path=path), roots)


def test_root_and_home_are_never_trusted_whole() -> None:
    conv = linear("c", [("m", "user", [TextBlock("x")])])
    from dataclasses import replace

    assert image_roots(replace(conv, source="/")) == []
    assert image_roots(replace(conv, source=str(Path.home()))) == []


def test_bad_base64_is_a_placeholder_not_a_zero_byte_png(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _store_with_image(
        tmp_path / "ws", {"type": "image", "media_type": "image/png", "data": "!!!!"}
    )
    code, out, _ = _export(capsys, path)
    body = json.loads(out)
    blocks = body["messages"][0]["content"]
    assert code == 0
    assert not any(b.get("type") == "image" for b in blocks)
    assert any("not included: not an image (0 bytes)" in b.get("text", "") for b in blocks)
