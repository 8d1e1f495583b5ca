"""Issue 22's journey on the demo dataset, translated and annotated through the real services:
two reviewed releases around a correction. The second release's card counts what the data
holds, its changelog names the correction, its hub folder loads config by config with the real
`datasets` and `huggingface_hub` (offline), and the provenance page of a corrected Hindi
instance shows the whole chain, concept to release (Playwright, 1366 and 390 px)."""

from __future__ import annotations

from collections import Counter

import pytest

from apps.accounts.pseudonyms import person_pseudonym
from apps.accounts.roles import ANNOTATOR
from apps.accounts.services import user_create_with_role
from apps.annotation import services as annotation_services
from apps.catalog.models import Instance
from apps.catalog.services import dataset_instantiate
from apps.releases.hub_export import release_hub_write
from apps.releases.selectors import release_document_json
from apps.releases.services import release_create
from apps.translation import engines, pipeline
from apps.translation import services as translation_services
from apps.translation.models import (
    CorrectionItem,
    TranslatedString,
    TranslationSource,
    translation_model_version,
)
from tests.translation.conftest import inline_queue, real_engines, tiny_model_dirs  # noqa: F401
from tests.translation.release_sections import work

from .support import assert_fits, assert_served_font, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

THRESHOLD = 0.75
HUMAN = "किसने टिकट खो दिया?"
CHAIN = ["concepts", "template", "vocabulary", "translation", "validation", "releases"]


def _translate_into_hindi(dataset, queue, *, validated: set[int]) -> TranslatedString:
    """The real translation job into Hindi, its strings found in the cache (written here under
    the tiny engines' own model versions, so the text is ours): every string passes the
    back-translation check but the first question of a template the campaign validated, which
    goes to the correction queue."""
    versions = engines.model_versions()
    key = translation_model_version(versions.forward, versions.backward, versions.embedder)
    texts = translation_services.sources_collect(
        dataset=dataset, source=TranslationSource.INSTANCES
    ).unique
    questions = set(
        Instance.objects.filter(template_version__in=validated, language="en").values_list(
            "question", flat=True
        )
    )
    flagged_text = sorted(text for text in texts if text in questions)[0]
    flagged = None
    for index, text in enumerate(texts):
        score = 0.6 if text == flagged_text else 0.9
        string = TranslatedString.objects.create(
            text_hash=pipeline.text_hash(text),
            language="hi",
            model_version=key,
            source_text=text,
            translation=f"हिंदी वाक्य {index}",
            back_translation=f"{text} (back)",
            similarity=score,
            threshold=THRESHOLD,
            passed=score >= THRESHOLD,
            forward_model_version=versions.forward,
            backward_model_version=versions.backward,
            embedder_version=versions.embedder,
        )
        flagged = string if text == flagged_text else flagged
    translation_services.translation_job_create(
        dataset=dataset, languages=["hi"], threshold=THRESHOLD
    )
    queue.drain()
    return flagged


