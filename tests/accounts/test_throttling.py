"""Password attempts are rate-limited on the token endpoint and on both sign-in pages."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

TOKEN_URL = "/api/auth/token/"


@pytest.fixture
def rates(settings):
    """Small limits so a test needs few attempts; the mechanism is the production one."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"password_address": "8/min", "password_username": "5/min"},
    }
    # DRF reads the rates when the throttle class is defined: point it at the new ones.
    from apps.accounts import throttles

    for throttle in throttles.PASSWORD_THROTTLES:
        throttle.THROTTLE_RATES = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    yield
    from rest_framework.settings import api_settings

    for throttle in throttles.PASSWORD_THROTTLES:
        throttle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES


def test_token_endpoint_throttles_wrong_passwords_per_username(rates, researcher) -> None:
    client = APIClient()
    codes = [
        client.post(TOKEN_URL, {"username": "rekha", "password": f"wrong-{i}"}).status_code
        for i in range(7)
    ]
    assert codes == [400] * 5 + [429] * 2
    refused = client.post(TOKEN_URL, {"username": "rekha", "password": PASSWORD})
    # Even the right password is refused while the limit holds: the limit is on attempts.
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0


def test_token_endpoint_throttles_per_address_across_usernames(rates, researcher) -> None:
    client = APIClient()
    codes = [
        client.post(TOKEN_URL, {"username": f"user{i}", "password": "x"}).status_code
        for i in range(10)
    ]
    assert codes == [400] * 8 + [429] * 2
    # Another client address is not affected.
    other = APIClient(REMOTE_ADDR="10.1.2.3")
    ok = other.post(TOKEN_URL, {"username": "rekha", "password": PASSWORD})
    assert ok.status_code == 200 and ok.json()["token"]


def test_token_endpoint_still_works_under_the_limit(researcher) -> None:
    response = APIClient().post(TOKEN_URL, {"username": "rekha", "password": PASSWORD})
    assert response.status_code == 200


@pytest.mark.parametrize("url", ["/accounts/login/", "/admin/login/"])
def test_login_pages_throttle_wrong_passwords(rates, client, researcher, url) -> None:
    codes = [
        client.post(url, {"username": "rekha", "password": f"wrong-{i}"}).status_code
        for i in range(6)
    ]
    assert codes == [200] * 5 + [429]  # 200: the form again, with its error
    throttled = client.post(url, {"username": "rekha", "password": PASSWORD})
    assert throttled.status_code == 429
    assert "Too many sign-in attempts" in throttled.content.decode()
    assert int(throttled["Retry-After"]) > 0
    assert "_auth_user_id" not in client.session  # not signed in


def test_login_page_signs_in_and_get_is_not_counted(rates, client, researcher) -> None:
    for _ in range(20):
        assert client.get("/accounts/login/").status_code == 200
    response = client.post("/accounts/login/", {"username": "rekha", "password": PASSWORD})
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(researcher.pk)


def test_a_forged_x_forwarded_for_does_not_reset_the_address_limit(rates, researcher) -> None:
    client = APIClient()
    codes = [
        client.post(
            TOKEN_URL,
            {"username": f"user{i}", "password": "x"},
            HTTP_X_FORWARDED_FOR=f"10.9.9.{i}",
        ).status_code
        for i in range(10)
    ]
    assert codes == [400] * 8 + [429] * 2
