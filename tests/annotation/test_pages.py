"""Workbench pages through Django's test client: the same rules as the API."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.annotation import selectors, services
from apps.annotation.models import CampaignItem, Judgement
from apps.catalog.services import dataset_instantiate

from .conftest import YES_ALL

pytestmark = pytest.mark.django_db


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def campaign(templates, annotator, second_annotator, researcher):
    dataset_instantiate(dataset=templates[0].template.dataset)
    return services.campaign_create(
        dataset=templates[0].template.dataset,
        kind="template_validation",
        annotators=[annotator, second_annotator],
        created_by=researcher,
    )


def test_annotator_works_through_items_by_form(campaign, annotator):
    client = _client(annotator)
    page = client.get(f"/annotate/campaigns/{campaign.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "The template represents the intended stereotype." in html
    assert html.count('class="example"') == 2  # two instantiated examples
    key = page.context["key"]
    url = f"/annotate/assignments/{page.context['assignment'].pk}/"
    assert f'action="{url}"' in html
    body = {**YES_ALL, "idempotency_key": key}
    first = client.post(url, body)
    assert first.status_code == 302
    again = client.post(url, body)  # resubmitted form: same key
    assert again.status_code == 302
    assert Judgement.objects.count() == 1
    # Undo from the same session, then the item is first in line again.
    assignment = Judgement.objects.get().assignment
    undo = client.post(f"/annotate/assignments/{assignment.pk}/undo/", {"idempotency_key": "u"})
    assert undo.status_code == 302
    assert selectors.assignment_next(campaign_id=campaign.pk, annotator=annotator) == assignment


def test_missing_answer_rerenders_with_the_field(campaign, annotator):
    client = _client(annotator)
    assignment = selectors.assignment_next(campaign_id=campaign.pk, annotator=annotator)
    response = client.post(
        f"/annotate/assignments/{assignment.pk}/", {"a": "yes", "idempotency_key": "k"}
    )
    assert response.status_code == 400
    assert "b: answer yes or no" in response.content.decode()
    assert not Judgement.objects.exists()


def test_annotators_get_403_on_researcher_pages_and_404_on_others_items(
    campaign, annotator, second_annotator, outsider
):
    theirs = selectors.assignment_next(campaign_id=campaign.pk, annotator=second_annotator)
    client = _client(annotator)
    item = CampaignItem.objects.filter(campaign=campaign).first()
    for url in (
        "/annotate/manage/campaigns/new/",
        f"/annotate/manage/campaigns/{campaign.pk}/",
        f"/annotate/manage/items/{item.pk}/",
        "/annotate/manage/people/",
        f"/annotate/manage/datasets/{campaign.dataset_id}/table3/",
    ):
        assert client.get(url).status_code == 403, url
    assert client.get(f"/annotate/assignments/{theirs.pk}/").status_code == 404
    assert _client(outsider).get("/annotate/").status_code == 403


def test_researcher_dashboard_adjudication_and_people(
    campaign, annotator, second_annotator, researcher
):
    for user, answers in ((annotator, {**YES_ALL, "b": "no"}), (second_annotator, YES_ALL)):
        a = selectors.assignment_next(campaign_id=campaign.pk, annotator=user)
        services.judgement_submit(
            assignment_id=a.pk, annotator=user, answers=answers, idempotency_key=f"k{user.pk}"
        )
    client = _client(researcher)
    dashboard = client.get(f"/annotate/manage/campaigns/{campaign.pk}/").content.decode()
    assert "undefined (fewer than 2 items" in dashboard
    item = CampaignItem.objects.get(campaign=campaign, status="adjudication")
    page = client.get(f"/annotate/manage/items/{item.pk}/")
    assert page.status_code == 200 and 'class="no"' in page.content.decode()
    decided = client.post(f"/annotate/manage/items/{item.pk}/", {"verdict": "reject"})
    assert decided.status_code == 302
    item.refresh_from_db()
    assert item.status == "rejected"
    created = client.post(
        "/annotate/manage/people/",
        {"action": "create", "username": "dev", "languages": "hi, bn"},
    )
    assert created.status_code == 302
    assert selectors.annotator_languages(user=annotator.__class__.objects.get(username="dev")) == [
        "hi",
        "bn",
    ]
    new = client.post(
        "/annotate/manage/campaigns/new/",
        {"dataset": campaign.dataset_id, "kind": "tuple_vote", "annotators": []},
    )
    assert new.status_code == 400
    assert "3 per item need at least 3 annotators" in new.content.decode()


def test_new_campaign_form_is_preselected_by_the_studios_link(campaign, researcher):
    """The template studio's "Send to validation" links here with the dataset and kind."""
    page = (
        _client(researcher)
        .get(
            "/annotate/manage/campaigns/new/",
            {"dataset": campaign.dataset_id, "kind": "template_validation"},
        )
        .content.decode()
    )
    assert f'<option value="{campaign.dataset_id}" selected>' in page
    assert '<option value="template_validation" selected>' in page
    assert 'id="only-items"' not in page


