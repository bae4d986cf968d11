"""/docs in a real headless browser: Chromium, driven over the Chrome DevTools Protocol (a
websocket; no browser-automation framework), opens the page, runs "Try it out" on
/v1/embeddings with a sentence and reads the vector's length from the response shown on the
page; a screenshot goes to the test's temporary directory. Skipped when Chromium is not
installed (scripts/setup.sh installs Debian's ``chromium`` where it can)."""

import base64
import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.serve.server import model_dir_fixture, server_fixture  # noqa: F401 - fixtures

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
OPERATION = "#operations-default-embeddings"
SENTENCE = "a man is playing guitar"


def browser_path() -> str | None:
    return next((path for name in BROWSERS if (path := shutil.which(name))), None)


class DevTools:
    """Commands to one page over the DevTools websocket (events are read and dropped)."""

    def __init__(self, url: str) -> None:
        import websocket

        self.socket = websocket.create_connection(url, timeout=60, suppress_origin=True)
        self.last_id = 0

    def call(self, method: str, **params):
        self.last_id += 1
        self.socket.send(json.dumps({"id": self.last_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self.last_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, what: str, seconds: float = 60):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"the page never showed {what}")

    def click(self, selector: str, what: str) -> None:
        self.wait_for(f"!!document.querySelector({json.dumps(selector)})", what)
        self.evaluate(f"document.querySelector({json.dumps(selector)}).click()")


def start_browser(executable: str, profile: Path, log: Path) -> tuple[subprocess.Popen, str]:
    """Headless Chromium with DevTools on a free port; the websocket URL of its page."""
    import httpx

    command = [
        executable,
        "--headless=new",
        "--no-sandbox",  # root in containers and CI
        "--disable-gpu",
        "--no-first-run",
        "--remote-debugging-port=0",
        "--remote-allow-origins=*",
        f"--user-data-dir={profile}",
        "--window-size=1280,2000",
        "about:blank",
    ]
    with open(log, "w") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    port_file = profile / "DevToolsActivePort"
    deadline = time.monotonic() + 60
    while not port_file.is_file() or not port_file.read_text().strip():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.skip(f"chromium did not start: {log.read_text()[-500:]}")
        time.sleep(0.1)
    port = port_file.read_text().split()[0]
    pages = httpx.get(f"http://127.0.0.1:{port}/json/list", timeout=30).json()
    return process, next(p["webSocketDebuggerUrl"] for p in pages if p["type"] == "page")


def test_try_it_out_on_embeddings_in_a_real_browser(server, tmp_path):
    pytest.importorskip("websocket", reason="the test extra has websocket-client")
    pytest.importorskip("swagger_ui", reason="the serve extra has swagger-ui-py")
    executable = browser_path()
    if executable is None:
        pytest.skip("no chromium on this machine (scripts/setup.sh installs it where apt-get can)")
    process, page_url = start_browser(executable, tmp_path / "profile", tmp_path / "chromium.log")
    started = time.monotonic()
    try:
        page = DevTools(page_url)
        page.call("Page.enable")
        page.call("Page.navigate", url=f"{server}/docs")
        page.click(f"{OPERATION} .opblock-summary-control", "the /v1/embeddings operation")
        page.click(f"{OPERATION} .try-out__btn", 'the "Try it out" button')
        textarea = f"{OPERATION} textarea.body-param__text"
        page.wait_for(f"!!document.querySelector({json.dumps(textarea)})", "the request body editor")
        page.evaluate(f"(t => {{ t.focus(); t.select(); }})(document.querySelector({json.dumps(textarea)}))")
        page.call("Input.insertText", text=json.dumps({"input": SENTENCE}))  # typed, as a user would
        page.click(f"{OPERATION} button.execute", 'the "Execute" button')
        shown = page.wait_for(
            f"(document.querySelector('{OPERATION} .live-responses-table tbody .response-col_description pre')"
            " || {}).textContent",
            "the response body",
        )
        status = page.evaluate(
            f"document.querySelector('{OPERATION} .live-responses-table tbody .response-col_status').textContent"
        )
        shot = page.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        (tmp_path / "docs-try-it-out.png").write_bytes(base64.b64decode(shot["data"]))
    finally:
        process.kill()
        process.wait()
    elapsed = time.monotonic() - started
    body = json.loads(shown)
    length = len(body["data"][0]["embedding"])
    print(
        f"\n/docs in {executable}: status {status.strip()}, vector length {length}, {elapsed:.1f} s; "
        f"screenshot {tmp_path / 'docs-try-it-out.png'}"
    )
    assert status.strip().startswith("200")
    assert length == 8 and body["usage"]["prompt_tokens"] == 5  # the test model: 8 dimensions
    assert (tmp_path / "docs-try-it-out.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
