"""Coding answers into concepts: every action, its history, conflicts between coders, and the
mention counts derived from the codings (distinct respondents, affected ones)."""

from __future__ import annotations

import pytest

from apps.catalog.inclusion import concept_verdict
from apps.catalog.models import Category, EvidenceReference, StereotypeConcept
from apps.core.errors import ConflictError, KasautiError
from apps.surveys.models import Answer, AnswerConcept, CodingEvent
from apps.surveys.services.coding import (
    NewConcept,
    answer_code,
    answer_mark_invalid,
    answer_reopen,
    answer_uncode,
    answers_bulk_code,
    answers_bulk_mark_invalid,
)

from .coding_factories import answer, concept, respondent

pytestmark = pytest.mark.django_db


def counts(c: StereotypeConcept) -> tuple[int | None, int | None]:
    c.refresh_from_db()
    return c.survey_mentions, c.survey_affected


def test_code_into_existing_concept_writes_link_event_counts_and_survey_evidence(
    survey, dataset, researcher
):
    c = concept(dataset, "Muslims are ...")
    a = answer(survey, affected=True)
    event = answer_code(answer=a, concept_ids=[c.pk], by=researcher)
    a.refresh_from_db()
    assert a.status == Answer.Status.CODED and a.coded_by == researcher
    assert list(a.codings.values_list("concept_id", flat=True)) == [c.pk]
    assert (event.action, event.concept_ids, event.by) == ("code", [c.pk], researcher)
    assert counts(c) == (1, 1)
    evidence = EvidenceReference.objects.get(concept=c)
    assert evidence.kind == "survey" and survey.slug in evidence.note
    assert evidence.validation_status == "pending" and evidence.added_by == researcher
    # A second answer into the same concept: the survey is filed as evidence once.
    answer_code(answer=answer(survey), concept_ids=[c.pk], by=researcher)
    assert EvidenceReference.objects.filter(concept=c).count() == 1
    assert counts(c) == (2, 1)


def test_code_into_new_concept(survey, dataset, researcher):
    a = answer(survey, text="  मुसलमान ... ")
    answer_code(
        answer=a,
        new_concepts=[
            NewConcept(
                category="Religión nueva",
                subcategory="creencias",
                target_groups=["Musulmanes", " ", "Musulmanes"],
                attribute="x",
                statement="Los musulmanes son ...",
                polarity="negative",
            )
        ],
        by=researcher,
    )
    c = StereotypeConcept.objects.get(statement="Los musulmanes son ...")
    assert c.dataset == dataset and c.source == "survey" and c.validation_status == "pending"
    assert c.category == Category.objects.get(name="Religión nueva")
    assert c.target_groups == ["Musulmanes"] and c.subcategory == "creencias"
    assert counts(c) == (1, 0)
    # The category is reused, not created twice.
    answer_code(
        answer=answer(survey),
        new_concepts=[NewConcept(category="Religión nueva", statement="s", target_groups=["g"])],
        by=researcher,
    )
    assert Category.objects.filter(name="Religión nueva").count() == 1


def test_bad_new_concept_changes_nothing(survey, researcher):
    a = answer(survey)
    before = StereotypeConcept.objects.count()
    with pytest.raises(KasautiError) as err:
        answer_code(
            answer=a,
            new_concepts=[NewConcept(category="", statement=" ", polarity="angry")],
            by=researcher,
        )
    message = str(err.value)
    assert "category is empty" in message and "statement is empty" in message
    assert "target group" in message and "polarity 'angry'" in message
    a.refresh_from_db()
    assert a.status == "pending" and not a.events.exists()
    assert StereotypeConcept.objects.count() == before


def test_unknown_or_foreign_concept_refused(survey, dataset, researcher):
    from apps.catalog.models import Dataset

    other = concept(Dataset.objects.create(name="other"), "elsewhere")
    a = answer(survey)
    with pytest.raises(KasautiError, match="no concept with id 999999"):
        answer_code(answer=a, concept_ids=[999999], by=researcher)
    with pytest.raises(KasautiError, match="another dataset"):
        answer_code(answer=a, concept_ids=[other.pk], by=researcher)
    assert not a.events.exists() and not AnswerConcept.objects.exists()


