"""An approval that queues an instantiation job succeeds even when the task broker is down: the
annotator's judgement is saved, and the job is failed with the broker named (the release form
lists the version as not instantiated). A broker failure must not turn a saved judgement into a
503 for the annotator."""

from __future__ import annotations

import pytest

from apps.core.models import Job
from tests.core.test_broker_down import broker_down  # noqa: F401 - the fixture

from .conftest import YES_ALL
from .test_review_to_release import _edit_one_of_two, _work

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def test_an_approval_with_the_broker_down_keeps_the_judgement_and_fails_only_the_job(
    broker_down,  # noqa: F811
    annotator,
    second_annotator,
    researcher,
):
    _, campaign, _, new = _edit_one_of_two(annotator, second_annotator, researcher)
    _work(campaign, lambda user, item: YES_ALL)  # raised BrokerUnavailable before
    new.refresh_from_db()
    assert new.status == "approved"
    job = Job.objects.get(kind="instantiate")
    assert job.status == "failed"
    assert "task broker" in job.error and broker_down in job.error
