"""API permissions and validation, pages, bad configuration, the demo-model command."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from apps.translation import services
from apps.translation.models import (
    CorrectionItem,
    TranslatedString,
    TranslationChunk,
    TranslationJob,
)
from tests.factories import DatasetFactory

from .conftest import make_dataset, threshold_inside

pytestmark = pytest.mark.django_db
URL = "/api/translation-jobs/"


def test_annotator_cannot_start_a_job_but_can_read(annotator_client, inline_queue):
    dataset = make_dataset()
    response = annotator_client.post(URL, {"dataset": dataset.pk, "languages": ["hi"]}, "json")
    assert response.status_code == 403
    assert not TranslationJob.objects.exists()
    assert annotator_client.get(URL).status_code == 200
    assert annotator_client.get("/api/corrections/?status=open").status_code == 200


def test_outsider_and_anonymous_are_refused(outsider_client, anonymous_client):
    assert outsider_client.get(URL).status_code == 403
    assert anonymous_client.get(URL).status_code in (401, 403)
    assert outsider_client.get("/api/corrections/").status_code == 403


def test_researcher_starts_cancels_and_reads_a_job(researcher_client, inline_queue, real_engines):
    dataset = make_dataset()
    threshold = threshold_inside(dataset, ["hi", "mr"])
    response = researcher_client.post(
        URL, {"dataset": dataset.pk, "languages": ["hi", "mr"], "threshold": threshold}, "json"
    )
    assert response.status_code == 202, response.json()
    job_id = response.json()["id"]
    core_id = response.json()["job"]["id"]
    assert job_id == core_id  # one id (ISSUE18 4.7)
    assert response.json()["job"]["status"] == "queued"
    translation_pk = TranslationJob.objects.get(core_job_id=core_id).pk
    assert inline_queue.messages == [("start", translation_pk)]
    inline_queue.drain()
    body = researcher_client.get(f"{URL}{job_id}/").json()
    state = body["job"]
    assert state["status"] == "succeeded", state["error"]
    # The one job API tells the same story.
    assert researcher_client.get(f"/api/jobs/{core_id}/").json() == state
    assert state["title"] == f"Translate dataset {dataset.name} into hi, mr"
    assert state["progress_unit"] == "strings"
    assert state["progress_done"] == state["progress_total"] == 2 * body["unique_strings"] > 0
    assert set(body["progress_by_language"]) == {"hi", "mr"}
    assert [part["done"] for part in state["parts"]] == [body["unique_strings"]] * 2
    assert any(link["label"] == "View instances (hi)" for link in state["links"])
    assert state["summary"] and "unique strings" in state["summary"][0]
    body["result"] = state["result"]
    body["total_strings"] = state["progress_total"]

    stored = TranslatedString.objects.filter(produced_by_id=translation_pk)
    strings = researcher_client.get(f"/api/translated-strings/?job={job_id}&language=hi").json()
    assert strings["count"] == body["unique_strings"]
    assert {row["id"] for row in strings["results"]} == set(
        stored.filter(language="hi").values_list("id", flat=True)
    )
    flagged = researcher_client.get(f"/api/translated-strings/?job={job_id}&passed=false").json()
    passed = researcher_client.get(f"/api/translated-strings/?job={job_id}&passed=true").json()
    assert flagged["count"] == stored.filter(similarity__lt=threshold).count() > 0
    assert passed["count"] == stored.filter(similarity__gte=threshold).count() > 0
    assert flagged["count"] + passed["count"] == body["total_strings"]
    assert all(row["similarity"] < threshold for row in flagged["results"])
    assert all(row["similarity"] >= threshold for row in passed["results"])

    # The open queue: one item per flagged string plus the option mismatches of the assembly.
    corrections = researcher_client.get(f"/api/corrections/?status=open&job={job_id}").json()
    mismatches = sum(e["option_mismatches"] for e in body["result"]["by_language"].values())
    assert corrections["count"] == flagged["count"] + mismatches
    low = [row for row in corrections["results"] if row["kind"] == "low_similarity"]
    assert {row["translated_string"] for row in low} == {row["id"] for row in flagged["results"]}
    assert all(row["reason"].startswith("low similarity") for row in low)

    assert researcher_client.post(f"/api/jobs/{core_id}/cancel/").status_code == 409
    assert researcher_client.post(f"/api/jobs/{core_id}/resume/").status_code == 409


def test_cancel_and_resume_through_the_job_api(researcher_client, annotator_client, inline_queue):
    dataset = make_dataset()
    response = researcher_client.post(URL, {"dataset": dataset.pk, "languages": ["hi"]}, "json")
    core_id = response.json()["job"]["id"]
    assert annotator_client.post(f"/api/jobs/{core_id}/cancel/").status_code == 403
    cancelled = researcher_client.post(f"/api/jobs/{core_id}/cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    inline_queue.messages.clear()
    resumed = researcher_client.post(f"/api/jobs/{core_id}/resume/")
    assert resumed.status_code == 202 and resumed.json()["status"] == "queued"
    translation = TranslationJob.objects.get(core_job_id=core_id)
    assert inline_queue.messages == [("start", translation.pk)]


def test_wrong_language_code_is_a_400(researcher_client, inline_queue):
    dataset = make_dataset()
    response = researcher_client.post(URL, {"dataset": dataset.pk, "languages": ["xx"]}, "json")
    assert response.status_code == 400
    assert "xx" in str(response.json())
    assert not TranslationJob.objects.exists() and not inline_queue.messages


def test_empty_dataset_is_a_400(researcher_client, inline_queue):
    dataset = DatasetFactory()
    response = researcher_client.post(URL, {"dataset": dataset.pk, "languages": ["hi"]}, "json")
    assert response.status_code == 400
    assert "nothing to translate" in response.json()["detail"]
    assert not TranslationJob.objects.exists()


def _assert_failed_and_clean(job: TranslationJob, *fragments: str) -> None:
    job.refresh_from_db()
    assert job.status == "failed"
    for fragment in fragments:
        assert fragment in job.error, job.error
    assert job.core_job.status == "failed"
    assert not TranslationChunk.objects.filter(job=job).exists()
    assert not TranslatedString.objects.exists()
    assert not CorrectionItem.objects.exists()


def test_missing_model_directory_fails_the_job_with_the_reason(settings, tmp_path, inline_queue):
    missing = tmp_path / "nowhere" / "indictrans2-en-indic"
    settings.KASAUTI_MODELS = {**settings.KASAUTI_MODELS, "indictrans2_en_indic": str(missing)}
    job = services.translation_job_create(dataset=make_dataset(), languages=["hi"])
    inline_queue.drain()
    _assert_failed_and_clean(job, str(missing), "README.md#getting-the-model-weights")


def _job_bypassing_validation(dataset, languages) -> TranslationJob:
    """A job row as an older version or another client might have queued it."""
    from apps.core.services import job_create

    core = job_create(kind="translate", params={"dataset_id": dataset.pk})
    return TranslationJob.objects.create(core_job=core, dataset=dataset, languages=languages)


def test_wrong_language_reaching_the_worker_fails_the_job(real_engines, inline_queue):
    dataset = make_dataset()
    job = _job_bypassing_validation(dataset, ["hi", "xx"])
    services.translation_job_start(job_id=job.pk)
    _assert_failed_and_clean_no_core(job, "unknown target language 'xx'")


def test_empty_dataset_reaching_the_worker_fails_the_job(real_engines, inline_queue):
    job = _job_bypassing_validation(DatasetFactory(), ["hi"])
    services.translation_job_start(job_id=job.pk)
    _assert_failed_and_clean_no_core(job, "nothing to translate")


def _assert_failed_and_clean_no_core(job: TranslationJob, fragment: str) -> None:
    job.refresh_from_db()
    assert job.status == "failed" and fragment in job.error, job.error
    assert not TranslationChunk.objects.filter(job=job).exists()
    assert not TranslatedString.objects.exists()


def test_pages(client, researcher, annotator, inline_queue, real_engines):
    dataset = make_dataset()
    threshold = threshold_inside(dataset, ["hi", "ta"])
    client.force_login(researcher)
    page = client.get(f"/translation/jobs/new/?dataset={dataset.pk}")
    assert page.status_code == 200 and b"Start translation" in page.content
    response = client.post(
        "/translation/jobs/new/",
        {
            "dataset": dataset.pk,
            "languages": ["hi", "ta"],
            "threshold": threshold,
            "source": "instances",
        },
    )
    job = TranslationJob.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/jobs/{job.core_job_id}/"
    inline_queue.drain()
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    # The old address leads to the job page, the one page of every job.
    assert client.get(f"/translation/jobs/{job.pk}/")["Location"] == f"/jobs/{job.core_job_id}/"
    page = client.get(f"/jobs/{job.core_job_id}/")
    assert page.status_code == 200
    assert b"job-progress" in page.content and b"Similarity" in page.content
    assert f"Translate dataset {dataset.name} into hi, ta".encode() in page.content
    # One badge per string (all on the first page), judged by the job's threshold.
    stored = TranslatedString.objects.filter(produced_by=job)
    assert stored.count() == job.total_strings <= 50
    content = page.content.decode()
    assert (
        content.count('class="badge ok">pass<')
        == stored.filter(similarity__gte=job.threshold).count()
        > 0
    )
    assert (
        content.count('class="badge job-failed">flag<')
        == stored.filter(similarity__lt=job.threshold).count()
        > 0
    )
    for string in stored:
        assert string.source_text.replace("'", "&#x27;") in content
    assert client.get("/translation/jobs/").status_code == 200

    client.force_login(annotator)
    assert client.get(f"/jobs/{job.core_job_id}/").status_code == 200
    assert client.get("/translation/jobs/new/").status_code == 403


def test_openapi_schema_has_no_warnings(researcher_client, capsys):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", "/dev/null")


def test_build_demo_models(tmp_path):
    from io import StringIO

    out = StringIO()
    call_command("build_demo_models", "--output", str(tmp_path), stdout=out)
    for name in ("indictrans2-en-indic", "indictrans2-indic-en"):
        model = tmp_path / name
        assert (model / "model.bin").is_file() and (model / "vocab" / "model.SRC").is_file()
        assert (model / "MODEL_VERSION").read_text().startswith("demo-random-weights")
    assert "gibberish" in out.getvalue()


def test_one_id_the_core_job_id_everywhere(researcher_client, inline_queue, real_engines):
    """ISSUE18 4.7: pages show the core job id (/jobs/<id>/); the API takes that same id for
    `?job=` and the job resource, and names jobs by it. An unrelated core job first, so the
    two ids differ (on a fresh database they used to coincide and hide the bug)."""
    from apps.core.models import Job

    Job.objects.create(kind="translate", title="another job")
    dataset = make_dataset()
    threshold = threshold_inside(dataset, ["hi"])
    response = researcher_client.post(
        URL, {"dataset": dataset.pk, "languages": ["hi"], "threshold": threshold}, "json"
    )
    body = response.json()
    core_id = body["job"]["id"]
    assert body["id"] == core_id
    translation = TranslationJob.objects.get(core_job_id=core_id)
    assert translation.pk != core_id
    inline_queue.drain()
    translation.refresh_from_db()
    assert researcher_client.get(f"{URL}{core_id}/").json()["job"]["status"] == "succeeded"
    strings = researcher_client.get(f"/api/translated-strings/?job={core_id}").json()
    assert strings["count"] == translation.unique_strings > 0
    assert {row["produced_by"] for row in strings["results"]} == {core_id}
    flagged = researcher_client.get(f"/api/corrections/?job={core_id}").json()
    assert flagged["count"] > 0 and {row["job"] for row in flagged["results"]} == {core_id}
    # The translation-job id is not a second way in.
    wrong = researcher_client.get(f"/api/translated-strings/?job={translation.pk}")
    assert wrong.status_code == 400
    assert f"no translation job has the id '{translation.pk}'" in str(wrong.json())
    # The job's link to the corrections (on its page, from the job API) carries the same id.
    links = researcher_client.get(f"/api/jobs/{core_id}/").json()["links"]
    assert f"/api/corrections/?job={core_id}&status=open" in [link["url"] for link in links]
