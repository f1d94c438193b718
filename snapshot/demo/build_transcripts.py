"""Build the demo transcripts shipped with the package (``python -m snapshot.demo.build_transcripts``).

They are written for the project, not recorded from a model: three small
agent sessions in the Anthropic Messages request format, so ``snapshot
report`` has something real-shaped to compact when no corpus is given. The
coding session reads the project's own source files as its tool results;
the browser session carries deterministic synthetic screenshots. The output
is committed; rebuilding from the same sources gives the same bytes.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

HERE = Path(__file__).parent
OUT = HERE / "transcripts"
ROOT = HERE.parent  # the snapshot package: its own source is the coding session's material

SYSTEM = "You are a careful coding agent. Work in small steps and run the tests after each change."


class Session:
    def __init__(self, name: str) -> None:
        self.name = name
        self.messages: list[dict[str, Any]] = []
        self.calls = 0

    def user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": [{"type": "text", "text": text}]})

    def assistant(
        self, text: str, tool: str | None = None, args: dict[str, Any] | None = None
    ) -> str:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        call_id = ""
        if tool is not None:
            self.calls += 1
            call_id = f"toolu_{self.name[:6]}_{self.calls:04d}"
            content.append({"type": "tool_use", "id": call_id, "name": tool, "input": args or {}})
        self.messages.append({"role": "assistant", "content": content})
        return call_id

    def result(
        self, call_id: str, text: str, *, error: bool = False, image: bytes | None = None
    ) -> None:
        inner: list[dict[str, Any]] = [{"type": "text", "text": text}]
        if image is not None:
            import base64

            inner.append(
                {
                    "type": "image",
                    "source": {
                        "type": "base64",
                        "media_type": "image/png",
                        "data": base64.b64encode(image).decode(),
                    },
                }
            )
        self.messages.append(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": call_id,
                        "content": inner,
                        "is_error": error,
                    }
                ],
            }
        )

    def body(self, model: str) -> dict[str, Any]:
        return {"model": model, "max_tokens": 4096, "system": SYSTEM, "messages": self.messages}


def _sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def _source(rel: str) -> str:
    return (ROOT / rel).read_text(encoding="utf-8")


def coding_session() -> Session:
    s = Session("coding")
    s.user(
        "The needle recall in the ladder report looks too low for camelCase names like "
        "HTTPServer. Find out why and fix it. Constraints: do not change the public API "
        "(snapshot.render, snapshot.read), keep tests green, and keep commits small."
    )
    files = [
        "ladder/needles.py",
        "ladder/serialize.py",
        "ladder/elide.py",
        "ladder/images.py",
        "ladder/cut.py",
        "ladder/record.py",
        "transcript/model.py",
        "errors.py",
    ]
    listing = "\n".join(
        f"-rw-r--r-- 1 dev dev {len(_source(f)):>6} Nov 29 23:41 snapshot/{f}" for f in files
    )
    c = s.assistant(
        "Let me look at the layout of the ladder package first.",
        "bash",
        {"command": "ls -l snapshot/ladder snapshot/transcript"},
    )
    s.result(c, listing)
    for i, f in enumerate(files):
        c = s.assistant(f"Reading snapshot/{f}.", "read_file", {"path": f"snapshot/{f}"})
        s.result(c, _source(f))
        if i == 2:
            s.user("Any progress? Remember the constraint about the public API.")
            s.assistant(
                "Yes: I have not touched the public API. The candidates regex is the suspect."
            )
    log_lines = [
        f"{_sha(f + str(n))[:10]} {msg}"
        for n, (f, msg) in enumerate(
            [
                (
                    "needles",
                    "Seeded needles and recall: the readability half of every savings figure",
                ),
                ("ladder", "Ladder rungs 1 and 2: elide uneventful tool results, drop old images"),
                ("registry", "Importer registry: one module per format, detection order"),
                ("model", "Neutral conversation model: messages in a tree, blocks, pairing"),
            ]
        )
    ]
    c = s.assistant(
        "Checking recent history of the needles module.",
        "bash",
        {"command": "git log --oneline -4"},
    )
    s.result(c, "\n".join(log_lines))
    failing = (
        "============================= test session starts ==============================\n"
        "collected 3 items\n\n"
        "tests/test_needles.py F..                                                 [100%]\n\n"
        "=================================== FAILURES ===================================\n"
        "_______________________ test_candidates_cover_every_kind _______________________\n\n"
        "    def test_candidates_cover_every_kind() -> None:\n"
        "        found = candidates(SPAN)\n"
        '>       assert "getUserName" in found["name"] and "HTTPServer" in found["name"]\n'
        "E       AssertionError: assert ('getUserName' in ['KeyError', 'pageCount', 'getUserName'] "
        "and 'HTTPServer' in ['KeyError', 'pageCount', 'getUserName'])\n\n"
        "tests/test_needles.py:19: AssertionError\n"
        "=========================== short test summary info ============================\n"
        "FAILED tests/test_needles.py::test_candidates_cover_every_kind - AssertionError\n"
        "========================= 1 failed, 2 passed in 0.41s ==========================\n"
    )
    c = s.assistant(
        "Running the needle tests to reproduce.",
        "bash",
        {"command": "pytest -q tests/test_needles.py"},
    )
    s.result(c, failing, error=True)
    s.assistant(
        "The 'name' pattern requires a lowercase letter right after the first capital, so "
        "acronym-led names like HTTPServer and XMLParser never match. I will add an "
        "alternative for a run of capitals followed by a lowercase letter."
    )
    diff = (
        "--- a/snapshot/ladder/needles.py\n+++ b/snapshot/ladder/needles.py\n@@ -27,7 +27,7 @@\n"
        '-    "name": re.compile(r"\\b[A-Za-z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\\b"),\n'
        '+    "name": re.compile(r"\\b(?:[A-Za-z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Z]{2,}[a-z][A-Za-z0-9]*)\\b"),\n'
    )
    c = s.assistant("Applying the fix.", "apply_patch", {"patch": diff})
    s.result(c, "Patched snapshot/ladder/needles.py (1 hunk, +1 -1).")
    c = s.assistant("Re-running the tests.", "bash", {"command": "pytest -q tests/test_needles.py"})
    s.result(
        c,
        "...                                                                      [100%]\n3 passed in 0.38s\n",
    )
    s.user("Great. Now also make sure the doctest in needles.py still passes, then summarize.")
    c = s.assistant(
        "Running the doctest.",
        "bash",
        {"command": "python -m doctest snapshot/ladder/needles.py -v | tail -3"},
    )
    s.result(
        c,
        "3 items passed all tests:\n   3 tests in needles\n3 tests in 4 items.\n3 passed and 0 failed.\nTest passed.",
    )
    s.assistant(
        "Done. Root cause: the camelCase pattern in snapshot/ladder/needles.py missed "
        "acronym-led names (HTTPServer). Fix: one extra alternative in the regex; the "
        "public API is untouched; tests/test_needles.py passes (3 passed) and so does the doctest."
    )
    return s


def _screenshot(step: int, title: str, lines: list[str]) -> bytes:
    """A deterministic 1024x768 'browser screenshot' drawn with Pillow's default font."""
    img = Image.new("RGB", (1024, 768), (250, 250, 252))
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 0, 1024, 56), fill=(40, 44, 52))
    draw.text(
        (16, 20),
        f"https://shop.example.test/{title.lower().replace(' ', '-')}",
        fill=(220, 220, 220),
    )
    draw.text((32, 88), title, fill=(20, 20, 20))
    for i, line in enumerate(lines):
        y = 130 + 34 * i
        draw.rectangle((32, y, 992, y + 26), outline=(200, 200, 210))
        draw.text((44, y + 8), line, fill=(30, 30, 30))
    draw.text((32, 730), f"step {step}", fill=(120, 120, 120))
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False, compress_level=9)
    return buf.getvalue()


