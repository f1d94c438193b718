"""Profiles from JSON/TOML files: override a known model or describe a new one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from snapshot.errors import InputError, UnknownModelError
from snapshot.profiles import load_profiles, profile_for, profile_to_dict


def test_toml_override_of_a_known_model(tmp_path: Path) -> None:
    f = tmp_path / "p.toml"
    f.write_text(
        '[[profile]]\nmodel = "claude-sonnet-4-5"\nfont = "snap5x8"\nmax_images = 40\n'
        'evidence = ["our own probe: 24/24 at 5x8"]\n'
    )
    prof = load_profiles(f)["claude-sonnet-4-5"]
    assert prof.font == "snap5x8"
    assert prof.limits.max_images == 40
    assert prof.limits.max_image_bytes == 10 * 1024 * 1024  # untouched limits stay
    assert prof.evidence[0].claim.startswith("our own probe")
    assert profile_for("claude-sonnet-4-5", overrides={"claude-sonnet-4-5": prof}) is prof
    assert profile_for("claude-sonnet-4-5").font == "snap8x16"  # the tables are unchanged


def test_json_new_model_with_base(tmp_path: Path) -> None:
    f = tmp_path / "p.json"
    f.write_text(
        json.dumps({"profiles": [{"model": "acme-vl", "base": "gpt-5.4", "page": [1024, 1024]}]})
    )
    prof = load_profiles(f)["acme-vl"]
    assert prof.canonical == "gpt-5.4" and prof.model == "acme-vl"
    assert prof.solution().size == (1024, 1024)
    assert prof.geometry().size == (1024, 1024)
    assert prof.solution().tokens == 1229


def test_new_model_with_its_own_scheme(tmp_path: Path) -> None:
    f = tmp_path / "p.toml"
    f.write_text(
        'model = "house-vlm"\nfont = "snap8x16"\n'
        '[scheme]\nkind = "qwen-patches"\nfactor = 32\nmax_pixels = 2621440\n'
    )
    prof = load_profiles(f)["house-vlm"]
    assert prof.scheme.kind == "qwen-patches"
    w, h = prof.solution().size
    assert w % 32 == 0 and h % 32 == 0
    assert prof.scheme.seen(w, h) == (w, h)


def test_round_trip(tmp_path: Path) -> None:
    prof = profile_for("gemini-3.6-flash")
    f = tmp_path / "p.json"
    entry = profile_to_dict(prof)
    f.write_text(json.dumps(entry))
    back = load_profiles(f)["gemini-3.6-flash"]
    assert back.scheme == prof.scheme and back.font == prof.font
    assert back.solution().size == prof.solution().size


@pytest.mark.parametrize(
    ("name", "content", "match"),
    [
        ("a.toml", 'model = "claude-sonnet-4-5"\npage = [1920, 1080]\n', "resized"),
        ("b.toml", 'model = "claude-sonnet-4-5"\ncolour = "red"\n', "unknown key"),
        ("c.toml", 'font = "snap5x8"\n', "needs a 'model'"),
        ("d.toml", 'model = "mystery"\n', "give 'base'"),
        ("e.json", "{not json", "not valid JSON"),
        ("f.yaml", "model: x", ".json or .toml"),
        ("g.toml", 'model = "x"\nbase = "gpt-4o"\npage = [0, 5]\n', "width, height"),
        ("h.toml", 'model = "x"\n[scheme]\nkind = "magic"\n', "unknown billing scheme"),
    ],
)
def test_bad_files_say_what_to_do(tmp_path: Path, name: str, content: str, match: str) -> None:
    f = tmp_path / name
    f.write_text(content)
    with pytest.raises(InputError, match=match):
        load_profiles(f)


def test_unknown_base_is_an_unknown_model(tmp_path: Path) -> None:
    f = tmp_path / "p.toml"
    f.write_text('model = "x"\nbase = "not-a-model"\n')
    with pytest.raises(UnknownModelError):
        load_profiles(f)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        load_profiles(tmp_path / "absent.toml")