def test_one_answer_into_two_concepts_counts_for_both(survey, dataset, researcher):
    c1, c2 = concept(dataset), concept(dataset)
    a = answer(survey, affected=True)
    answer_code(answer=a, concept_ids=[c1.pk, c2.pk], by=researcher)
    assert counts(c1) == (1, 1) and counts(c2) == (1, 1)
    # Coding again into an already linked concept changes nothing and writes no event.
    assert answer_code(answer=a, concept_ids=[c1.pk], by=researcher) is None
    assert a.events.count() == 1


def test_distinct_respondents_and_affected_per_respondent(survey, dataset, researcher):
    c = concept(dataset)
    same = respondent(survey)
    # Two answers by one respondent (one affected, one not) count once, affected once.
    answer_code(answer=answer(survey, same, affected=True), concept_ids=[c.pk], by=researcher)
    answer_code(answer=answer(survey, same, affected=False), concept_ids=[c.pk], by=researcher)
    assert counts(c) == (1, 1)
    answer_code(answer=answer(survey, affected=False), concept_ids=[c.pk], by=researcher)
    assert counts(c) == (2, 1)


def test_invalid_answers_do_not_count_and_lose_their_links_in_history(survey, dataset, researcher):
    c = concept(dataset)
    a1, a2 = answer(survey), answer(survey)
    answer_code(answer=a1, concept_ids=[c.pk], by=researcher)
    answer_code(answer=a2, concept_ids=[c.pk], by=researcher)
    assert counts(c) == (2, 0)
    event = answer_mark_invalid(answer=a2, reason="spam", by=researcher)
    assert event.action == "invalid" and event.concept_ids == [c.pk] and event.reason == "spam"
    a2.refresh_from_db()
    assert a2.status == "invalid" and a2.invalid_reason == "spam" and not a2.codings.exists()
    assert counts(c) == (1, 0)
    # An invalid answer cannot be coded before it is reopened.
    with pytest.raises(ConflictError, match="reopen"):
        answer_code(answer=a2, concept_ids=[c.pk], by=researcher)
    answer_reopen(answer=a2, by=researcher)
    a2.refresh_from_db()
    assert a2.status == "pending" and a2.invalid_reason == ""
    assert [e.action for e in a2.events.all()] == ["code", "invalid", "reopen"]


def test_uncoding_the_last_answer_brings_back_the_reported_count(survey, dataset, researcher):
    c = concept(dataset, mentions=7)
    a = answer(survey)
    answer_code(answer=a, concept_ids=[c.pk], by=researcher)
    assert counts(c) == (1, 0)
    assert concept_verdict(c).counted_as == "survey" and concept_verdict(c).mentions == 1
    event = answer_uncode(answer=a, concept_id=c.pk, by=researcher)
    assert event.action == "uncode" and event.concept_ids == [c.pk]
    a.refresh_from_db()
    assert a.status == "pending"
    assert counts(c) == (None, None)
    verdict = concept_verdict(c)
    assert (verdict.counted_as, verdict.mentions) == ("reported", 7)
    with pytest.raises(KasautiError, match="not coded into"):
        answer_uncode(answer=a, concept_id=c.pk, by=researcher)


def test_uncode_one_of_two_links_keeps_answer_coded(survey, dataset, researcher):
    c1, c2 = concept(dataset), concept(dataset)
    a = answer(survey)
    answer_code(answer=a, concept_ids=[c1.pk, c2.pk], by=researcher)
    answer_uncode(answer=a, concept_id=c1.pk, by=researcher)
    a.refresh_from_db()
    assert a.status == "coded" and counts(c1) == (None, None) and counts(c2) == (1, 0)