def test_new_campaign_form_keeps_the_chosen_template(templates, researcher, annotator,
                                                     second_annotator):  # fmt: skip
    """The template page's "Send to validation" links with ?only=<version>: the form names it,
    posts it, and the campaign has that one item."""
    from apps.annotation.models import Campaign

    version = templates[2]
    client = _client(researcher)
    query = {
        "dataset": version.template.dataset_id,
        "kind": "template_validation",
        "only": version.pk,
    }
    page = client.get("/annotate/manage/campaigns/new/", query).content.decode()
    assert f'<span class="mono">{version}</span>' in page
    assert f'<input type="hidden" name="only" value="{version.pk}">' in page
    created = client.post(
        "/annotate/manage/campaigns/new/",
        {**query, "annotators": [annotator.pk, second_annotator.pk]},
    )
    assert created.status_code == 302
    campaign = Campaign.objects.get()
    assert list(campaign.items.values_list("template_version_id", flat=True)) == [version.pk]


def test_adjudication_edit_keeps_untouched_multiline_fields(
    templates, annotator, second_annotator, researcher
):
    """A browser posts a textarea's line breaks as CRLF: an untouched multi-line field is not
    an edit, and the new version keeps its line breaks as stored."""
    from apps.catalog.models import TemplateVersion

    version = templates[0]
    TemplateVersion.objects.filter(pk=version.pk).update(
        disambiguating_context="The {{NAME1}} had forgotten the ticket;\nthe {{NAME2}} had two."
    )
    dataset_instantiate(dataset=version.template.dataset)
    campaign = services.campaign_create(
        dataset=version.template.dataset,
        kind="template_validation",
        annotators=[annotator, second_annotator],
    )
    for user, answers in ((annotator, {**YES_ALL, "c": "no"}), (second_annotator, YES_ALL)):
        while (a := selectors.assignment_next(campaign_id=campaign.pk, annotator=user)) is not None:
            services.judgement_submit(
                assignment_id=a.pk, annotator=user, answers=answers, idempotency_key=f"k{a.pk}"
            )
    item = CampaignItem.objects.get(campaign=campaign, template_version=version)
    response = _client(researcher).post(
        f"/annotate/manage/items/{item.pk}/",
        {
            "verdict": "edit",
            "ambiguous_context": "A {{NAME1}} and a {{NAME2}} were waiting at the station.",
            "disambiguating_context": "The {{NAME1}} had forgotten the ticket;\r\n"
            "the {{NAME2}} had two.",
            "question_negative": version.question_negative,
            "question_non_negative": version.question_non_negative,
        },
    )
    assert response.status_code == 302
    new = TemplateVersion.objects.get(template=version.template, number=2)
    assert new.ambiguous_context == "A {{NAME1}} and a {{NAME2}} were waiting at the station."
    assert new.disambiguating_context == (
        "The {{NAME1}} had forgotten the ticket;\nthe {{NAME2}} had two."
    )
    assert item.decisions.get().verdict == "edit"


def test_item_url_number_and_label_agree(campaign, annotator):
    """/at/<n>/ shows "Item <n>", and the j/k links point at the numbers they show (2.9)."""
    client = _client(annotator)
    for number in (1, 2, 3):
        page = client.get(f"/annotate/campaigns/{campaign.pk}/at/{number}/")
        assert page.status_code == 200
        html = page.content.decode()
        assert f"Item <strong>{number}</strong>" in html
        assert page.context["assignment"].position == number - 1
    html = client.get(f"/annotate/campaigns/{campaign.pk}/at/2/").content.decode()
    assert f'href="/annotate/campaigns/{campaign.pk}/at/1/" id="prev-link"' in html
    assert f'href="/annotate/campaigns/{campaign.pk}/at/3/" id="next-link"' in html
    assert client.get(f"/annotate/campaigns/{campaign.pk}/at/0/").status_code == 404


