"""The adaptation record's services (apps/catalog/services/adaptation.py) and the studio's
rules on template versions: a concurrent edit is refused, a draft kept with errors is neither
instantiated, approved nor sent to validation."""

from __future__ import annotations

import pytest

from apps.catalog.models import (
    Adaptation,
    Instance,
    ReviewStatus,
    TemplateVersion,
    TransformationType,
    UnknownExpression,
)
from apps.catalog.services import (
    TemplateEditConflict,
    adaptation_link,
    adaptation_links_replace,
    adaptation_remove,
    adaptation_restore,
    adaptation_start,
    dataset_instantiate,
    dataset_source_set,
    instantiation_plan,
    template_create,
    template_edit,
)
from apps.catalog.versions import template_version_approve
from apps.core.errors import ConflictError, KasautiError
from tests.factories import CategoryFactory, DatasetFactory, TemplateVersionFactory

pytestmark = pytest.mark.django_db

HINDI_CONTEXT = "एक {{NAME1}} और एक {{NAME2}} बस स्टॉप पर इंतज़ार कर रहे थे।"


@pytest.fixture
def source():
    bbq = DatasetFactory(name="bbq")
    versions = [
        TemplateVersionFactory(template__dataset=bbq, template__external_id=f"Age-{n}")
        for n in (1, 2, 3)
    ]
    return bbq, versions


@pytest.fixture
def target(source):
    target = DatasetFactory(name="hindi-bbq")
    return dataset_source_set(dataset=target, source=source[0])


def test_a_dataset_cannot_adapt_itself_or_its_own_adaptation(source, target):
    bbq = source[0]
    with pytest.raises(KasautiError, match="cannot adapt itself"):
        dataset_source_set(dataset=bbq, source=bbq)
    with pytest.raises(KasautiError, match="is adapted, directly or not, from bbq"):
        dataset_source_set(dataset=bbq, source=target)
    bbq.refresh_from_db()
    assert bbq.adapted_from is None


def test_start_copies_the_source_into_a_linked_draft(source, target):
    _, versions = source
    draft = adaptation_start(
        dataset=target,
        source_template=versions[0].template,
        transformation_type=TransformationType.TARGET_MODIFIED,
        language="hi",
        reason="Caste instead of race",
    )
    assert draft.template.dataset == target
    assert draft.template.external_id == "Age-1"
    assert draft.status == ReviewStatus.DRAFT
    assert draft.transformation_type == "TM"
    assert draft.transformation_reason == "Caste instead of race"
    assert draft.language == "hi"
    assert draft.generator == "kasauti"
    assert draft.ambiguous_context == versions[0].ambiguous_context
    assert draft.placeholders == versions[0].placeholders
    # No unknown answer exists in Hindi yet: kept as a draft with that error, not refused.
    assert [p["field"] for p in draft.problems] == ["language"]
    link = Adaptation.objects.get(dataset=target)
    assert (link.source, link.template) == (versions[0].template, draft.template)
    # A second adaptation of the same source (e.g. its proper-noun version) gets its own id.
    second = adaptation_start(
        dataset=target,
        source_template=versions[0].template,
        transformation_type="ST",
        language="hi",
    )
    assert second.template.external_id == "Age-1-2"


def test_only_st_tm_ct_are_adaptations_and_only_source_templates(source, target):
    _, versions = source
    with pytest.raises(KasautiError, match="ST, TM or CT"):
        adaptation_start(
            dataset=target, source_template=versions[0].template, transformation_type="SR",
            language="hi",
        )  # fmt: skip
    stranger = TemplateVersionFactory()
    with pytest.raises(KasautiError, match="is not a template of bbq"):
        adaptation_start(
            dataset=target, source_template=stranger.template, transformation_type="ST",
            language="hi",
        )  # fmt: skip
    assert not Adaptation.objects.exists()


def test_removal_needs_a_reason_and_excludes_adaptation(source, target):
    _, versions = source
    template = versions[1].template
    with pytest.raises(KasautiError, match="reason"):
        adaptation_remove(dataset=target, source_template=template, reason="  ")
    removed = adaptation_remove(
        dataset=target, source_template=template, reason="No reference attests it in India"
    )
    assert removed.removed and removed.reason == "No reference attests it in India"
    with pytest.raises(ConflictError, match="Sample-Removed"):
        adaptation_start(
            dataset=target, source_template=template, transformation_type="ST", language="hi"
        )
    assert adaptation_restore(dataset=target, source_template=template) == 1
    adaptation_start(
        dataset=target, source_template=template, transformation_type="ST", language="hi"
    )
    with pytest.raises(ConflictError, match="already adapted"):
        adaptation_remove(dataset=target, source_template=template, reason="changed my mind")


