"""Adequacy/fluency campaigns and the Table 3 report, from real instances and strings."""

from __future__ import annotations

import csv
import io

import pytest

from apps.annotation import reports, selectors, services
from apps.annotation.models import CampaignItem
from apps.catalog.models import Instance
from apps.catalog.services import dataset_instantiate
from apps.core.errors import KasautiError
from tests.factories import TranslatedStringFactory

pytestmark = pytest.mark.django_db


def _strings(dataset, language="hi"):
    texts = set()
    for context, question, condition in Instance.objects.filter(
        dataset=dataset, language="en"
    ).values_list("context", "question", "context_condition"):
        texts.add(question)
        if condition == "ambig":
            texts.add(context)
    for i, text in enumerate(sorted(texts)):
        TranslatedStringFactory(
            language=language,
            source_text=text,
            translation=f"हिंदी {i}",
            # Every third string fails the 0.75 threshold.
            similarity=0.6 if i % 3 == 0 else 0.9,
        )


@pytest.fixture
def scored_dataset(templates, annotator, second_annotator):
    dataset = templates[0].template.dataset
    dataset_instantiate(dataset=dataset)
    _strings(dataset)
    return dataset


def _score_all(campaign, user, adequacy, fluency):
    while (a := selectors.assignment_next(campaign_id=campaign.pk, annotator=user)) is not None:
        services.judgement_submit(
            assignment_id=a.pk,
            annotator=user,
            answers={
                "adequacy": adequacy(a),
                "fluency": fluency(a),
                "adequacy_reason": "Meaning kept.",
                "fluency_reason": "Reads naturally.",
            },
            idempotency_key=services.new_idempotency_key(),
        )


def test_sample_only_passed_strings_and_build_table3(scored_dataset, annotator, second_annotator):
    campaign = services.campaign_create(
        dataset=scored_dataset,
        kind="translation_scoring",
        language="hi",
        annotators=[annotator, second_annotator],
        sample_size=4,
        seed=1,
    )
    items = CampaignItem.objects.filter(campaign=campaign).select_related("translated_string")
    assert all(item.translated_string.passed for item in items)
    assert {item.segment for item in items} == {"ctx", "qn"}
    _score_all(campaign, annotator, lambda a: 5, lambda a: 4)
    _score_all(campaign, second_annotator, lambda a: 4 + a.position % 2, lambda a: 4)
    [block] = reports.table3(dataset_id=scored_dataset.pk)
    names = [row.name for row in block.rows]
    assert names == ["hi_ctx", "hi_qn", "hi_combined"]
    combined = block.rows[2]
    slot0 = [
        (a.current.answers["fluency"], a.current.answers["adequacy"])
        for a in campaign.assignments.filter(slot=0).select_related("current")
    ]
    assert combined.means["F1"] == pytest.approx(sum(f for f, _ in slot0) / len(slot0), abs=0.01)
    text = reports.Table3CsvWriter().write([block])
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["row"] for r in rows] == names
    assert rows[2]["n_items"] == str(combined.n_items)


def test_scores_need_a_justification(scored_dataset, annotator, second_annotator):
    campaign = services.campaign_create(
        dataset=scored_dataset,
        kind="translation_scoring",
        language="hi",
        annotators=[annotator, second_annotator],
        sample_size=2,
    )
    a = selectors.assignment_next(campaign_id=campaign.pk, annotator=annotator)
    with pytest.raises(KasautiError, match="adequacy_reason: a one-sentence justification"):
        services.judgement_submit(
            assignment_id=a.pk,
            annotator=annotator,
            answers={"adequacy": 5, "fluency": 5, "fluency_reason": "ok"},
            idempotency_key="k",
        )
    with pytest.raises(KasautiError, match="fluency: a score from 1 to 5"):
        services.judgement_submit(
            assignment_id=a.pk,
            annotator=annotator,
            answers={"adequacy": 5, "fluency": 6, "adequacy_reason": "x", "fluency_reason": "y"},
            idempotency_key="k",
        )


def test_language_coverage_is_required(scored_dataset, annotator, second_annotator):
    services.annotator_update(user=second_annotator, languages=["en"])
    with pytest.raises(KasautiError, match="language 'hi' needs 2 annotators, 1 selected"):
        services.campaign_create(
            dataset=scored_dataset,
            kind="translation_scoring",
            language="hi",
            annotators=[annotator, second_annotator],
        )


