"""Real headless Chromium (Debian's, never a downloaded one) against pytest-django's
live_server. Playwright's sync API runs an event loop in the test thread, which makes Django
refuse ORM calls there unless told that this is safe; it is, since the loop never awaits ORM
work."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-gpu",
    "--disable-component-update",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).parent / "artifacts"
PASSWORD = "browser-test-password-7"


@pytest.fixture(scope="session")
def browser() -> Iterator:
    if not Path(CHROMIUM).exists():
        # A skipped browser test would prove nothing: make the missing install loud.
        pytest.fail(f"{CHROMIUM} is not installed: run `make test` (it installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser) -> Iterator:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-IN")
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


@pytest.fixture
def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def demo_users(transactional_db) -> dict[str, object]:
    from apps.accounts.roles import ANNOTATOR, RESEARCHER
    from apps.accounts.services import user_create_with_role

    return {
        "researcher": user_create_with_role(username="rekha", role=RESEARCHER, password=PASSWORD),
        "annotator": user_create_with_role(username="anu", role=ANNOTATOR, password=PASSWORD),
    }


@pytest.fixture
def demo_dataset(transactional_db):
    from apps.catalog.demo import demo_load
    from apps.catalog.models import Dataset

    demo_load()
    return Dataset.objects.get(name="demo")


@pytest.fixture
def open_as(browser, live_server) -> Iterator:
    """open_as(username, width=1280, height=720, touch=False) -> a signed-in page in a fresh
    browser context (its own cookies and localStorage, like a separate person's browser).
    Every context is closed when the test ends."""
    contexts = []

    def _open(username: str, *, width: int = 1280, height: int = 720, touch: bool = False):
        context = browser.new_context(
            viewport={"width": width, "height": height},
            locale="en-IN",
            has_touch=touch,
            is_mobile=touch,
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        login(page, live_server.url, username)
        return page

    yield _open
    for context in contexts:
        context.close()


def login(page, base_url: str, username: str, password: str = PASSWORD) -> None:
    """Sign in through the real login form, as a person would; wait for the page the role
    lands on (annotators: their campaigns, everyone else: the datasets)."""
    page.goto(f"{base_url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("main button[type=submit]")
    page.wait_for_url(lambda url: url.startswith(base_url) and "/accounts/login/" not in url)
