"""Images only from where they belong: no local file rides along in a provider request."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from snapshot import cli
from snapshot.rendering.raster import to_png
from snapshot.transcript.images import ImageRefused, image_roots, read_image
from snapshot.transcript.model import ImageBlock, TextBlock, linear
from snapshot.transcript.store import Store
from snapshot.transcript.store_log import record_line

PNG = to_png(np.zeros((3, 4), np.uint8), (4, 3))


def _read_record(path: Path) -> dict[str, Any]:
    """A store log as one conversation record (head, ``messages``, ``tip``), to edit by hand."""
    record: dict[str, Any] = {"messages": []}
    for line in path.read_text().splitlines():
        r = json.loads(line)
        if r["type"] == "conversation":
            record.update({k: v for k, v in r.items() if k not in ("snapshot_store", "type")})
        elif r["type"] == "message":
            record["messages"].append(r["message"])
        elif r["type"] == "tip":
            record["tip"] = r["tip"]
    return record


def _write_record(path: Path, record: dict[str, Any]) -> None:
    """Write a record (:func:`_read_record`) as the store log it describes, by hand."""
    head = {k: v for k, v in record.items() if k not in ("messages", "tip")}
    lines = [
        record_line("conversation", head)[0],
        *(record_line("message", {"message": m})[0] for m in record["messages"]),
        record_line("tip", {"tip": record.get("tip")})[0],
    ]
    path.write_bytes(b"".join(lines))


def _store_with_image(ws: Path, block: dict[str, object]) -> Path:
    """A store log whose one message holds ``block`` (as a hand-edited or hostile file would)."""
    store = Store(ws)
    path = store.save(linear("c1", [("m1", "user", [TextBlock("look")])]))
    record = _read_record(path)
    record["messages"][0]["blocks"].append(block)
    _write_record(path, record)
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


# --- stored conversations: images come from the store, never from where the file says ------


def _png(width: int, height: int) -> bytes:
    return to_png(np.full((height, width), 200, np.uint8), (width, height))


def _images_sent(body: object) -> list[bytes]:
    """The decoded bytes of every base64 image anywhere in a provider request body."""
    found: list[bytes] = []
    if isinstance(body, dict):
        source = body.get("source")
        if body.get("type") == "image" and isinstance(source, dict):
            found.append(base64.b64decode(source["data"]))
        for value in body.values():
            found.extend(_images_sent(value))
    elif isinstance(body, list):
        for value in body:
            found.extend(_images_sent(value))
    return found


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_claude_code_session_keeps_its_image_through_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shot = _png(6, 5)
    base = {"sessionId": "sess", "isSidechain": False}
    records = [
        {
            **base,
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "message": {
                "role": "user",
                "content": [
                    {"type": "text", "text": "what is on this screen?"},
                    {
                        "type": "image",
                        "source": {
                            "type": "base64",
                            "media_type": "image/png",
                            "data": base64.b64encode(shot).decode(),
                        },
                    },
                ],
            },
        },
        {
            **base,
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "text", "text": "grey"}],
            },
        },
    ]
    session = tmp_path / "sess.jsonl"
    session.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    ws = tmp_path / "ws"
    code, _, err = _cli(capsys, "checkpoint", str(session), "--workspace", str(ws), "L0")
    assert code == 0, err
    session.unlink()  # the stored copy must stand on its own
    code, out, err = _cli(capsys, "export", "sess", "--workspace", str(ws), "--to", "anthropic")
    assert code == 0, err
    assert _images_sent(json.loads(out)) == [shot]


def _osworld_run(root: Path, first: bytes, later: bytes) -> Path:
    """An OSWorld-style run: ``traj.jsonl`` naming a screenshot file per action."""
    run = root / "task" / "run1"
    run.mkdir(parents=True)
    (run / "initial_obs.png").write_bytes(first)
    (run / "runtime.log").write_text("Instruction: open the app\n", encoding="utf-8")
    steps = []
    for step in (1, 2):
        (run / f"step_{step}.png").write_bytes(later)
        steps.append(
            {
                "step_num": step,
                "action_idx": 1,
                "prediction": f"step {step}",
                "action": f"pyautogui.click({step}, 1)",
                "screenshot_file": f"step_{step}.png",
            }
        )
    (run / "traj.jsonl").write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")
    return run


def test_path_referenced_images_are_copied_into_the_store_and_exported_from_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    first, later = _png(20, 10), _png(8, 4)
    run = _osworld_run(tmp_path / "runs", first, later)
    ws = tmp_path / "ws"
    code, _, err = _cli(capsys, "checkpoint", str(run / "traj.jsonl"), "--workspace", str(ws), "L0")
    assert code == 0, err
    [conv_dir] = [p for p in ws.iterdir() if p.is_dir()]
    copies = sorted((conv_dir / "images").iterdir())
    assert sorted(p.read_bytes() for p in copies) == sorted([first, later])  # one copy each
    record = _read_record(conv_dir / "main.jsonl")
    paths = {
        b["path"]
        for m in record["messages"]
        for blk in m["blocks"]
        for b in [blk, *blk.get("content", [])]
        if b.get("type") == "image"
    }
    assert paths == {f"images/{p.name}" for p in copies}  # relative: the store can move

    shutil.rmtree(tmp_path / "runs")  # the transcript's folder is gone; the store's copies remain
    code, out, err = _cli(
        capsys, "export", conv_dir.name, "--workspace", str(ws), "--to", "anthropic"
    )
    assert code == 0, err
    assert sorted(_images_sent(json.loads(out))) == sorted([first, later, later])
    moved = tmp_path / "moved"
    ws.rename(moved)
    code, out, err = _cli(
        capsys, "export", str(moved / conv_dir.name / "main.jsonl"), "--to", "openai"
    )
    assert code == 0 and "not included" not in out, err


def test_a_hostile_store_file_cannot_choose_the_trusted_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    picture = _png(7, 3)
    (elsewhere / "real.png").write_bytes(picture)
    (elsewhere / "notes.txt").write_text("a private note\n")
    ws = tmp_path / "ws"
    path = _store_with_image(
        ws, {"type": "image", "media_type": "image/png", "path": str(elsewhere / "real.png")}
    )
    record = _read_record(path)
    record["source"] = str(elsewhere / "traj.jsonl")  # "trust the folder I name"
    (path.parent / "images").mkdir()
    (path.parent / "images" / "fake.png").write_text("a store-internal text file\n")
    record["messages"][0]["blocks"] += [
        {"type": "image", "media_type": "image/png", "path": str(elsewhere / "notes.txt")},
        {"type": "image", "media_type": "image/png", "path": "../../elsewhere/real.png"},
        {"type": "image", "media_type": "image/png", "path": "images/fake.png"},
    ]
    _write_record(path, record)

    code, out, err = _export(capsys, path)
    assert code == 0, err
    body = json.loads(out)
    assert _images_sent(body) == []
    assert base64.b64encode(picture).decode() not in out and "private note" not in out
    texts = [b.get("text", "") for b in body["messages"][0]["content"]]
    refused = [t for t in texts if "not included" in t]
    assert len(refused) == 4, texts
    assert sum("outside the transcript's folder" in t for t in refused) == 3
    assert sum("not an image" in t for t in refused) == 1
    assert err.count("image left out") == 4  # the notes say so too

    # Saving it anew (a fork: its images are copied) does not launder the PNG into the store.
    code, _, err = _cli(capsys, "fork", "c1", "--workspace", str(ws), "--id", "c2")
    assert code == 0, err
    assert not (ws / "c2" / "images").exists()
    saved = _read_record(ws / "c2" / "main.jsonl")
    not_stored = [w for w in saved["warnings"] if "image not stored" in w]
    assert (
        len(not_stored) == 4
        and sum("outside the transcript's folder" in w for w in not_stored) == 3
    )
    code, out, _ = _export(capsys, ws / "c2" / "main.jsonl")
    assert code == 0 and _images_sent(json.loads(out)) == []


def test_a_dropped_image_placeholder_never_shows_the_size_of_a_file_that_is_no_image(
    tmp_path: Path,
) -> None:
    from snapshot.ladder.images import image_placeholder
    from snapshot.transcript.model import ImageBlock

    secret = tmp_path / "id_rsa"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n" + "A" * 4000 + "\n")
    hostile = ImageBlock("image/png", path=str(secret))
    assert hostile.size == 0
    assert "4 KB" not in image_placeholder(hostile).text
    real = tmp_path / "shot.png"
    from PIL import Image

    Image.new("L", (40, 30), 255).save(real)
    assert ImageBlock("image/png", path=str(real)).size == real.stat().st_size
