"""Starts `inspect view` on a folder of logs and loads every sample the way the viewer does, over
its HTTP API; optionally opens one sample's page in headless Chromium.

Usage: python inspect_view_check.py LOG_DIR [PAGE_PATH EXPECTED_TEXT...]

For each log the server lists: `/api/logs/{log}` (the log as Inspect's reader validates it), then
the log's bytes from `/api/log-bytes/{log}` (what the viewer reads its entries from), its
`summaries.json` (each summary's error must be a text: the viewer calls `.includes` on it) and
every sample at the entry name the viewer computes, `samples/{id}_epoch_{epoch}.json`, validated
as Inspect's `EvalSample`. With PAGE_PATH (the part after `#`, as `/logs/x.eval/samples/sample/ID/1/transcript`),
the page is opened in headless Chromium (driven over its DevTools protocol) until it shows every
EXPECTED_TEXT or 60 s pass. Prints one JSON object.
"""

import asyncio
import io
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import zipfile

import aiohttp
import inspect_ai._util.zipfile  # noqa: F401  (zstd entries for the stdlib zipfile)
from inspect_ai.log import EvalSample


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(base, path):
    with urllib.request.urlopen(base + path, timeout=30) as response:
        return response.status, response.read()


def load_samples(base, name):
    quoted = urllib.parse.quote(name, safe="")
    status, _ = get(base, f"/api/logs/{quoted}")
    _, size = get(base, f"/api/log-size/{quoted}")
    _, data = get(base, f"/api/log-bytes/{quoted}?start=0&end={int(size) - 1}")
    report = {"log_status": status, "samples": []}
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        summaries = json.loads(z.read("summaries.json"))
        for summary in summaries:
            entry = f"samples/{summary['id']}_epoch_{summary['epoch']}.json"
            loaded = {"id": summary["id"], "epoch": summary["epoch"], "summary_error": summary.get("error")}
            try:
                sample = EvalSample.model_validate_json(z.read(entry))
                models = [
                    {"role": e.role, "model": e.model, "said": e.output.completion}
                    for e in sample.events
                    if e.event == "model"
                ]
                loaded.update(
                    loaded=True,
                    messages=len(sample.messages),
                    model_events=models,
                    tool_events=sum(1 for e in sample.events if e.event == "tool"),
                )
            except Exception as e:  # noqa: BLE001  (reported, the test says what failed)
                loaded.update(loaded=False, problem=f"{type(e).__name__}: {e}")
            report["samples"].append(loaded)
    return report


async def open_page(url, expected, timeout=60):
    port = free_port()
    profile = tempfile.mkdtemp()
    chrome = subprocess.Popen(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", f"--remote-debugging-port={port}",
         f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        page = None
        for _ in range(150):
            try:
                targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
                page = next(t for t in targets if t["type"] == "page")
                break
            except Exception:  # noqa: BLE001  (not up yet)
                time.sleep(0.2)
        errors = []
        async with aiohttp.ClientSession() as session, session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0) as ws:
            counter = iter(range(1, 1 << 30))

            async def call(method, **params):
                i = next(counter)
                await ws.send_json({"id": i, "method": method, "params": params})
                while True:
                    message = await ws.receive_json()
                    kind = message.get("method")
                    if kind == "Runtime.exceptionThrown":
                        details = message["params"]["exceptionDetails"]
                        errors.append(details.get("exception", {}).get("description") or details.get("text"))
                    elif kind == "Runtime.consoleAPICalled" and message["params"]["type"] == "error":
                        errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in message["params"]["args"]))
                    if message.get("id") == i:
                        return message.get("result", {})

            await call("Runtime.enable")
            await call("Page.enable")
            await call("Page.navigate", url=url)
            deadline = time.time() + timeout
            text = ""
            while time.time() < deadline:
                result = await call("Runtime.evaluate", expression="document.body ? document.body.innerText : ''", returnByValue=True)
                text = result.get("result", {}).get("value", "")
                if all(e in text for e in expected):
                    break
                await asyncio.sleep(0.5)
        return {"text": text, "found": [e for e in expected if e in text], "errors": errors}
    finally:
        chrome.kill()
        chrome.wait()


def main():
    log_dir = sys.argv[1]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "inspect_ai._cli.main", "view", "start", "--log-dir", log_dir, "--host", "127.0.0.1",
         "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        for _ in range(300):
            try:
                _, listing = get(base, "/api/log-files")
                break
            except Exception:  # noqa: BLE001  (not up yet)
                if server.poll() is not None:
                    raise SystemExit("inspect view exited: " + server.stderr.read().decode())
                time.sleep(0.2)
        files = json.loads(listing)["files"]
        report = {"logs": {}}
        for entry in files:
            name = entry["name"].removeprefix("file://")
            report["logs"][name.rsplit("/", 1)[-1]] = load_samples(base, name)
        if len(sys.argv) > 2:
            report["page"] = asyncio.run(open_page(base + "/#" + sys.argv[2], sys.argv[3:]))
        print(json.dumps(report))
    finally:
        server.terminate()
        server.wait()


main()