def test_undo_last_submission_from_the_next_item_and_the_done_page(campaign, annotator):
    """After a submission the next item offers to undo it (4.4); so does the all-done page; the
    undo is a new history row and the undone item is shown again."""
    client = _client(annotator)
    first = selectors.assignment_next(campaign_id=campaign.pk, annotator=annotator)
    client.post(f"/annotate/assignments/{first.pk}/", {**YES_ALL, "idempotency_key": "s1"})
    page = client.get(f"/annotate/campaigns/{campaign.pk}/")
    assert page.context["assignment"].pk != first.pk
    html = page.content.decode()
    assert f'action="/annotate/assignments/{first.pk}/undo/" id="undo-form"' in html
    assert "Undo my last submission (item 1)" in html
    # Another session (a new browser) offers it too: the database, not the session, says what
    # was last.
    other = _client(annotator)
    assert (
        "Undo my last submission (item 1)"
        in other.get(f"/annotate/campaigns/{campaign.pk}/").content.decode()
    )
    response = other.post(f"/annotate/assignments/{first.pk}/undo/", {"idempotency_key": "u1"})
    assert response.status_code == 302 and response.url == f"/annotate/assignments/{first.pk}/"
    assert [j.action for j in Judgement.objects.filter(assignment=first).order_by("id")] == [
        "submit",
        "undo",
    ]
    # Nothing more to undo until the next submission.
    assert (
        'id="undo-form"' not in client.get(f"/annotate/campaigns/{campaign.pk}/").content.decode()
    )
    # Finish everything: the all-done page still offers to undo the last one.
    while a := selectors.assignment_next(campaign_id=campaign.pk, annotator=annotator):
        client.post(
            f"/annotate/assignments/{a.pk}/",
            {**YES_ALL, "idempotency_key": services.new_idempotency_key()},
        )
    done = client.get(f"/annotate/campaigns/{campaign.pk}/").content.decode()
    assert 'id="all-done"' in done and 'id="undo-form"' in done


def test_agreement_and_adjudication_pages_speak_plainly(
    templates, annotator, second_annotator, researcher
):
    """Issue 18 2.7: criteria by their question, "Cohen's κ" (not `cohen_kappa`), raw
    agreement beside κ with the prevalence note, the adjudicator's note in the template's
    version history and a word-level diff between versions."""
    dataset = templates[0].template.dataset
    dataset_instantiate(dataset=dataset)
    campaign = services.campaign_create(
        dataset=dataset, kind="template_validation", annotators=[annotator, second_annotator]
    )
    # anu says no to (b) on the first template only; bela says yes to everything: 8 of 9
    # (item, criterion) pairs agree, kappa 0 (chance agreement 8/9).
    first_version = templates[0]
    for user in (annotator, second_annotator):
        while a := selectors.assignment_next(campaign_id=campaign.pk, annotator=user):
            answers = (
                {**YES_ALL, "b": "no"}
                if user == annotator and a.item.template_version_id == first_version.pk
                else YES_ALL
            )
            services.judgement_submit(
                assignment_id=a.pk,
                annotator=user,
                answers=answers,
                idempotency_key=services.new_idempotency_key(),
            )
    client = _client(researcher)
    dashboard = client.get(f"/annotate/manage/campaigns/{campaign.pk}/").content.decode()
    assert "cohen_kappa" not in dashboard and "Cohen&#x27;s κ" in dashboard
    assert "raw agreement 89%" in dashboard
    assert "(prevalence)" in dashboard and "“yes” is 94% of the judgements" in dashboard
    assert "(b) The negative question evokes the stereotype" in dashboard

    item = CampaignItem.objects.get(campaign=campaign, status="adjudication")
    page = client.get(f"/annotate/manage/items/{item.pk}/").content.decode()
    assert "(a) The template represents the intended stereotype." in page
    client.post(
        f"/annotate/manage/items/{item.pk}/",
        {
            "verdict": "edit",
            "note": "b: the question did not evoke the stereotype",
            "question_negative": "Who forgot the train ticket?",
            **{
                f: getattr(first_version, f)
                for f in ("ambiguous_context", "disambiguating_context", "question_non_negative")
            },
        },
    )
    template = first_version.template
    for url in (
        f"/annotate/manage/items/{item.pk}/",
        f"/templates/{template.pk}/",
    ):
        html = client.get(url).content.decode()
        history = html.split('id="versions"', 1)[1].split("</table>", 1)[0]
        assert "b: the question did not evoke the stereotype" in history, url
        assert "<ins>train </ins>" in history, url