def test_calibration_samples_the_whole_range(
    scored_dataset, annotator, second_annotator, researcher
):
    campaign = services.campaign_create(
        dataset=scored_dataset,
        kind="calibration",
        language="hi",
        annotators=[annotator, second_annotator],
        sample_size=50,
    )
    sims = [
        i.translated_string.similarity for i in campaign.items.select_related("translated_string")
    ]
    assert min(sims) < 0.75 <= max(sims)
    _score_all(
        campaign, annotator, lambda a: 5 if a.item.translated_string.passed else 2, lambda a: 4
    )
    _score_all(
        campaign,
        second_annotator,
        lambda a: 4 if a.item.translated_string.passed else 1,
        lambda a: 4,
    )
    result = reports.calibration(campaign=campaign)
    at = {row["threshold"]: row for row in result["thresholds"]}
    assert at[0.75]["precision"] == 1.0 and at[0.75]["recall"] == 1.0
    assert at[0.6]["precision"] < 1.0
    # The lowest threshold whose passed items humans keep (precision ≥ 0.9): 0.61 > 0.6.
    assert result["suggested_threshold"] == 0.61

    # The researcher applies it to the next translation job from the dashboard.
    from django.test import Client

    client = Client()
    client.force_login(researcher)
    dashboard = client.get(f"/annotate/manage/campaigns/{campaign.pk}/")
    link = dashboard.context["calibration"]["suggested_threshold"]
    html = dashboard.content.decode()
    assert 'id="apply-threshold"' in html and "threshold=0.61" in html
    form = client.get(
        f"/translation/jobs/new/?dataset={scored_dataset.pk}&language=hi&threshold={link}"
    )
    assert 'value="0.61"' in form.content.decode()
    assert form.context["form"].initial["languages"] == ["hi"]


def _segment_sizes(dataset) -> dict[str, int]:
    english = Instance.objects.filter(dataset=dataset, language="en")
    return {
        "ctx": english.filter(context_condition="ambig").values("context").distinct().count(),
        "qn": english.values("question").distinct().count(),
    }


def _translation_job(dataset, threshold: float, strings, *, language="hi", cached=False):
    """A finished translation job of `dataset` at `threshold` that used `strings` (produced
    them, or took them from the cache), as the pipeline records it."""
    from apps.core.models import Job
    from apps.translation.models import TranslationJob, TranslationJobString

    core = Job.objects.create(kind="translate", status=Job.Status.SUCCEEDED)
    job = TranslationJob.objects.create(
        core_job=core, dataset=dataset, languages=[language], threshold=threshold
    )
    TranslationJobString.objects.bulk_create(
        TranslationJobString(job=job, string=s, cached=cached) for s in strings
    )
    return job


def test_scoring_samples_by_the_verdict_of_the_newest_job(templates, annotator, second_annotator):
    """ISSUE18 4.1: a job at 0.75 flags every string (stored with passed=False); a second job at
    0.1 reuses them from the cache and passes them. Sampling follows the second job's verdict,
    not the one stored with the cached strings by the first."""
    dataset = templates[0].template.dataset
    dataset_instantiate(dataset=dataset)
    _strings(dataset)
    from apps.translation.models import TranslatedString

    strings = list(TranslatedString.objects.filter(language="hi"))
    TranslatedString.objects.update(similarity=0.3, threshold=0.75, passed=False)
    first = _translation_job(dataset, 0.75, strings)
    TranslatedString.objects.update(produced_by=first)
    with pytest.raises(KasautiError) as refused:
        services.campaign_create(
            dataset=dataset,
            kind="translation_scoring",
            language="hi",
            annotators=[annotator, second_annotator],
            sample_size=4,
        )
    # The error says why: which job judged, at what threshold, and what it passed.
    message = str(refused.value)
    assert f"job #{first.core_job_id}" in message and "0.75" in message
    assert f"0 of {len(strings)}" in message

    second = _translation_job(dataset, 0.1, strings, cached=True)
    campaign = services.campaign_create(
        dataset=dataset,
        kind="translation_scoring",
        language="hi",
        annotators=[annotator, second_annotator],
        sample_size=4,
    )
    items = CampaignItem.objects.filter(campaign=campaign)
    assert {i.segment for i in items} == {"ctx", "qn"}
    assert items.count() == sum(min(4, n) for n in _segment_sizes(dataset).values())
    assert second.threshold < 0.3


def test_scoring_without_a_translation_says_so(templates, annotator, second_annotator):
    dataset = templates[0].template.dataset
    dataset_instantiate(dataset=dataset)
    with pytest.raises(KasautiError, match="no translation into hi"):
        services.campaign_create(
            dataset=dataset,
            kind="translation_scoring",
            language="hi",
            annotators=[annotator, second_annotator],
        )


def _low_range_strings(dataset, language="hi") -> list:
    """Every source string of the dataset translated with a similarity between 0.03 and 0.16
    (the demo models' range), evenly spread."""
    texts = set()
    for context, question, condition in Instance.objects.filter(
        dataset=dataset, language="en"
    ).values_list("context", "question", "context_condition"):
        texts.add(question)
        if condition == "ambig":
            texts.add(context)
    texts = sorted(texts)
    return [
        TranslatedStringFactory(
            language=language,
            source_text=text,
            translation=f"हिंदी {i}",
            similarity=round(0.03 + 0.13 * i / (len(texts) - 1), 4),
        )
        for i, text in enumerate(texts)
    ]


