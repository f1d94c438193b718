"""The proxy's local page in a real browser: headless Debian Chromium driven by Selenium.

A scripted agent loop (the official OpenAI SDK, as in ``test_proxy_loop``) goes through
``snapshot proxy`` to ``fake_upstream`` (an offline stand-in) until the proxy compacts;
then ``GET /`` is loaded in Chromium: the figures match the ledger, a page image
renders and is the PNG the upstream received, the key never shows; the switch is
clicked and the next request reaches the upstream byte for byte. With
``SNAPSHOT_PAGE_SCREENSHOT=PATH`` the screenshot is also saved there (the README's
``docs/img/proxy-page.png``).
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp")
openai = pytest.importorskip("openai")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if CHROMIUM is None or CHROMEDRIVER is None:
    pytest.skip(
        "needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)",
        allow_module_level=True,
    )

from fake_upstream import FakeUpstream, serve_in_thread  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from test_proxy_loop import TOOLS, _reply, tool_turn  # noqa: E402
from test_proxy_sdk import KEY, wait_for_ledger  # noqa: E402

from snapshot.proxy.app import Proxy, ProxyConfig  # noqa: E402

GPT = "gpt-5.5"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--window-size=1280,1700",
)


def _browser() -> Any:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    service = webdriver.ChromeService(executable_path=CHROMEDRIVER)
    return webdriver.Chrome(options=options, service=service)


def _text(driver: Any) -> str:
    """The page's visible text (retried: the page reloads itself every few seconds)."""
    for _ in range(20):
        try:
            return str(driver.find_element(By.TAG_NAME, "body").text)
        except StaleElementReferenceException:
            time.sleep(0.1)
    raise AssertionError("the page never settled")


def _pngs(body: dict[str, Any]) -> list[bytes]:
    found = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", json.dumps(body))
    return [base64.b64decode(b) for b in found]


def _agent_loop(client: Any, ledger: Path, turns: int) -> list[dict[str, Any]]:
    """Tool turns until a compaction has drawn pages (or ``turns`` run out)."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent. Read files until done."},
        {"role": "user", "content": "Audit every module under /src."},
    ]
    records: list[dict[str, Any]] = []
    for turn in range(turns):
        done = client.chat.completions.create(model=GPT, messages=messages, tools=TOOLS)
        call_id = done.choices[0].message.tool_calls[0].id
        records = wait_for_ledger(ledger, turn + 1)
        messages += tool_turn(call_id, turn)
        if any(r["plan"]["pages"] and not r["plan"]["reused_pass"] for r in records):
            break
    return records


def test_the_page_in_chromium_figures_pages_and_the_switch(tmp_path: Path) -> None:
    with FakeUpstream(limit=10**7, reply=_reply, max_requests=100) as fake:
        proxy = Proxy(
            ProxyConfig(
                upstream=fake.url,
                store=tmp_path / "store",
                ledger=tmp_path / "ledger",
                window=9000,
                threshold=0.8,
            ),
            log=lambda _line: None,
        )
        server = serve_in_thread(proxy.app, lifetime=240)
        base = f"http://127.0.0.1:{server.port}"
        client = openai.OpenAI(api_key=KEY, base_url=base + "/v1", max_retries=0, timeout=120)
        driver = None
        try:
            records = _agent_loop(client, tmp_path / "ledger", turns=62)
            drawn = [r for r in records if r["plan"]["pages"] and not r["plan"]["reused_pass"]]
            assert drawn, "the loop never drew pages"
            driver = _browser()
            driver.get(base + "/")
            text = _text(driver)

            # The figures are the ledger's: counted tokens saved and measured usage.
            saved = sum(
                r["plan"]["tokens_before"]["tokens"] - r["plan"]["tokens_after"]["tokens"]
                for r in records
            )
            assert saved > 0
            assert f"{saved:,} tokens" in text
            prompt = sum(r["usage"]["input"] + r["usage"]["cache_read"] for r in records)
            assert f"{prompt:,} (input" in text
            paid = sum(r["dollars"]["total"] for r in records)
            assert f"${paid:.4f}" in text
            # The counterfactual (offline, cache counted, modelled) beside the measured
            # dollars; the loop's reads hold no exact ids to cover.
            would = sum(r["counterfactual"]["dollars"]["total"] for r in records)
            assert re.search(rf"dollars as the client's text\s+\${would:.4f}", text)
            assert re.search(r"exact-id coverage\s+not measured", text)
            assert f"{len(records)} ({sum(r['plan']['compacted'] for r in records)} compacted)" in (
                text
            )
            assert KEY not in driver.page_source

            # A page image renders, is the PNG the upstream received, beside its text.
            img = driver.find_element(By.CSS_SELECTOR, ".page img")
            WebDriverWait(driver, 10).until(
                lambda d: d.execute_script(
                    "const i = document.querySelector('.page img');"
                    "return i.complete && i.naturalWidth > 0;"
                )
            )
            src = img.get_attribute("src")
            with urllib.request.urlopen(src, timeout=10) as reply:
                served = reply.read()
            sent = [png for a in fake.accepted for png in _pngs(a.body)]
            assert served in sent
            assert "/src/mod0.py" in driver.find_element(By.CSS_SELECTOR, ".page pre").text

            shot = tmp_path / "proxy-page.png"
            driver.save_screenshot(str(shot))
            assert shot.stat().st_size > 10_000
            target = os.environ.get("SNAPSHOT_PAGE_SCREENSHOT")
            if target:
                Path(target).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(shot, target)

            # Only loopback names: a page under another host name (DNS rebinding) is refused;
            # a POST from another origin cannot flip the switch.
            foreign = urllib.request.Request(base + "/", headers={"Host": "evil.example"})
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(foreign, timeout=10)
            assert refused.value.code == 403
            cross = urllib.request.Request(
                base + "/_snapshot/passthrough",
                data=b"on=1",
                headers={"Origin": "http://evil.example"},
            )
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(cross, timeout=10)
            assert refused.value.code == 403
            assert not proxy.page.passthrough

            # The switch: clicked, the page says so, the next request passes byte for byte.
            driver.find_element(By.ID, "switch").click()
            WebDriverWait(driver, 10).until(lambda d: "pass-through" in _text(d))
            assert proxy.page.passthrough
            accepted = len(fake.accepted)
            body = {
                "model": GPT,
                "messages": [
                    {"role": "system", "content": "You are a coding agent, café."},
                    {"role": "user", "content": "x " * 20_000},  # over the threshold
                ],
                "temperature": 0.25,
            }
            # Spacing, a raw "é" and a float spelt 0.250: bytes the proxy would not write.
            raw = json.dumps(body, indent=1, ensure_ascii=False).replace("0.25", "0.250").encode()
            request = urllib.request.Request(
                base + "/v1/chat/completions",
                data=raw,
                headers={"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"},
            )
            with urllib.request.urlopen(request, timeout=60) as reply:
                assert reply.status == 200
            assert len(fake.accepted) == accepted + 1
            assert fake.accepted[-1].raw == raw
            assert len(wait_for_ledger(tmp_path / "ledger", len(records), 0.5)) == len(records)
            # The page reloads itself and shows the request that went through.
            WebDriverWait(driver, 20).until(lambda d: "(1 so far)" in _text(d))
        finally:
            if driver is not None:
                driver.quit()
            server.stop()
