"""Annotation fixtures: two annotators with languages, a dataset of validated-to-be templates."""

from __future__ import annotations

import pytest

from apps.accounts.roles import ANNOTATOR
from apps.accounts.services import user_create_with_role
from apps.annotation.services import annotator_update
from tests.conftest import PASSWORD, _client_for
from tests.factories import TemplateFactory, TemplateVersionFactory


@pytest.fixture
def annotator(db):
    user = user_create_with_role(username="anu", role=ANNOTATOR, password=PASSWORD)
    annotator_update(user=user, languages=["en", "hi"])
    return user


@pytest.fixture
def second_annotator(db):
    user = user_create_with_role(username="bela", role=ANNOTATOR, password=PASSWORD)
    annotator_update(user=user, languages=["en", "hi"])
    return user


@pytest.fixture
def second_annotator_client(second_annotator):
    return _client_for(second_annotator)


@pytest.fixture
def templates(db):
    """Three templates in one dataset, one version each (draft)."""
    first = TemplateVersionFactory()
    dataset = first.template.dataset
    others = [TemplateVersionFactory(template=TemplateFactory(dataset=dataset)) for _ in range(2)]
    return [first, *others]


YES_ALL = {"a": "yes", "b": "yes", "c": "yes"}
