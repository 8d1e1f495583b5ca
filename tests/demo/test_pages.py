"""Server-rendered pages over the demo catalog, through Django's test client (the browser
tests drive the same pages in Chromium)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from apps.catalog.demo import demo_load
from apps.catalog.models import Dataset, Instance, StereotypeConcept
from apps.catalog.services import dataset_instantiate, instantiation_plan
from apps.core.models import Job

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo() -> Dataset:
    demo_load()
    return Dataset.objects.get(name="demo")


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_pages_need_a_login(demo):
    response = Client().get(reverse("web:dataset", args=[demo.pk]))
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_pages_need_a_role(demo, outsider):
    assert _client(outsider).get(reverse("web:home")).status_code == 403


def test_home_lists_the_demo_with_its_planned_count(demo, annotator):
    response = _client(annotator).get(reverse("web:home"))
    assert response.status_code == 200
    summary = next(s for s in response.context["summaries"] if s.dataset == demo)
    assert summary.planned == instantiation_plan(dataset=demo).total


def test_dataset_page_shows_exact_counts(demo, researcher):
    response = _client(researcher).get(reverse("web:dataset", args=[demo.pk]))
    plan = instantiation_plan(dataset=demo)
    html = response.content.decode()
    assert f'id="plan-total" data-testid="plan-total">{plan.total}<' in html
    for template_plan in plan.templates:
        assert f'id="plan-count-{template_plan.template_id}">{template_plan.count}<' in html
    assert 'id="instantiate-button"' in html


def test_annotator_sees_no_button_and_cannot_post(demo, annotator):
    client = _client(annotator)
    html = client.get(reverse("web:dataset", args=[demo.pk])).content.decode()
    assert "instantiate-button" not in html
    response = client.post(reverse("web:dataset-instantiate", args=[demo.pk]))
    assert response.status_code == 403
    assert not Job.objects.exists()


def test_researcher_post_queues_a_job_and_redirects(
    demo, researcher, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        response = _client(researcher).post(reverse("web:dataset-instantiate", args=[demo.pk]))
    job = Job.objects.get()
    assert len(callbacks) == 1  # the task is sent once the request's transaction commits
    assert job.kind == "instantiate" and job.params["dataset_id"] == demo.pk
    assert job.title == f"Instantiate dataset {demo.name}" and job.progress_unit == "instances"
    assert response.status_code == 302
    assert response["Location"] == reverse("jobs:detail", args=[job.pk])
    page = _client(researcher).get(response["Location"]).content.decode()
    assert f'data-api-url="/api/jobs/{job.pk}/"' in page
    assert f"Instantiate dataset {demo.name}" in page
    assert reverse("web:dataset", args=[demo.pk]) in page  # a link to the dataset


def test_instance_list_filters_and_marks_gold(demo, annotator):
    dataset_instantiate(dataset=demo)
    client = _client(annotator)
    url = reverse("web:instances", args=[demo.pk])
    response = client.get(url, {"language": "hi", "context_condition": "disambig"})
    expected = Instance.objects.filter(dataset=demo, language="hi", context_condition="disambig")
    assert response.context["total"] == expected.count() > 0
    rows = list(response.context["page_obj"].object_list)
    assert all(r.instance.language == "hi" for r in rows)
    for row in rows:
        gold = [o for o in row.options if o.gold]
        assert len(gold) == 1 and gold[0].text == row.instance.answers[row.instance.label]
    assert 'lang="hi"' in response.content.decode()
    # Pagination links keep the filters.
    html = client.get(url, {"language": "en"}).content.decode()
    assert "language=en&amp;page=2" in html


def test_template_page_shows_history_and_concept(demo, annotator):
    template = demo.templates.get(external_id="age-01a")
    html = _client(annotator).get(reverse("web:template", args=[template.pk])).content.decode()
    assert "v2 (current)" in html and "v1" in html
    assert template.current_version.concept.statement in html
    assert "https://en.wikipedia.org/wiki/Ageism" in html


def test_concepts_page_marks_the_inclusion_rule(demo, annotator):
    html = _client(annotator).get(reverse("web:concepts")).content.decode()
    usable = StereotypeConcept.objects.usable().count()
    assert html.count('data-usable="yes"') == usable
    assert html.count('data-usable="no"') == StereotypeConcept.objects.count() - usable


def test_releases_page_renders(demo, annotator):
    response = _client(annotator).get(reverse("releases:list", args=[demo.pk]))
    assert response.status_code == 200


def test_releases_page_lists_files_with_checksums_and_downloads(demo, annotator):
    from apps.releases.services import release_create

    dataset_instantiate(dataset=demo)
    release = release_create(dataset=demo, content="as_published")
    html = _client(annotator).get(reverse("releases:list", args=[demo.pk])).content.decode()
    export = reverse("release-export", args=[release.id])
    for fmt in ("jsonl", "csv", "parquet"):
        assert f'href="{export}?format={fmt}&amp;kind=instances"' in html
    files = list(release.files.all())
    assert len(files) == 12 + 4  # 4 kinds x 3 formats; README.md, card.json, CITATION.cff,
    #                              changelog.json
    documents = [f for f in files if f.kind in ("card", "citation", "changelog")]
    for release_file in files:
        # The list shows the data files; the documents are on the release's own page.
        assert (release_file.sha256 in html) == (release_file not in documents)
    page = _client(annotator).get(reverse("releases:detail", args=[release.pk])).content.decode()
    for release_file in files:
        assert release_file.sha256 in page
    assert 'id="release-button"' not in html  # annotators cannot release


def test_researcher_creates_a_release_from_the_page(
    demo, researcher, django_capture_on_commit_callbacks
):
    from apps.core.models import Job

    dataset_instantiate(dataset=demo)
    client = _client(researcher)
    assert (
        'id="release-button"'
        in client.get(reverse("releases:list", args=[demo.pk])).content.decode()
    )
    with django_capture_on_commit_callbacks() as callbacks:
        response = client.post(reverse("releases:create", args=[demo.pk]))
    job = Job.objects.get(kind="release")
    assert response.status_code == 302
    assert response["Location"] == reverse("jobs:detail", args=[job.pk])
    assert len(callbacks) == 1


def test_annotator_cannot_create_a_release(demo, annotator):
    response = _client(annotator).post(reverse("releases:create", args=[demo.pk]))
    assert response.status_code == 403