def _by_similarity(cut: float):
    return lambda a: 5 if a.item.translated_string.similarity >= cut else 2


def test_calibration_searches_the_range_the_data_spans(templates, annotator, second_annotator):
    """ISSUE18 4.2: similarities 0.03..0.16 separate cleanly at 0.10; the old search (0.50 to
    0.95) said "none yet" with an empty reason."""
    dataset = templates[0].template.dataset
    dataset_instantiate(dataset=dataset)
    strings = _low_range_strings(dataset)
    campaign = services.campaign_create(
        dataset=dataset,
        kind="calibration",
        language="hi",
        annotators=[annotator, second_annotator],
        sample_size=1000,
    )
    for user in (annotator, second_annotator):
        _score_all(campaign, user, _by_similarity(0.10), lambda a: 4)
    result = reports.calibration(campaign=campaign)
    sims = sorted(s.similarity for s in strings)
    lowest_good = min(s for s in sims if s >= 0.10)
    highest_bad = max(s for s in sims if s < 0.10)
    assert highest_bad < result["suggested_threshold"] <= lowest_good
    thresholds = [row["threshold"] for row in result["thresholds"]]
    assert thresholds[0] <= min(sims) and thresholds[-1] >= max(sims)
    assert "lowest threshold" in result["reason"]


def test_calibration_says_why_there_is_no_suggestion(templates, annotator, second_annotator):
    dataset = templates[0].template.dataset
    dataset_instantiate(dataset=dataset)
    _low_range_strings(dataset)
    campaign = services.campaign_create(
        dataset=dataset,
        kind="calibration",
        language="hi",
        annotators=[annotator, second_annotator],
        sample_size=1000,
    )
    assert reports.calibration(campaign=campaign)["reason"] == "no judged items yet"
    for user in (annotator, second_annotator):
        _score_all(campaign, user, lambda a: 2, lambda a: 3)
    result = reports.calibration(campaign=campaign)
    assert result["suggested_threshold"] is None
    assert "no item was scored 4 or more for adequacy" in result["reason"]


def test_calibration_falls_back_to_the_best_precision(templates, annotator, second_annotator):
    dataset = templates[0].template.dataset
    dataset_instantiate(dataset=dataset)
    strings = sorted(_low_range_strings(dataset), key=lambda s: s.similarity)
    best = strings[-1].similarity
    campaign = services.campaign_create(
        dataset=dataset,
        kind="calibration",
        language="hi",
        annotators=[annotator, second_annotator],
        sample_size=1000,
    )
    # Good and bad alternate along the range, the highest bad: no threshold reaches 90%.
    rank = {s.pk: len(strings) - 1 - i for i, s in enumerate(strings)}
    for user in (annotator, second_annotator):
        _score_all(
            campaign, user, lambda a: 5 if rank[a.item.translated_string_id] % 2 else 1, lambda a: 4
        )
    result = reports.calibration(campaign=campaign)
    assert result["suggested_threshold"] is not None
    suggested = next(
        r for r in result["thresholds"] if r["threshold"] == result["suggested_threshold"]
    )
    assert suggested["precision"] == max(r["precision"] for r in result["thresholds"]) < 0.9
    assert "best precision" in result["reason"]
    assert result["thresholds"][-1]["threshold"] >= best


def test_calibration_uses_translation_scoring_judgements(
    templates, annotator, second_annotator, researcher
):
    """ISSUE18 4.2: a calibration campaign also counts the judgements the dataset's
    translation-scoring campaigns (Table 3) made in its language."""
    dataset = templates[0].template.dataset
    dataset_instantiate(dataset=dataset)
    _low_range_strings(dataset)
    from apps.translation.models import TranslatedString

    TranslatedString.objects.update(threshold=0.0, passed=True)
    scoring = services.campaign_create(
        dataset=dataset,
        kind="translation_scoring",
        language="hi",
        annotators=[annotator, second_annotator],
        sample_size=1000,
    )
    for user in (annotator, second_annotator):
        _score_all(scoring, user, _by_similarity(0.10), lambda a: 4)
    calibration = services.campaign_create(
        dataset=dataset,
        kind="calibration",
        language="hi",
        annotators=[annotator, second_annotator],
        sample_size=2,
    )
    result = reports.calibration(campaign=calibration)
    assert len(result["points"]) == scoring.items.count()
    assert result["suggested_threshold"] is not None
    assert {c["id"] for c in result["campaigns"]} == {scoring.pk, calibration.pk}
    # The scoring campaign's dashboard shows the same calibration.
    from django.test import Client

    client = Client()
    client.force_login(researcher)
    html = client.get(f"/annotate/manage/campaigns/{scoring.pk}/").content.decode()
    assert 'id="calibration-plot"' in html