def test_esbbq_verdict_flips_at_two_mentions_with_one_affected(survey, dataset, researcher):
    assert dataset.inclusion_rule == "esbbq"
    c = concept(dataset, "flips")
    answer_code(answer=answer(survey, affected=False), concept_ids=[c.pk], by=researcher)
    c.refresh_from_db()
    assert not concept_verdict(c).passes
    second = answer(survey, affected=False)
    answer_code(answer=second, concept_ids=[c.pk], by=researcher)
    c.refresh_from_db()
    verdict = concept_verdict(c)
    assert not verdict.passes
    assert verdict.reasons == ["2 mentions and none affected; needs 3, or 2 with one affected"]
    # The same two respondents, one of them now affected (another answer by them): passes.
    answer_code(
        answer=answer(survey, second.respondent, affected=True), concept_ids=[c.pk], by=researcher
    )
    c.refresh_from_db()
    verdict = concept_verdict(c)
    assert verdict.passes and (verdict.mentions, verdict.affected) == (2, 1)
    assert StereotypeConcept.objects.usable().filter(pk=c.pk).exists()
    # Marking that answer invalid takes it back below the rule.
    answer_mark_invalid(
        answer=c.survey_codings.get(answer__affected=True).answer_id,
        reason="not_stereotype",
        by=researcher,
    )
    c.refresh_from_db()
    assert not concept_verdict(c).passes


def test_duplicate_must_be_the_same_respondents_answer(survey, researcher):
    who = respondent(survey)
    first, repeat = answer(survey, who), answer(survey, who)
    stranger = answer(survey)
    with pytest.raises(KasautiError, match="say which"):
        answer_mark_invalid(answer=repeat, reason="duplicate", by=researcher)
    with pytest.raises(KasautiError, match="another respondent"):
        answer_mark_invalid(answer=repeat, reason="duplicate", duplicate_of=stranger, by=researcher)
    with pytest.raises(KasautiError, match="itself"):
        answer_mark_invalid(answer=repeat, reason="duplicate", duplicate_of=repeat, by=researcher)
    with pytest.raises(KasautiError, match="only for the reason"):
        answer_mark_invalid(answer=repeat, reason="spam", duplicate_of=first, by=researcher)
    with pytest.raises(KasautiError, match="not one of"):
        answer_mark_invalid(answer=repeat, reason="boring", by=researcher)
    assert not repeat.events.exists()
    event = answer_mark_invalid(
        answer=repeat, reason="duplicate", duplicate_of=first.pk, by=researcher
    )
    assert event.duplicate_of == first and event.reason == "duplicate"
    repeat.refresh_from_db()
    assert repeat.invalid_reason == "duplicate"


def test_conflict_refused_when_answer_changed_since_loaded(survey, dataset, researcher, admin_user):
    c1, c2 = concept(dataset), concept(dataset)
    a = answer(survey)
    # Both coders loaded the answer with no event; the first decides.
    answer_code(answer=a, concept_ids=[c1.pk], by=researcher, seen_event=None)
    with pytest.raises(ConflictError, match="changed since you loaded it") as err:
        answer_mark_invalid(answer=a, reason="spam", by=admin_user, seen_event=None)
    assert "rekha" in str(err.value)
    a.refresh_from_db()
    assert a.status == "coded" and a.events.count() == 1 and counts(c1) == (1, 0)
    # With the event id they now see, the second coder may decide.
    last = a.events.get().pk
    answer_code(answer=a, concept_ids=[c2.pk], by=admin_user, seen_event=last)
    assert a.events.count() == 2
    with pytest.raises(ConflictError):
        answer_reopen(answer=a, by=researcher, seen_event=last)


def test_reopen_coded_answer_removes_links(survey, dataset, researcher):
    c = concept(dataset)
    a = answer(survey)
    answer_code(answer=a, concept_ids=[c.pk], by=researcher)
    event = answer_reopen(answer=a, by=researcher)
    assert event.concept_ids == [c.pk] and counts(c) == (None, None)
    with pytest.raises(ConflictError, match="already in the queue"):
        answer_reopen(answer=a, by=researcher)


def test_answer_of_another_survey_refused(survey, dataset, researcher):
    from apps.surveys.services.surveys import survey_create

    from .conftest import complete_content

    other = survey_create(
        dataset=dataset,
        slug="otra",
        languages=["es"],
        content=complete_content(["es"]),
        created_by=researcher,
    )
    a = answer(survey)
    with pytest.raises(KasautiError, match="no answer"):
        answer_reopen(answer=a.pk, survey=other, by=researcher)
    with pytest.raises(KasautiError, match=f"no answer #{a.pk} in survey otra"):
        answers_bulk_mark_invalid(survey=other, answer_ids=[a.pk], reason="spam", by=researcher)


