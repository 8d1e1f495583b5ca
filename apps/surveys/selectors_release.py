"""Reads of what the survey app tells a release (issue 22): the collection process of its
dataset card when the released instances' concepts came from a participatory survey.

The funnel is the survey reports page's own (services.reports.report_funnel, EsBBQ §3.2.1),
reused as it is; around it, what the card adds: the questionnaire, the respondents and answers
counted by coding status, and the released concepts the survey's answers were coded into, with
the evidence filed for them. Respondents are counted, never described: demographics stay on the
reports page, behind its small-cell suppression.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count

from apps.catalog.models import (
    ConceptSource,
    EvidenceReference,
    Instance,
    StereotypeConcept,
    TemplateVersion,
)
from apps.translation.selectors_release import hash_joins

from .models import Answer, AnswerConcept, Respondent, Survey, SurveyVersion
from .services.reports import report_funnel


def release_concept_ids(*, release, among: list[int] | None = None) -> list[int]:
    """The concepts of the release's instances (through their template versions), or those of
    them `among` the given ids: one aggregate over the release's membership, hash-joined (see
    apps.translation.selectors_release.hash_joins)."""
    instances = Instance.objects.filter(memberships__release=release)
    if among is not None:
        instances = instances.filter(template_version__concept_id__in=among)
    with hash_joins():
        return [
            pk
            for pk in instances.values_list("template_version__concept_id", flat=True)
            .distinct()
            .order_by()
            if pk is not None
        ]


def release_survey_facts(*, release) -> dict[str, Any] | None:
    """Per survey whose answers were coded into the release's concepts: its questionnaire, its
    respondents and answers, the funnel overall and by category, and the release's concepts
    that came from it with their evidence by kind. None when no released concept came from a
    survey.

    The membership is read only when a survey coded an answer into a concept of one of the
    dataset's templates (two small indexed queries decide it): most releases pay nothing."""
    # Links of answers not marked invalid count, as in the funnel ("valid" stereotypes).
    coded = list(
        AnswerConcept.objects.filter(
            concept_id__in=TemplateVersion.objects.filter(
                template__dataset_id=release.dataset_id, concept_id__isnull=False
            ).values("concept_id")
        )
        .exclude(answer__status=Answer.Status.INVALID)
        .values_list("concept_id", flat=True)
        .distinct()
        .order_by()
    )
    if not coded:
        return None
    concept_ids = release_concept_ids(release=release, among=coded)
    if not concept_ids:
        return None
    links = AnswerConcept.objects.filter(concept_id__in=concept_ids).exclude(
        answer__status=Answer.Status.INVALID
    )
    surveys = list(Survey.objects.filter(pk__in=links.values("answer__survey_id")).order_by("slug"))
    return {"surveys": [_survey(survey, links) for survey in surveys]}


def _survey(survey: Survey, links) -> dict[str, Any]:
    versions = list(
        SurveyVersion.objects.filter(survey=survey).order_by("number").values("number", "content")
    )
    current = next(
        (v for v in versions if v["number"] == _current_number(survey)),
        versions[-1] if versions else None,
    )
    statuses = dict(
        Answer.objects.filter(survey=survey)
        .values("status")
        .annotate(n=Count("id"))
        .order_by()
        .values_list("status", "n")
    )
    funnel = report_funnel(survey=survey)
    from_survey = sorted(
        set(links.filter(answer__survey=survey).values_list("concept_id", flat=True))
    )
    evidence = {
        kind: n
        for kind, n in EvidenceReference.objects.filter(concept_id__in=from_survey)
        .exclude(validation_status=EvidenceReference.Validation.REJECTED)
        .values("kind")
        .annotate(n=Count("concept_id", distinct=True))
        .order_by()
        .values_list("kind", "n")
    }
    created = StereotypeConcept.objects.filter(
        pk__in=from_survey, source=ConceptSource.SURVEY
    ).count()
    return {
        "slug": survey.slug,
        "status": survey.status,
        "questionnaire": {
            "versions": len(versions),
            "current": current["number"] if current else None,
            "languages": list((current or {}).get("content", {}).get("languages") or []),
        },
        "respondents": Respondent.objects.filter(survey=survey).count(),
        "answers": {status: statuses.get(status, 0) for status in Answer.Status.values},
        "funnel": {
            **funnel.overall.as_dict(),
            "by_category": [{"category": row.name, **row.as_dict()} for row in funnel.by_category],
        },
        "release_concepts": {
            "from_survey": len(from_survey),
            "source_survey": created,
            "evidence_by_kind": {
                kind: evidence[kind] for kind in EvidenceReference.Kind.values if kind in evidence
            },
        },
    }


def _current_number(survey: Survey) -> int | None:
    if survey.current_version_id is None:
        return None
    return (
        SurveyVersion.objects.filter(pk=survey.current_version_id)
        .values_list("number", flat=True)
        .first()
    )