def test_demo_dataset_publishes_itself(
    open_as,
    demo_users,
    demo_dataset,
    live_server,
    settings,
    tmp_path,
    monkeypatch,
    real_engines,  # noqa: F811
    inline_queue,  # noqa: F811
):
    settings.MEDIA_ROOT = tmp_path / "media"
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.setenv(name, "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf" / "datasets"))
    dataset, researcher = demo_dataset, demo_users["researcher"]
    annotators = [
        demo_users["annotator"],
        user_create_with_role(username="bina", role=ANNOTATOR, password="x"),
    ]
    for user in annotators:
        annotation_services.annotator_update(user=user, languages=["en", "hi"])
    dataset_instantiate(dataset=dataset)

    # Validation: both annotators approve every template (the reviewed release takes them).
    validation = annotation_services.campaign_create(
        dataset=dataset, kind="template_validation", annotators=annotators, name="Validation"
    )
    work(validation, lambda user, item: {"a": "yes", "b": "yes", "c": "yes"})
    # (The demo's other templates come approved; the campaign takes those in review.)
    validated = set(validation.items.values_list("template_version_id", flat=True))
    assert validated
    flagged = _translate_into_hindi(dataset, inline_queue, validated=validated)
    first = release_create(dataset=dataset, created_by=researcher)

    # The correction: an annotator rewrites the flagged question; its rows get a new revision.
    item = CorrectionItem.objects.get(translated_string=flagged)
    translation_services.correction_item_resolve(item=item, text=HUMAN, author=annotators[0])
    second = release_create(dataset=dataset, created_by=researcher)
    assert second.number == first.number + 1

    # The changelog names the correction (the corrected rows enter the reviewed release).
    changelog = release_document_json(release=second, kind="changelog")
    assert changelog["against"]["number"] == first.number
    corrected = Instance.objects.filter(
        dataset=dataset, language="hi", retired_at__isnull=True, question=HUMAN
    )
    (entry,) = [r for r in changelog["reasons"] if r["reason"] == "correction"]
    assert entry["n"] == corrected.count() > 0
    who = person_pseudonym(user_id=annotators[0].pk)
    assert f"correction item #{item.pk} by {who}" in entry["examples"][0]["detail"]

    # The card counts what the release holds.
    card = release_document_json(release=second, kind="card")
    members = Instance.objects.filter(memberships__release=second)
    by_cell = Counter(members.values_list("category__name", "language"))
    layout = card["layout"]["instances"]
    assert {(c, lang): n for c, langs in layout.items() for lang, n in langs.items()} == by_cell
    hindi = card["translation"]["languages"]["hi"]
    # (The demo also has templates written in Hindi: those rows are no translations.)
    hindi_members = members.filter(language="hi", source_instance__isnull=False)
    assert hindi["instances"] == hindi_members.count()
    for status in ("passed", "flagged", "corrected"):
        assert hindi["status"][status] == hindi_members.filter(review__status=status).count()
    assert hindi["status"]["corrected"] == corrected.count()
    assert hindi["thresholds"] == [{"threshold": THRESHOLD, "instances": hindi["instances"]}]
    assert hindi["corrections"]["corrections"] == 1
    readme = (tmp_path / "media" / second.files.get(kind="card", format="md").path).read_text()
    assert f"Against release {first.number}" in readme and "orrection" in readme

    # The hub folder loads config by config with the real packages, offline.
    import datasets
    from huggingface_hub import DatasetCard

    folder = release_hub_write(release=second, output=tmp_path / "hub")
    meta = DatasetCard.load(tmp_path / "hub" / "README.md").data.to_dict()
    configs = {c["config_name"]: c for c in meta["configs"]}
    assert set(configs) == {c["name"] for c in card["hub_configs"]}
    for name, config in configs.items():
        loaded = datasets.load_dataset(str(tmp_path / "hub"), name)
        assert set(loaded) == {f["split"] for f in config["data_files"]}
        spec = next(c for c in card["hub_configs"] if c["name"] == name)
        for split, language in spec["splits"].items():
            if spec["kind"] == "instances":
                expected = members.filter(language=language)
                if spec["category"]:
                    expected = expected.filter(category__name=spec["category"])
                assert loaded[split].num_rows == expected.count()
            else:  # the other kinds, as the release counted them
                cells = card["layout"][spec["kind"]]
                n = sum(
                    langs.get(language, 0)
                    for category, langs in cells.items()
                    if spec["category"] in (None, category)
                )
                assert loaded[split].num_rows == n > 0
    assert folder is not None

    # The provenance page of a corrected Hindi instance: the whole chain.
    instance = corrected.order_by("id").first()
    page = open_as("anu", width=1366, height=900)
    page.goto(f"{live_server.url}/instances/{instance.pk}/provenance/")
    tops = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll("section.provenance-step")]
            .filter(s => s.dataset.applies === "yes")
            .map(s => [s.dataset.step, s.getBoundingClientRect().top + window.scrollY]))"""
    )
    assert sorted(tops, key=tops.get) == CHAIN
    translation_text = page.text_content("#step-translation")
    assert HUMAN in translation_text and who in translation_text
    assert "anu" not in page.text_content("#provenance-chain")
    releases_text = page.text_content("#step-releases")
    assert f"{second.number}" in releases_text
    assert_served_font(page, "#instance-texts", "hi")
    assert_fits(page)
    shot(page, "publish_journey_provenance_1366", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    assert_fits(page)
    shot(page, "publish_journey_provenance_390", full_page=True)

    # The release page: the changelog naming the correction, and the card.
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/releases/{second.pk}/")
    assert f"correction item #{item.pk}" in page.text_content("body")
    assert page.locator("#dataset-card").count() == 1
    assert_fits(page)
    shot(page, "publish_journey_release_1366", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    assert_fits(page)
    shot(page, "publish_journey_release_390", full_page=True)