def browser_session() -> Session:
    s = Session("browse")
    s.user(
        "Find the cheapest 27-inch monitor with USB-C on shop.example.test, add it to the "
        "cart, and report its SKU and price. Do not check out."
    )
    pages = [
        (
            "Search results",
            [
                f"Monitor {n}: 27in, {'USB-C' if n % 2 else 'HDMI'}, ${199 + 17 * n}.00, SKU MON-{4100 + n}"
                for n in range(1, 15)
            ],
        ),
        (
            "Filter USB-C",
            [
                f"Monitor {n}: 27in, USB-C, ${199 + 17 * n}.00, SKU MON-{4100 + n}"
                for n in range(1, 15, 2)
            ],
        ),
        (
            "Sort by price",
            [
                f"Monitor {n}: 27in, USB-C, ${199 + 17 * n}.00, SKU MON-{4100 + n}"
                for n in range(1, 15, 2)
            ],
        ),
        (
            "Product MON-4101",
            ["Monitor 1", "27in IPS, USB-C 65W", "Price $216.00", "SKU MON-4101", "In stock: 12"],
        ),
        ("Cart", ["Monitor 1 x1  $216.00", "Subtotal $216.00", "Checkout (not pressed)"]),
    ]
    actions = [
        "search 27 inch monitor",
        "click filter USB-C",
        "click sort price ascending",
        "click Monitor 1",
        "click add to cart",
    ]
    for step, ((title, lines), action) in enumerate(zip(pages, actions, strict=True), start=1):
        c = s.assistant(f"Next: {action}.", "browser", {"action": action})
        text = "\n".join([f"Page title: {title}", *lines])
        s.result(c, text, image=_screenshot(step, title, lines))
        if step == 3:
            s.user("Keep going, but remember: do not check out.")
    s.assistant(
        "The cheapest 27-inch USB-C monitor is Monitor 1, SKU MON-4101, $216.00. It is in the cart; I did not check out."
    )
    return s


