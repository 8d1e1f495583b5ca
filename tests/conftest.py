"""Persona fixtures and API clients shared by the whole suite."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from apps.accounts.roles import ADMIN, ANNOTATOR, RESEARCHER
from apps.accounts.services import user_create_with_role

PASSWORD = "correct-horse-battery-staple"


@pytest.fixture(scope="session")
def tiny_gpt2_dir(tmp_path_factory):
    """A tiny random GPT-2 + byte-level BPE tokenizer (worker/engines/tiny_lm.py), read-only."""
    from worker.engines.tiny_lm import build_tiny_gpt2

    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny_gpt2"))


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory):
    """A tiny random BERT masked LM + tokenizer (worker/engines/tiny_lm.py), read-only."""
    from worker.engines.tiny_lm import build_tiny_bert

    return build_tiny_bert(tmp_path_factory.mktemp("tiny_bert"))


@pytest.fixture
def annotator(db):
    return user_create_with_role(username="anu", role=ANNOTATOR, password=PASSWORD)


@pytest.fixture
def researcher(db):
    return user_create_with_role(username="rekha", role=RESEARCHER, password=PASSWORD)


@pytest.fixture
def admin_user(db):
    return user_create_with_role(username="ada", role=ADMIN, password=PASSWORD)


@pytest.fixture
def outsider(db):
    """Signed in, but with no Kasauti role."""
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username="otto", password=PASSWORD)


def _client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=user)
    return client


@pytest.fixture
def annotator_client(annotator) -> APIClient:
    return _client_for(annotator)


@pytest.fixture
def researcher_client(researcher) -> APIClient:
    return _client_for(researcher)


@pytest.fixture
def outsider_client(outsider) -> APIClient:
    return _client_for(outsider)


@pytest.fixture
def anonymous_client() -> APIClient:
    return APIClient()


@pytest.fixture
def celery_worker_process(django_db_serialized_rollback, transactional_db, tmp_path):
    """A real Celery worker subprocess on the test database and the Redis test broker.
    Serialized rollback restores the migrations' base data (categories, unknown expressions)
    that the transactional flush would otherwise wipe for the tests that follow."""
    from tests.workers import WorkerProcess, purge_test_broker

    purge_test_broker()
    worker = WorkerProcess(log=tmp_path / "worker.log").start()
    yield worker
    worker.stop()


_serialized_contents: dict[str, str] = {}


@pytest.fixture(autouse=True)
def _keep_serialized_test_data():
    """Keep serialized_rollback working after Playwright has started.

    Django keeps its connections in context-local storage; once Playwright's sync API runs its
    event loop, the test thread gets fresh connection objects without the serialized copy of
    the migrations' base data, and serialized_rollback would silently restore nothing. Capture
    the copy while it is there and put it back on whichever connection object is current."""
    from django.db import connections

    connection = connections["default"]
    contents = getattr(connection, "_test_serialized_contents", None)
    if contents is not None:
        _serialized_contents["default"] = contents
    elif "default" in _serialized_contents:
        connection._test_serialized_contents = _serialized_contents["default"]
    yield


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """Password-attempt counters live in the cache: every test starts with none, so the
    sign-ins of one test never throttle the next."""
    from django.core.cache import cache

    cache.clear()
    yield


def pytest_collection_modifyitems(config, items):
    """Refuse a transactional test without serialized_rollback: its teardown flush re-creates
    the content types and permissions (post_migrate), and every serialized_rollback test after
    it then fails at setup on duplicate content types, wherever the two land in the order.
    The suite mixes the two kinds only if it must; here it need not."""
    offenders = []
    for item in items:
        marker = item.get_closest_marker("django_db")
        kwargs = marker.kwargs if marker else {}
        names = set(getattr(item, "fixturenames", ()))
        transactional = kwargs.get("transaction") or "transactional_db" in names
        serialized = kwargs.get("serialized_rollback") or "django_db_serialized_rollback" in names
        if transactional and not serialized:
            offenders.append(item.nodeid)
    if offenders:
        raise pytest.UsageError(
            "transactional tests must also use serialized_rollback=True "
            "(pytest.mark.django_db(transaction=True, serialized_rollback=True)):\n  "
            + "\n  ".join(offenders)
        )
