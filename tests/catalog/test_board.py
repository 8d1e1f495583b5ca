"""The adaptation board (apps/catalog/board.py, views_board.py): a dataset's source set in the
browser, each source template's status from its adaptations, progress per source category on
hand-counted cases, the actions (start, remove with a reason, restore, link) with their
refusals shown on the row, permissions, escaping, a bounded number of queries, and concept
coverage by approved templates."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.catalog import board
from apps.catalog.models import (
    Adaptation,
    Category,
    Dataset,
    EvidenceReference,
    StereotypeConcept,
    Template,
    UnknownExpression,
)
from apps.catalog.services import (
    adaptation_remove,
    adaptation_start,
    dataset_source_set,
    template_edit,
)
from tests.factories import TemplateFactory, TemplateVersionFactory

pytestmark = pytest.mark.django_db


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def bbq():
    """A source with Age (A1..A3) and Religion (R1, R2), approved English templates."""
    source = Dataset.objects.create(name="bbq-src")
    age, religion = (Category.objects.get_or_create(name=n)[0] for n in ("Age", "Religion"))
    made = {}
    for external_id, category in [
        ("A1", age),
        ("A2", age),
        ("A3", age),
        ("R1", religion),
        ("R2", religion),
    ]:
        version = TemplateVersionFactory(
            template=TemplateFactory(dataset=source, external_id=external_id, category=category),
            status="approved",
        )
        made[external_id] = version.template
    return made


@pytest.fixture
def esbbq(bbq):
    dataset = Dataset.objects.create(name="esbbq-tgt", inclusion_rule="esbbq")
    dataset = dataset_source_set(dataset=dataset, source=Dataset.objects.get(name="bbq-src"))
    UnknownExpression.objects.get_or_create(language="es", text="No se puede determinar")
    return dataset


def _start(dataset, source, status="draft", **kwargs):
    version = adaptation_start(
        dataset=dataset,
        source_template=source,
        transformation_type=kwargs.pop("transformation_type", "ST"),
        language="es",
        **kwargs,
    )
    if status != "draft":
        version = template_edit(template=version.template, changes={"status": status})
    return version


def _counts(dataset) -> dict[str, dict[str, int]]:
    return {
        p.category.name: {s: n for s, n in p.counts.items() if n}
        for p in board.board_progress(dataset=dataset)
    }


# --- statuses and progress --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("removed", "targets", "expected"),
    [
        (False, [], "to_do"),
        (True, [], "removed"),
        (False, ["approved"], "approved"),
        (False, ["approved", "drafted"], "drafted"),
        (False, ["approved", "rejected"], "rejected"),
        (False, ["approved", "in_validation"], "in_validation"),
        (False, ["rejected", "drafted"], "drafted"),
    ],
)
def test_a_source_is_as_far_as_its_least_advanced_adaptation(removed, targets, expected):
    assert board.source_status(removed=removed, target_statuses=targets) == expected


def test_progress_per_category_on_a_hand_counted_case(bbq, esbbq):
    assert _counts(esbbq) == {"Age": {"to_do": 3}, "Religion": {"to_do": 2}}
    _start(esbbq, bbq["A1"])  # drafted
    _start(esbbq, bbq["A2"], status="approved")
    adaptation_remove(dataset=esbbq, source_template=bbq["A3"], reason="no reference")
    _start(esbbq, bbq["R1"], status="in_review", transformation_type="TM")
    assert _counts(esbbq) == {
        "Age": {"drafted": 1, "approved": 1, "removed": 1},
        "Religion": {"in_validation": 1, "to_do": 1},
    }
    age = board.board_progress(dataset=esbbq)[0]
    assert (age.total, age.done) == (3, 2)
    assert [(s, n) for s, _, n, _ in age.bar] == [("drafted", 1), ("approved", 1), ("removed", 1)]
    # A second adaptation (the proper-noun version) still a draft: A2 is drafted again.
    _start(esbbq, bbq["A2"])
    assert _counts(esbbq)["Age"] == {"drafted": 2, "removed": 1}
    # Progress counts source categories: a draft reclassified into Religion counts in Age.
    _start(esbbq, bbq["R2"], category=Category.objects.get(name="Age"))
    assert _counts(esbbq)["Religion"] == {"in_validation": 1, "drafted": 1}


def test_text_segments_mark_placeholders_and_keep_the_rest():
    pieces = board.text_segments("A {{NAME1}} and {{ NAME2-def }} met.")
    assert [(p.text, p.placeholder) for p in pieces] == [
        ("A ", False),
        ("{{NAME1}}", True),
        (" and ", False),
        ("{{ NAME2-def }}", True),
        (" met.", False),
    ]


# --- pages and actions ------------------------------------------------------------------------


def test_a_dataset_without_source_offers_to_choose_one(bbq, researcher, annotator):
    target = Dataset.objects.create(name="hi-adapt")
    url = reverse("web:adaptation-board", args=[target.pk])
    page = client_for(researcher).get(url)
    assert page.status_code == 200 and b'id="source-form"' in page.content
    assert b"bbq-src" in page.content and b"hi-adapt</option>" not in page.content
    as_annotator = client_for(annotator)
    assert b'id="source-form"' not in as_annotator.get(url).content
    source = Dataset.objects.get(name="bbq-src")
    post = reverse("web:adaptation-source", args=[target.pk])
    assert as_annotator.post(post, {"source": source.pk}).status_code == 403
    done = client_for(researcher).post(post, {"source": source.pk})
    assert done.status_code == 302 and done["Location"] == url
    target.refresh_from_db()
    assert target.adapted_from == source


def test_setting_a_source_that_adapts_the_dataset_is_refused_on_the_page(bbq, esbbq, researcher):
    _start(esbbq, bbq["A1"])  # a dataset with templates can be chosen as a source
    source = Dataset.objects.get(name="bbq-src")
    page = client_for(researcher).post(
        reverse("web:adaptation-source", args=[source.pk]), {"source": esbbq.pk}
    )
    assert page.status_code == 400
    assert "is adapted, directly or not, from bbq-src" in page.content.decode()


def test_start_copies_the_source_into_a_draft_and_opens_it(bbq, esbbq, researcher):
    religion = Category.objects.get(name="Religion")
    response = client_for(researcher).post(
        reverse("web:adaptation-start", args=[esbbq.pk]),
        {
            "source_template": bbq["A1"].pk,
            "transformation_type": "TM",
            "language": "es",
            "category": religion.pk,
            "reason": "los grupos cambian",
        },
    )
    link = Adaptation.objects.get(dataset=esbbq, source=bbq["A1"])
    version = link.template.versions.get()
    assert response.status_code == 302
    # The editing page when it exists, else the template's page.
    assert response["Location"] in (
        f"/templates/{link.template_id}/",
        f"/templates/{link.template_id}/edit/",
    )
    assert response["Location"] == reverse(board_edit_url_name(), args=[link.template_id])
    assert (version.status, version.language, version.transformation_type) == ("draft", "es", "TM")
    assert (
        link.template.category == religion and version.transformation_reason == "los grupos cambian"
    )
    assert version.generator == "kasauti" and version.created_by == researcher


def board_edit_url_name() -> str:
    from apps.catalog.views_board import TEMPLATE_EDIT_URL

    return TEMPLATE_EDIT_URL


def test_the_board_shows_each_source_beside_its_adaptation(bbq, esbbq, researcher):
    concept = StereotypeConcept.objects.create(
        category=Category.objects.get(name="Age"),
        dataset=esbbq,
        statement="Las personas mayores olvidan",
        source="survey",
        mentions=3,
        validation_status="validated",
    )
    EvidenceReference.objects.create(
        concept=concept, url="https://example.org/estudio", quote="«olvidan todo»"
    )
    version = _start(esbbq, bbq["A1"], reason="mismo estereotipo")
    template_edit(
        template=version.template,
        changes={
            "ambiguous_context": "Un {{NAME1}} y un {{NAME2}} esperaban.",
            "concept_id": concept.pk,
        },
    )
    adaptation_remove(dataset=esbbq, source_template=bbq["A3"], reason="sin referencias")
    page = client_for(researcher).get(reverse("web:adaptation-board", args=[esbbq.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert '<mark class="ph">{{NAME1}}</mark>' in html
    assert 'lang="es" class="target-text"' in html
    assert "Un <mark" in html and "Simply Transferred (ST)" in html
    assert "«olvidan todo»" in html and "https://example.org/estudio" in html
    assert 'Sample-Removed: <span class="reason">sin referencias</span>' in html
    assert 'data-testid="status-A1">Drafted' in html
    assert 'data-testid="status-A2">To do' in html
    assert 'data-testid="status-A3">Removed' in html
    assert f'id="restore-{bbq["A3"].pk}"' in html
    # Religion is on its own tab.
    assert 'data-source="R1"' not in html
    religion = Category.objects.get(name="Religion")
    other = client_for(researcher).get(
        reverse("web:adaptation-board", args=[esbbq.pk]), {"category": religion.pk}
    )
    assert 'data-source="R1"' in other.content.decode()
    drafted = client_for(researcher).get(
        reverse("web:adaptation-board", args=[esbbq.pk]), {"status": "drafted"}
    )
    assert [r.template.external_id for r in drafted.context["board"].rows] == ["A1"]


def test_remove_needs_a_reason_shown_on_the_row(bbq, esbbq, researcher):
    client = client_for(researcher)
    url = reverse("web:adaptation-remove", args=[esbbq.pk])
    refused = client.post(url, {"source_template": bbq["A2"].pk, "reason": "   "})
    assert refused.status_code == 400
    html = refused.content.decode()
    assert f'id="error-{bbq["A2"].pk}"' in html and "Say why the template is removed." in html
    assert not Adaptation.objects.filter(dataset=esbbq).exists()
    done = client.post(
        url, {"source_template": bbq["A2"].pk, "reason": "no es relevante", "back": "status=to_do"}
    )
    assert done.status_code == 302
    assert done["Location"] == reverse("web:adaptation-board", args=[esbbq.pk]) + "?status=to_do"
    assert Adaptation.objects.get(dataset=esbbq, source=bbq["A2"]).reason == "no es relevante"
    # Adapting a removed template is refused, with the reason on the row and the typed values kept.
    refused = client.post(
        reverse("web:adaptation-start", args=[esbbq.pk]),
        {
            "source_template": bbq["A2"].pk,
            "transformation_type": "CT",
            "language": "ca",
            "category": bbq["A2"].category_id,
        },
    )
    html = refused.content.decode()
    assert refused.status_code == 400 and "restore it before adapting it" in html
    restore = client.post(
        reverse("web:adaptation-restore", args=[esbbq.pk]), {"source_template": bbq["A2"].pk}
    )
    assert restore.status_code == 302
    assert not Adaptation.objects.filter(dataset=esbbq).exists()


def test_link_an_existing_template_and_refusals(bbq, esbbq, researcher):
    first = _start(esbbq, bbq["A1"])
    client = client_for(researcher)
    url = reverse("web:adaptation-link", args=[esbbq.pk])
    unknown = client.post(url, {"source_template": bbq["A2"].pk, "template": "nowhere"})
    assert unknown.status_code == 400
    assert "esbbq-tgt has no template &#x27;nowhere&#x27;" in unknown.content.decode()
    done = client.post(
        url, {"source_template": bbq["A2"].pk, "template": first.template.external_id}
    )
    assert done.status_code == 302
    assert set(
        Adaptation.objects.filter(template=first.template).values_list(
            "source__external_id", flat=True
        )
    ) == {"A1", "A2"}
    # A template of another dataset (the source itself) is not this dataset's source template.
    stray = TemplateFactory(external_id="Z9")
    TemplateVersionFactory(template=stray)
    wrong = client.post(url, {"source_template": stray.pk, "template": first.template.external_id})
    assert (
        wrong.status_code == 400 and "not in this dataset&#x27;s source" in wrong.content.decode()
    )


def test_bad_language_code_is_refused_beside_the_row(bbq, esbbq, researcher):
    response = client_for(researcher).post(
        reverse("web:adaptation-start", args=[esbbq.pk]),
        {
            "source_template": bbq["R1"].pk,
            "transformation_type": "ST",
            "language": "Spanish",
            "category": bbq["R1"].category_id,
        },
    )
    html = response.content.decode()
    assert response.status_code == 400
    assert "Target language: &#x27;Spanish&#x27; is not a language code" in html
    # What was typed is kept in the row's form, which is open.
    language = f'id="start-language-{bbq["R1"].pk}" list="language-codes" required'
    assert f'{language} maxlength="16" value="Spanish"' in html
    # The board opened on R1's category so the row and its error are on the page.
    assert f'id="error-{bbq["R1"].pk}"' in html
    assert not Template.objects.filter(dataset=esbbq).exists()


@pytest.mark.parametrize("action", ["start", "remove", "restore", "link", "source"])
def test_annotators_cannot_act_on_the_board(bbq, esbbq, annotator, action):
    response = client_for(annotator).post(
        reverse(f"web:adaptation-{action}", args=[esbbq.pk]),
        {
            "source_template": bbq["A1"].pk,
            "reason": "x",
            "transformation_type": "ST",
            "language": "es",
            "category": bbq["A1"].category_id,
            "template": "A1",
        },
    )
    assert response.status_code == 403
    assert not Adaptation.objects.filter(dataset=esbbq).exists()


def test_annotators_see_the_board_without_its_forms(bbq, esbbq, annotator):
    _start(esbbq, bbq["A1"])
    page = client_for(annotator).get(reverse("web:adaptation-board", args=[esbbq.pk]))
    html = page.content.decode()
    assert page.status_code == 200 and 'data-testid="status-A1">Drafted' in html
    assert "Start adaptation" not in html and "csrfmiddlewaretoken" not in html.split("<main>")[1]


def test_a_get_on_an_action_address_says_what_it_is_for(esbbq, researcher):
    page = client_for(researcher).get(reverse("web:adaptation-remove", args=[esbbq.pk]))
    assert page.status_code == 405 and b"Sample-Removed" in page.content


def test_html_in_texts_and_reasons_is_escaped(bbq, esbbq, researcher):
    attack = "<script>alert(1)</script>"
    template_edit(template=bbq["A1"], changes={"question_negative": f"Who {attack}?"})
    version = _start(esbbq, bbq["A1"], reason=attack)
    template_edit(
        template=version.template,
        changes={"ambiguous_context": f"{attack} {{{{NAME1}}}} {{{{NAME2}}}}"},
    )
    adaptation_remove(dataset=esbbq, source_template=bbq["A2"], reason=attack)
    html = client_for(researcher).get(reverse("web:adaptation-board", args=[esbbq.pk])).content
    assert b"<script>alert" not in html
    assert html.count(b"&lt;script&gt;alert(1)&lt;/script&gt;") >= 4


def test_the_board_costs_the_same_queries_for_5_or_60_rows(researcher):
    """A large source (BBQ: ~450 templates) renders one category, one page at a time, in a
    fixed number of queries: no query per row, per adaptation or per evidence."""
    source = Dataset.objects.create(name="big-src")
    category = Category.objects.get_or_create(name="Nationality")[0]
    UnknownExpression.objects.get_or_create(language="hi", text="पता नहीं")
    concept = StereotypeConcept.objects.create(category=category, statement="s", mentions=3)
    EvidenceReference.objects.create(concept=concept, url="https://example.org/a")
    target = Dataset.objects.create(name="big-tgt")
    target = dataset_source_set(dataset=target, source=source)
    client = client_for(researcher)
    url = reverse("web:adaptation-board", args=[target.pk])

    def grow_to(n):
        while source.templates.count() < n:
            t = TemplateVersionFactory(
                template=TemplateFactory(dataset=source, category=category)
            ).template
            if t.pk % 3 == 0:
                adaptation_remove(dataset=target, source_template=t, reason="r")
            else:
                v = adaptation_start(
                    dataset=target, source_template=t, transformation_type="ST", language="hi"
                )
                template_edit(template=v.template, changes={"concept_id": concept.pk})

    grow_to(5)
    client.get(url)  # warm caches (sessions, content types)
    with CaptureQueriesContext(connection) as small:
        assert client.get(url).status_code == 200
    grow_to(60)
    with CaptureQueriesContext(connection) as large:
        page = client.get(url)
    assert page.status_code == 200
    assert len(page.context["board"].rows) == board.ROWS_PER_PAGE
    assert len(large.captured_queries) == len(small.captured_queries), "\n".join(
        q["sql"][:300] for q in large.captured_queries
    )
    assert len(large.captured_queries) <= 22


# --- coverage ---------------------------------------------------------------------------------


def _concept(dataset, statement, *, usable=True, category="Age"):
    concept = StereotypeConcept.objects.create(
        category=Category.objects.get_or_create(name=category)[0],
        dataset=dataset,
        statement=statement,
        source="survey",
        mentions=3 if usable else 1,
        validation_status="validated",
    )
    EvidenceReference.objects.create(concept=concept, url="https://example.org/" + statement)
    return concept


def test_coverage_counts_approved_templates_per_usable_concept(bbq, esbbq, researcher):
    two = _concept(esbbq, "two-approved")
    one = _concept(esbbq, "one-approved")
    none = _concept(esbbq, "none")
    _concept(esbbq, "unusable", usable=False)
    elsewhere = _concept(Dataset.objects.get(name="bbq-src"), "other-dataset")

    def probe(source, concept, status):
        v = _start(esbbq, source)
        template_edit(template=v.template, changes={"concept_id": concept.pk, "status": status})

    probe(bbq["A1"], two, "approved")
    probe(bbq["A2"], two, "approved")
    probe(bbq["A3"], one, "approved")
    probe(bbq["R1"], one, "draft")
    probe(bbq["R2"], elsewhere, "approved")  # approved, but its concept is another dataset's
    # An older approved version does not count: the current version is a draft.
    v = _start(esbbq, bbq["A1"])
    template_edit(template=v.template, changes={"concept_id": none.pk, "status": "approved"})
    template_edit(template=v.template, changes={"status": "draft"})

    coverage = board.concept_coverage(dataset=esbbq)
    got = {r.concept.statement: (r.approved, r.in_progress, r.below_minimum) for r in coverage.rows}
    assert got == {
        "two-approved": (2, 0, False),
        "one-approved": (1, 1, True),
        "none": (0, 1, True),
    }
    # The flagged ones come first.
    assert [r.concept.statement for r in coverage.rows][-1] == "two-approved"
    page = client_for(researcher).get(reverse("web:coverage", args=[esbbq.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert "<strong>2</strong> of 3 usable concepts have fewer than 2 approved templates" in html
    assert f'data-testid="approved-{two.pk}">2<' in html
    assert html.count("below 2") == 2


def test_coverage_includes_shared_concepts_and_escapes(esbbq, annotator):
    shared = _concept(None, "<b>shared</b>")
    page = client_for(annotator).get(reverse("web:coverage", args=[esbbq.pk]))
    html = page.content.decode()
    assert "&lt;b&gt;shared&lt;/b&gt;" in html and "(shared)" in html
    assert f'data-concept="{shared.pk}" class="below"' in html