def support_session() -> Session:
    s = Session("support")
    s.user(
        "Hi, I need to change my flight. My user id is ada_lovelace_1815 and the reservation is R7Q2XK."
    )
    reservation = {
        "reservation_id": "R7Q2XK",
        "user_id": "ada_lovelace_1815",
        "origin": "LHR",
        "destination": "JFK",
        "flights": [{"flight_number": "HAT0915", "date": "2026-12-03", "cabin": "economy"}],
        "payment_history": [{"payment_id": "credit_card_4421987", "amount": 612}],
    }
    c = s.assistant(
        "Let me look up the reservation.", "get_reservation_details", {"reservation_id": "R7Q2XK"}
    )
    s.result(c, json.dumps(reservation, indent=2))
    for day in range(4, 10):
        s.user(f"What about December {day}? I prefer a morning flight.")
        flights = [
            {
                "flight_number": f"HAT{900 + day * 10 + k:04d}",
                "departure": f"{7 + 3 * k:02d}:15",
                "price": 540 + 37 * k + day,
            }
            for k in range(4)
        ]
        c = s.assistant(
            f"Searching flights for 2026-12-{day:02d}.",
            "search_direct_flight",
            {"origin": "LHR", "destination": "JFK", "date": f"2026-12-{day:02d}"},
        )
        s.result(c, json.dumps(flights, indent=2))
        s.assistant(
            f"On December {day} the earliest is {flights[0]['flight_number']} at {flights[0]['departure']} for ${flights[0]['price']}."
        )
    s.user("Book the December 6 morning one, same cabin, same card.")
    c = s.assistant(
        "Updating the reservation.",
        "update_reservation_flights",
        {
            "reservation_id": "R7Q2XK",
            "cabin": "economy",
            "flights": [{"flight_number": "HAT0966", "date": "2026-12-06"}],
            "payment_id": "credit_card_4421987",
        },
    )
    s.result(
        c,
        json.dumps(
            {
                **reservation,
                "flights": [{"flight_number": "HAT0966", "date": "2026-12-06", "cabin": "economy"}],
            },
            indent=2,
        ),
    )
    s.assistant(
        "Done: reservation R7Q2XK now flies HAT0966 on 2026-12-06 in economy, paid with credit_card_4421987."
    )
    return s


def build() -> list[Path]:
    OUT.mkdir(exist_ok=True)
    written = []
    for session, model in (
        (coding_session(), "claude-sonnet-4-5"),
        (browser_session(), "claude-sonnet-4-5"),
        (support_session(), "gpt-4o"),
    ):
        path = OUT / f"demo-{session.name}.json"
        path.write_text(
            json.dumps(session.body(model), indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        written.append(path)
    return written


if __name__ == "__main__":
    for p in build():
        print(p, p.stat().st_size)