def test_source_cannot_change_once_links_exist(source, target):
    _, versions = source
    adaptation_start(
        dataset=target, source_template=versions[0].template, transformation_type="ST",
        language="hi",
    )  # fmt: skip
    with pytest.raises(ConflictError, match="already records adaptations of bbq"):
        dataset_source_set(dataset=target, source=DatasetFactory())


def test_link_an_existing_template_and_replace_an_imports_links(source, target):
    _, versions = source
    written = TemplateVersionFactory(template__dataset=target, template__external_id="Age-1p")
    adaptation_link(dataset=target, source_template=versions[0].template, template=written.template)
    adaptation_link(dataset=target, source_template=versions[0].template, template=written.template)
    assert Adaptation.objects.filter(dataset=target).count() == 1
    links, removed = adaptation_links_replace(
        dataset=target,
        templates=[written.template],
        links=[(versions[0].template, written.template), (versions[0].template, written.template)],
        removed_reason="not adapted in the imported files",
    )
    assert (links, removed) == (1, 2)
    assert sorted(
        Adaptation.objects.filter(dataset=target, template=None).values_list(
            "source__external_id", "reason"
        )
    ) == [
        ("Age-2", "not adapted in the imported files"),
        ("Age-3", "not adapted in the imported files"),
    ]


def test_an_edit_from_an_older_version_is_refused_with_both_versions():
    v1 = TemplateVersionFactory()
    template_edit(template=v1.template, changes={"question_negative": "Who forgot it?"})
    with pytest.raises(TemplateEditConflict) as refused:
        template_edit(
            template=v1.template,
            changes={"question_negative": "Who lost the ticket?"},
            base_number=1,
        )
    assert (refused.value.base.number, refused.value.current.number) == (1, 2)
    assert "started from version 1" in str(refused.value)
    assert refused.value.status_code == 409
    assert v1.template.versions.count() == 2
    # From the current version the same edit goes through.
    v3 = template_edit(
        template=v1.template, changes={"question_negative": "Who lost the ticket?"}, base_number=2
    )
    assert v3.number == 3


def test_a_draft_with_errors_is_kept_but_neither_instantiated_nor_approved():
    UnknownExpression.objects.create(language="hi", text="पता नहीं")
    dataset = DatasetFactory()
    category = CategoryFactory(name="Age")
    draft = template_create(
        dataset=dataset,
        external_id="hi-1",
        category=category,
        content={
            "language": "hi",
            "ambiguous_context": HINDI_CONTEXT,
            "disambiguating_context": "किसी को टिकट याद नहीं था।",  # names neither NAME
            "question_negative": "टिकट कौन भूल गया?",
            "question_non_negative": "कौन तैयार था?",
            "placeholders": {"NAME1": ["दादा"], "NAME2": ["पोता"]},
        },
        allow_problems=True,
    )
    assert [p["field"] for p in draft.problems] == ["disambiguating_context"]
    with pytest.raises(KasautiError, match="cannot be approved"):
        template_version_approve(version_id=draft.pk)
    draft.refresh_from_db()
    assert draft.status == ReviewStatus.DRAFT
    assert instantiation_plan(dataset=dataset).skipped == ["hi-1"]
    assert dataset_instantiate(dataset=dataset)["created"] == 0
    # Without allow_problems (the API, imports) the same content is refused outright.
    with pytest.raises(KasautiError, match="disambiguate"):
        template_edit(template=draft.template, changes={"question_negative": "कौन?"})
    # A draft with errors cannot be saved as anything but a draft.
    with pytest.raises(KasautiError, match="only as a draft"):
        template_edit(template=draft.template, changes={"status": "in_review"}, allow_problems=True)
    fixed = template_edit(
        template=draft.template,
        changes={"disambiguating_context": "{{NAME1}} टिकट भूल गया था।"},
        allow_problems=True,
    )
    assert fixed.problems == []
    assert dataset_instantiate(dataset=dataset)["created"] == 4
    assert Instance.objects.filter(template_version=fixed).count() == 4
    assert TemplateVersion.objects.filter(template=draft.template).count() == 2


def test_a_refused_template_leaves_no_new_category_behind():
    from apps.catalog.models import Category

    existing = TemplateVersionFactory(template__external_id="Caste-1")
    content = {
        name: getattr(existing, name)
        for name in ("ambiguous_context", "disambiguating_context", "question_negative",
                     "question_non_negative", "placeholders")
    }  # fmt: skip
    with pytest.raises(ConflictError, match="already exists"):
        template_create(
            dataset=existing.template.dataset,
            external_id="Caste-1",
            category=None,
            new_category="Caste (new)",
            content=content,
        )
    assert not Category.objects.filter(name="Caste (new)").exists()
    made = template_create(
        dataset=existing.template.dataset,
        external_id="Caste-2",
        category=None,
        new_category=" Caste (new) ",
        content=content,
    )
    assert made.template.category.name == "Caste (new)"
