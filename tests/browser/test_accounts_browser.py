"""Accounts and error pages in a real browser (issue 18, 2.8): password change and reset on
the app's own styled pages, linked from the navigation and the sign-in page; each role lands
on its own home after signing in; the app's own 404/405/500 pages also under DEBUG (`make
run`)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model

from .conftest import PASSWORD, login
from .support import assert_fits, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

NEW_PASSWORD = "a-new-browser-password-9"
WIDTHS = (1366, 390)


def assert_app_page(page) -> None:
    """One of Kasauti's own pages (top bar, stylesheet), not Django's admin or debug page."""
    assert page.locator("header.topbar .brand").count() == 1
    assert page.evaluate(
        "() => [...document.styleSheets].some(s => (s.href || '').endsWith('/css/app.css'))"
    )
    html = page.content()
    assert "Django administration" not in html
    assert "You're seeing this error because you have" not in html
    assert "Using the URLconf" not in html


def look(page, name: str) -> None:
    """Screenshot the page at each width (1366 and 390 px) after checking it fits."""
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        assert_fits(page)
        shot(page, f"{name}_{width}", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 720})


def fresh_page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-IN")
    page = context.new_page()
    page.set_default_timeout(15_000)
    return context, page


def test_forgot_password_from_the_sign_in_page(live_server, browser, demo_users, mailoutbox):
    get_user_model().objects.filter(username="rekha").update(email="rekha@example.org")
    base = live_server.url
    context, page = fresh_page(browser)
    try:
        page.goto(f"{base}/accounts/login/")
        look(page, "login")
        page.click("a#forgot-password")
        page.wait_for_url(f"{base}/accounts/password_reset/")
        assert_app_page(page)
        look(page, "password_reset_form")

        page.fill("#id_email", "rekha@example.org")
        page.click("button[type=submit]")
        page.wait_for_url(f"{base}/accounts/password_reset/done/")
        assert_app_page(page)
        assert "rekha@example.org" not in page.text_content("main")  # no account probing
        look(page, "password_reset_done")

        assert len(mailoutbox) == 1
        mail = mailoutbox[0]
        assert mail.to == ["rekha@example.org"] and "Kasauti" in mail.subject
        assert "rekha" in mail.body
        link = re.search(r"https?://\S+/accounts/reset/\S+/", mail.body).group(0)
        page.goto(link)
        page.wait_for_selector("#set-password")
        assert_app_page(page)
        look(page, "password_reset_confirm")
        page.fill("#id_new_password1", NEW_PASSWORD)
        page.fill("#id_new_password2", NEW_PASSWORD)
        page.click("#set-password button[type=submit]")
        page.wait_for_url(f"{base}/accounts/reset/done/")
        assert_app_page(page)
        look(page, "password_reset_complete")

        page.click("main a[href='/accounts/login/']")
        login(page, base, "rekha", NEW_PASSWORD)
        assert page.text_content("[data-testid=current-user]").strip() == "rekha"
        # The link worked once.
        page.goto(link)
        assert "no longer valid" in page.text_content("main")
    finally:
        context.close()


def test_change_password_from_the_navigation(live_server, open_as, demo_users):
    base = live_server.url
    page = open_as("rekha")
    page.click("header.topbar a#change-password")
    page.wait_for_url(f"{base}/accounts/password_change/")
    assert_app_page(page)
    look(page, "password_change_form")

    # A wrong current password: the styled form says so and nothing changes.
    page.fill("#id_old_password", "not-my-password")
    page.fill("#id_new_password1", NEW_PASSWORD)
    page.fill("#id_new_password2", NEW_PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_selector("#password-change .errorlist")
    assert "incorrect" in page.text_content("#password-change .errorlist")
    assert_app_page(page)
    shot(page, "password_change_error")
    assert get_user_model().objects.get(username="rekha").check_password(PASSWORD)

    page.fill("#id_old_password", PASSWORD)
    page.fill("#id_new_password1", NEW_PASSWORD)
    page.fill("#id_new_password2", NEW_PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{base}/accounts/password_change/done/")
    assert_app_page(page)
    look(page, "password_change_done")
    assert get_user_model().objects.get(username="rekha").check_password(NEW_PASSWORD)

    # The annotator has the link too.
    anu = open_as("anu")
    assert anu.locator("header.topbar a#change-password").is_visible()
    anu.set_viewport_size({"width": 390, "height": 800})
    assert anu.locator("header.topbar a#change-password").is_visible()
    assert_fits(anu)
    shot(anu, "topbar_annotator_390")


def test_each_role_lands_on_its_home(live_server, open_as, demo_users):
    base = live_server.url
    anu = open_as("anu")
    assert anu.url == f"{base}/annotate/"
    assert anu.locator("#campaigns").is_visible()

    rekha = open_as("rekha")
    assert rekha.url == f"{base}/"

    # A page asked for before signing in still wins over the role's home.
    anu.context.clear_cookies()
    anu.goto(f"{base}/jobs/")
    anu.wait_for_url(f"{base}/accounts/login/?next=/jobs/")
    anu.fill("#id_username", "anu")
    anu.fill("#id_password", PASSWORD)
    anu.click("main button[type=submit]")
    anu.wait_for_url(f"{base}/jobs/")


def test_the_apps_own_error_pages_under_debug(
    live_server, open_as, demo_users, demo_dataset, settings
):
    """`make run` runs with DEBUG on: a mistyped address, a missing object and a GET on a
    form's POST-only address still get Kasauti's pages, not Django's debug pages."""
    settings.DEBUG = True
    base = live_server.url
    page = open_as("rekha")

    response = page.goto(f"{base}/no-such-page/")
    assert response.status == 404
    assert_app_page(page)
    assert page.text_content("h1").strip() == "Page not found"
    look(page, "error_404")

    response = page.goto(f"{base}/datasets/999999/")
    assert response.status == 404
    assert_app_page(page)
    assert page.text_content("h1").strip() == "Page not found"

    # 405: what the address is for and the link to its form.
    response = page.goto(f"{base}/evaluation/models/new/")
    assert response.status == 405
    assert_app_page(page)
    assert "registers a model" in page.text_content("main")
    look(page, "error_405_model_new")
    page.click("a#form-page")
    page.wait_for_url(f"{base}/evaluation/models/")
    assert page.locator("main form").count() >= 1

    response = page.goto(f"{base}/datasets/{demo_dataset.pk}/releases/new/")
    assert response.status == 405
    assert_app_page(page)
    assert "release" in page.text_content("main")
    page.click("a#form-page")
    page.wait_for_url(f"{base}/datasets/{demo_dataset.pk}/releases/")


def test_the_405_page_without_debug(live_server, open_as, demo_users, demo_dataset):
    page = open_as("rekha")
    response = page.goto(f"{live_server.url}/datasets/{demo_dataset.pk}/instantiate/")
    assert response.status == 405
    assert_app_page(page)
    assert "instantiates" in page.text_content("main")
    assert page.get_attribute("a#form-page", "href") == f"/datasets/{demo_dataset.pk}/"