def test_bulk_code_one_transaction(survey, dataset, researcher):
    c = concept(dataset)
    a1, a2, a3 = answer(survey, affected=True), answer(survey), answer(survey)
    answer_code(answer=a3, concept_ids=[c.pk], by=researcher)
    outcome = answers_bulk_code(
        survey=survey, answer_ids=[a1.pk, a2.pk, a3.pk], concept_id=c.pk, by=researcher
    )
    assert (outcome.changed, outcome.unchanged) == (2, 1)
    assert counts(c) == (3, 1)
    assert CodingEvent.objects.filter(action="code").count() == 3
    # One invalid answer in the batch refuses the whole batch.
    c2 = concept(dataset)
    b1, b2 = answer(survey), answer(survey)
    answer_mark_invalid(answer=b2, reason="spam", by=researcher)
    with pytest.raises(ConflictError, match=f"#{b2.pk}"):
        answers_bulk_code(survey=survey, answer_ids=[b1.pk, b2.pk], concept_id=c2.pk, by=researcher)
    b1.refresh_from_db()
    assert b1.status == "pending" and counts(c2) == (None, None)


def test_bulk_code_into_new_concept(survey, dataset, researcher):
    a1, a2 = answer(survey), answer(survey)
    outcome = answers_bulk_code(
        survey=survey,
        answer_ids=[a1.pk, a2.pk],
        new_concept=NewConcept(category="Religion", statement="bulk new", target_groups=["g"]),
        by=researcher,
    )
    c = StereotypeConcept.objects.get(pk=outcome.concept_ids[0])
    assert c.statement == "bulk new" and counts(c) == (2, 0)


def test_bulk_mark_invalid(survey, dataset, researcher):
    c = concept(dataset)
    a1, a2 = answer(survey), answer(survey)
    answer_code(answer=a1, concept_ids=[c.pk], by=researcher)
    outcome = answers_bulk_mark_invalid(
        survey=survey, answer_ids=[a1.pk, a2.pk], reason="not_stereotype", by=researcher
    )
    assert (outcome.changed, outcome.concept_ids) == (2, [c.pk])
    assert counts(c) == (None, None)
    assert set(Answer.objects.values_list("status", flat=True)) == {"invalid"}
    again = answers_bulk_mark_invalid(
        survey=survey, answer_ids=[a1.pk, a2.pk], reason="not_stereotype", by=researcher
    )
    assert (again.changed, again.unchanged) == (0, 2)
    with pytest.raises(KasautiError, match="one at a time"):
        answers_bulk_mark_invalid(
            survey=survey, answer_ids=[a1.pk], reason="duplicate", by=researcher
        )
    with pytest.raises(KasautiError, match="no answer selected"):
        answers_bulk_mark_invalid(survey=survey, answer_ids=[], reason="spam", by=researcher)


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_concurrent_coders_lock_the_answer_row(survey, dataset, researcher, admin_user):
    """Two coders on separate connections who loaded the answer with no event: the second
    waits on the first's row lock, then sees the event the first wrote and is refused instead
    of overwriting."""
    import threading
    import time

    from django.db import connection, transaction

    c = concept(dataset)
    a = answer(survey)
    outcome: dict[str, object] = {}

    def second_coder():
        try:
            answer_mark_invalid(answer=a.pk, reason="spam", by=admin_user, seen_event=None)
            outcome["result"] = "saved"
        except ConflictError as exc:
            outcome["result"] = str(exc)
        finally:
            outcome["finished_at"] = time.monotonic()
            connection.close()

    with transaction.atomic():
        answer_code(answer=a, concept_ids=[c.pk], by=researcher, seen_event=None)
        thread = threading.Thread(target=second_coder)
        thread.start()
        time.sleep(1.0)
        assert "result" not in outcome  # blocked on the row lock
        committed_at = time.monotonic()
    thread.join(timeout=30)
    assert outcome["finished_at"] >= committed_at
    assert "changed since you loaded it" in str(outcome["result"])
    a.refresh_from_db()
    assert a.status == "coded" and a.events.count() == 1
