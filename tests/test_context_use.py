"""``snapshot.ladder.context.ContextUse``: the image groups and the ``--json`` document."""

from __future__ import annotations

from snapshot import profiles
from snapshot.ladder.context import ContextUse, ImageGroup, ImageUse, context_use
from snapshot.ladder.target import ContextTokens
from snapshot.transcript.model import Conversation, ImageBlock, Message, TextBlock


def use_of(*images: ImageUse) -> ContextUse:
    return ContextUse("m", 1, ContextTokens(10, 0, "exact"), {}, {}, images, True)


def test_image_groups_keep_first_seen_order_of_kinds_and_sizes() -> None:
    use = use_of(
        ImageUse("tool results", 10, (4, 3), 7),
        ImageUse("user", 5, None, None),
        ImageUse("tool results", 20, (2, 2), 1),
        ImageUse("tool results", 30, (4, 3), 7),
    )
    assert use.image_groups() == (
        ImageGroup("tool results", 3, 60, (((4, 3), 2), ((2, 2), 1)), 15, 0),
        ImageGroup("user", 1, 5, ((None, 1),), 0, 1),
    )
    assert use_of().image_groups() == ()


def test_record_is_the_totals_and_the_models_lifecycle() -> None:
    img = ImageBlock("image/png", b"x", width=800, height=600)
    conv = Conversation(
        "c",
        (
            Message("u1", None, "user", (TextBlock("look"), img)),
            Message("a1", "u1", "assistant", (TextBlock("a cat"),)),
        ),
        "a1",
    )
    use = context_use(conv, "claude-sonnet-5-5")
    doc = use.record("c/main")
    lifecycle = profiles.profile_for("claude-sonnet-5-5").lifecycle_record()
    assert doc == {
        "total_tokens": use.counted.total,
        "text_tokens": use.counted.text,
        "image_tokens": use.counted.images,
        "text_counter": use.counted.counter,
        "model": "claude-sonnet-5-5",
        "conversation": "c/main",
        "messages": 2,
        "context_window": {
            "tokens": 1_000_000,
            "source": profiles.context_window("claude-sonnet-5-5").source,  # type: ignore[union-attr]
            "date": "2026-11-09",
        },
        "window_share": use.counted.total / 1_000_000,
        **lifecycle,
    }
    assert doc["image_tokens"] == use.billed_images > 0
    assert [(g.kind, g.count, g.sizes) for g in use.image_groups()] == [
        ("user", 1, (((800, 600), 1),))
    ]
