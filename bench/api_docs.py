"""/api/docs/ load time: Swagger UI in headless Chromium against gunicorn on loopback, and the
/api/schema/ request it makes (issue 18, 2.9).

Measured, with one gunicorn worker (the URLconf already imported by the /healthz start-up
probe, as a running server has it):
  * /api/schema/ fetched 6 times (JSON, as Swagger UI asks for it, and YAML, the default);
  * /api/docs/ opened 5 times, each in a fresh browser context (no HTTP cache), from
    navigation until Swagger UI shows the API's tags (`.opblock-tag`; with the tags unfolded,
    as before the change, the operations are drawn by then too).

Run: python bench/api_docs.py   (PostgreSQL on 127.0.0.1, trust auth; Debian's chromium)
To measure the code before a change, run this file from an export of that commit:
  git archive <commit> | tar -x -C /tmp/before && cp bench/api_docs.py /tmp/before/bench/
  python /tmp/before/bench/api_docs.py
"""

from __future__ import annotations

import statistics
import time
import urllib.request

from _db import bench_database
from _server import gunicorn

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-gpu", "--no-first-run"]


def fetch_ms(url: str, accept: str) -> float:
    request = urllib.request.Request(url, headers={"Accept": accept})
    start = time.perf_counter()
    urllib.request.urlopen(request, timeout=120).read()
    return (time.perf_counter() - start) * 1000


def summary(values: list[float]) -> str:
    return (
        f"first {values[0]:.0f} ms, then median {statistics.median(values[1:]):.0f} ms"
        f" (min {min(values[1:]):.0f}, max {max(values[1:]):.0f})"
    )


def main() -> None:
    from playwright.sync_api import sync_playwright

    with bench_database("kasauti_bench_docs"), gunicorn(workers=1, threads=2) as base:
        json_times = [fetch_ms(f"{base}/api/schema/", "application/json") for _ in range(6)]
        yaml_times = [fetch_ms(f"{base}/api/schema/", "*/*") for _ in range(6)]
        page_times = []
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            for _ in range(5):
                context = browser.new_context()
                page = context.new_page()
                start = time.perf_counter()
                page.goto(f"{base}/api/docs/")
                page.wait_for_selector(".opblock-tag", timeout=120_000)
                page_times.append((time.perf_counter() - start) * 1000)
                context.close()
            browser.close()
    print(f"/api/schema/ JSON: {summary(json_times)}")
    print(f"/api/schema/ YAML: {summary(yaml_times)}")
    print(f"/api/docs/ until the API's tags show: {summary(page_times)}")


if __name__ == "__main__":
    main()
