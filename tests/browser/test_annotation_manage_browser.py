"""The researcher's side of the workbench in a real browser: the threshold calibration plot and
table, the Table 3 report and its CSV download, the people page (create an annotator, set
languages, deactivate), and every researcher page refusing an annotator with 403."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse
from sklearn.metrics import cohen_kappa_score

from apps.accounts.roles import ANNOTATOR
from apps.accounts.services import user_create_with_role
from apps.annotation import selectors, services, urls
from apps.annotation.models import AnnotatorProfile, Campaign, CampaignItem, Decision
from apps.catalog.models import Instance
from apps.catalog.services import dataset_instantiate
from tests.factories import TemplateVersionFactory, TranslatedStringFactory

from .conftest import PASSWORD
from .support import assert_fits, navigates, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


@pytest.fixture
def two_annotators(demo_users):
    bela = user_create_with_role(username="bela", role=ANNOTATOR, password=PASSWORD)
    for user in (demo_users["annotator"], bela):
        services.annotator_update(user=user, languages=["en", "hi"])
    return [demo_users["annotator"], bela]


@pytest.fixture
def dataset(transactional_db):
    """One template: 4 ambiguous contexts and 2 questions in English, each translated into
    Hindi with the similarity given by its position (see SIMILARITY)."""
    dataset = TemplateVersionFactory().template.dataset
    dataset_instantiate(dataset=dataset)
    return dataset


def _sources(dataset) -> dict[str, list[str]]:
    english = Instance.objects.filter(dataset=dataset, language="en")
    return {
        "ctx": sorted(
            set(english.filter(context_condition="ambig").values_list("context", flat=True))
        ),
        "qn": sorted(set(english.values_list("question", flat=True))),
    }


def _translate(dataset, similarity: dict[str, list[float]]) -> None:
    for segment, texts in _sources(dataset).items():
        for i, (text, score) in enumerate(zip(texts, similarity[segment], strict=True)):
            TranslatedStringFactory(
                source_text=text, translation=f"अनुवाद {segment} {i}", similarity=score
            )


def _scoring_campaign(dataset, annotators, *, sample_size: int):
    """A Hindi translation-scoring campaign over strings that all passed the threshold."""
    _translate(dataset, {"ctx": [0.91, 0.92, 0.93, 0.94], "qn": [0.95, 0.96]})
    return services.campaign_create(
        dataset=dataset,
        kind="translation_scoring",
        language="hi",
        annotators=annotators,
        sample_size=sample_size,
    )


def _score(campaign, annotators, scores) -> None:
    """scores(item, slot) -> (adequacy, fluency), submitted through the service."""
    for user in annotators:
        while (a := selectors.assignment_next(campaign_id=campaign.pk, annotator=user)) is not None:
            adequacy, fluency = scores(a.item, a.slot)
            services.judgement_submit(
                assignment_id=a.pk,
                annotator=user,
                answers={
                    "adequacy": adequacy,
                    "fluency": fluency,
                    "adequacy_reason": "Compared with the source.",
                    "fluency_reason": "Read aloud.",
                },
                idempotency_key=services.new_idempotency_key(),
            )


def _rows(page, table: str) -> list[list[str]]:
    rows = page.locator(f"{table} tbody tr")
    return [
        [c.strip() for c in rows.nth(i).locator("th, td").all_text_contents()]
        for i in range(rows.count())
    ]


# similarity -> the two annotators' adequacy: across the whole range, as calibration samples.
CALIBRATION = {
    0.56: (2, 1),
    0.68: (3, 4),
    0.81: (5, 4),
    0.93: (5, 5),
    0.72: (4, 4),
    0.97: (2, 3),
}


def test_calibration_plot_and_thresholds(live_server, open_as, two_annotators, dataset):
    _translate(dataset, {"ctx": [0.56, 0.68, 0.81, 0.93], "qn": [0.72, 0.97]})
    campaign = services.campaign_create(
        dataset=dataset, kind="calibration", language="hi", annotators=two_annotators
    )
    assert campaign.items.count() == 6  # every string, failed ones included
    _score(
        campaign,
        two_annotators,
        lambda item, slot: (CALIBRATION[item.translated_string.similarity][slot], 4),
    )
    page = open_as("rekha")
    page.goto(f"{live_server.url}/annotate/manage/campaigns/{campaign.pk}/")

    # The plot: one point per item at (cosine, mean adequacy), scaled to the 360 x 180 frame,
    # whose x axis spans the tenths around the judged cosines (0.5 .. 1.0 here).
    points = page.locator("#calibration-plot circle")
    drawn = sorted(
        (int(points.nth(i).get_attribute("cx")), int(points.nth(i).get_attribute("cy")))
        for i in range(points.count())
    )
    expected = sorted(
        (round((sim - 0.5) / 0.5 * 360), round(sum(a) / 2 / 5 * 180))
        for sim, a in CALIBRATION.items()
    )
    assert drawn == expected

    # Per threshold, every hundredth across the judged range (0.56 .. 0.97), one row for each
    # run that passes the same items: passed items, the share of them humans score >= 4
    # (mean), the share of items scored >= 4 that pass. Good items: 0.72, 0.81, 0.93.
    good = {0.72, 0.81, 0.93}
    rows = []
    for hundredth in range(56, 98):
        passed = [sim for sim in CALIBRATION if sim >= hundredth / 100]
        good_passed = len(good.intersection(passed))
        if rows and rows[-1][1] == str(len(passed)):
            continue
        rows.append(
            [
                f"{hundredth / 100:.2f}",
                str(len(passed)),
                f"{good_passed / len(passed):.3f}",
                f"{good_passed / 3:.3f}",
            ]
        )
    assert _rows(page, "#calibration") == rows
    assert rows[-1][1:3] == ["1", "0.000"]  # 0.97 is scored 2.5: nothing that passes is good
    # No threshold reaches 90%: the fallback is the best precision (3 of 4 passed items good,
    # from 0.69 to 0.72), the lowest threshold among equals, and the page says so.
    assert page.text_content("#suggested-threshold") == "0.69"
    assert "best precision" in page.text_content("#suggestion-reason")
    assert [r[0] for r in rows] == ["0.56", "0.57", "0.69", "0.73", "0.82", "0.94"]
    assert "suggested" in page.get_attribute("#calibration tbody tr:nth-child(3)", "class")
    assert page.get_attribute("#apply-threshold", "href").endswith("threshold=0.69")
    page.locator("#calibration-plot").scroll_into_view_if_needed()
    shot(page, "annotation_calibration", full_page=True)


@pytest.mark.parametrize("width", [1366, 390])
def test_a_scoring_campaign_dashboard_calibrates_with_its_judgements(
    live_server, open_as, two_annotators, dataset, width
):
    """ISSUE18 4.2: Table 3's judgements calibrate too; the plot's axis spans them."""
    campaign = _scoring_campaign(dataset, two_annotators, sample_size=4)
    _score(
        campaign,
        two_annotators,
        lambda item, slot: (5 if item.translated_string.similarity >= 0.93 else 2, 4),
    )
    page = open_as("rekha", width=width, height=900)
    page.goto(f"{live_server.url}/annotate/manage/campaigns/{campaign.pk}/")
    assert page.locator("#calibration-plot circle").count() == campaign.items.count()
    assert "this campaign" in page.text_content("#calibration-sources")
    assert page.text_content("#suggested-threshold") == "0.93"  # 0.91, 0.92 scored 2
    assert "lowest threshold" in page.text_content("#suggestion-reason")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.locator("#calibration-plot").scroll_into_view_if_needed()
    shot(page, f"annotation_scoring_calibration_{width}", full_page=True)
    page.screenshot(path=f"/tmp/transl-shots/scoring_dashboard_{width}.png", full_page=True)


def test_table3_page_and_csv_download(live_server, open_as, two_annotators, dataset):
    campaign = _scoring_campaign(dataset, two_annotators, sample_size=2)
    items = list(CampaignItem.objects.filter(campaign=campaign).order_by("position"))
    assert [i.segment for i in items] == ["ctx", "ctx", "qn", "qn"]
    # (adequacy, fluency) by item position and slot.
    scores = {
        0: [(5, 4), (4, 4)],
        1: [(3, 2), (3, 3)],
        2: [(4, 5), (5, 5)],
        3: [(2, 3), (2, 2)],
    }
    _score(campaign, two_annotators, lambda item, slot: scores[item.position][slot])

    def means(positions, kind, slot):
        values = [scores[p][slot][kind] for p in positions]
        return f"{sum(values) / len(values):.2f}"

    def expected_row(name, positions):
        return [
            name,
            str(len(positions)),
            means(positions, 1, 0),  # F1
            means(positions, 1, 1),  # F2
            means(positions, 0, 0),  # A1
            means(positions, 0, 1),  # A2
        ]

    def kappas(positions):
        """Each row's own quadratic-weighted kappas (adequacy, fluency) over its items."""
        values = [
            cohen_kappa_score(
                [scores[p][0][k] for p in positions],
                [scores[p][1][k] for p in positions],
                labels=[1, 2, 3, 4, 5],
                weights="quadratic",
            )
            for k in (0, 1)
        ]
        return [f"{value:.3f}" for value in values]

    rows_positions = {"hi_ctx": [0, 1], "hi_qn": [2, 3], "hi_combined": [0, 1, 2, 3]}
    expected = [expected_row(name, positions) for name, positions in rows_positions.items()]

    page = open_as("rekha")
    page.goto(f"{live_server.url}/annotate/manage/campaigns/{campaign.pk}/")
    with navigates(page):
        page.click("text=Table 3 report")
    rows = _rows(page, "#table3-hi")
    assert [r[:6] for r in rows] == expected
    assert [r[6:8] for r in rows] == [kappas(p) for p in rows_positions.values()]
    assert [r[8] for r in rows] == ["2 / 2", "2 / 2", "4 / 4"]
    assert "Annotator 1: " in page.text_content("#annotators-hi")
    shot(page, "annotation_table3", full_page=True)
    narrow = open_as("rekha", width=390, height=844, touch=True)
    narrow.goto(page.url)
    shot(narrow, "annotation_table3_390", full_page=True)
    assert_fits(narrow)

    with page.expect_download() as download:
        page.click("#csv-link")
    assert download.value.suggested_filename == f"table3-{dataset.pk}.csv"
    lines = list(csv.reader(io.StringIO(download.value.path().read_text(encoding="utf-8"))))
    assert lines[0] == [
        "row",
        "n_items",
        "F1",
        "F2",
        "A1",
        "A2",
        "adequacy_kappa_w",
        "fluency_kappa_w",
        "scored_by_1",
        "scored_by_2",
        "annotator_1",
        "annotator_2",
    ]
    assert [line[:8] for line in lines[1:]] == [
        r + kappas(p) for r, p in zip(expected, rows_positions.values(), strict=True)
    ]


def test_people_page_create_languages_deactivate(live_server, open_as, demo_users):
    base = live_server.url
    rekha = open_as("rekha")
    rekha.goto(f"{base}/annotate/")
    with navigates(rekha):
        rekha.click("text=People")
    form = rekha.locator("#new-annotator")
    form.locator("input[name=username]").fill("devika")
    form.locator("input[name=languages]").fill("ta, te")
    form.locator("input[name=password]").fill(PASSWORD)
    form.locator("input[name=invite]").uncheck()
    with navigates(rekha):
        form.locator("button[type=submit]").click()
    assert "Annotator created." in rekha.text_content(".messages")
    row = rekha.locator("#people tbody tr", has_text="devika")
    assert row.locator("input[name=languages]").input_value() == "ta te"
    assert row.locator("td").nth(2).text_content().strip() == "active"
    devika = AnnotatorProfile.objects.get(user__username="devika").user
    assert selectors.annotator_languages(user=devika) == ["ta", "te"]

    # Devika can sign in and work.
    dev_page = open_as("devika")
    dev_page.goto(f"{base}/annotate/")
    assert dev_page.locator("#campaigns").is_visible()

    row.locator("input[name=languages]").fill("ta te or")
    with navigates(rekha):
        row.locator("button", has_text="Save").click()
    assert selectors.annotator_languages(user=devika) == ["ta", "te", "or"]
    row = rekha.locator("#people tbody tr", has_text="devika")
    assert row.locator("input[name=languages]").input_value() == "ta te or"
    shot(rekha, "annotation_people", full_page=True)

    with navigates(rekha):
        row.locator("button", has_text="Deactivate").click()
    devika.refresh_from_db()
    assert devika.is_active is False
    row = rekha.locator("#people tbody tr", has_text="devika")
    assert row.locator("td").nth(2).text_content().strip() == "deactivated"
    assert row.locator("button", has_text="Activate").is_visible()
    shot(rekha, "annotation_people_deactivated", full_page=True)

    # A deactivated annotator is signed out on the next page.
    dev_page.goto(f"{base}/annotate/")
    assert dev_page.url.startswith(f"{base}/accounts/login/")


def test_annotator_gets_403_on_every_researcher_page(live_server, open_as, two_annotators, dataset):
    campaign = _scoring_campaign(dataset, two_annotators, sample_size=1)
    item = CampaignItem.objects.filter(campaign=campaign).first()
    ids = {"dashboard": campaign.pk, "adjudicate": item.pk, "table3": dataset.pk}
    manage = [p.name for p in urls.urlpatterns if str(p.pattern).startswith("manage/")]
    # Every researcher page of the workbench; a new one must be added to `ids` if it takes one.
    addresses = [
        reverse(f"annotation:{name}", kwargs={"pk": ids[name]} if name in ids else {})
        for name in manage
    ]
    addresses.append(reverse("annotation:table3", kwargs={"pk": dataset.pk}) + "?format=csv")
    assert len(addresses) == 6

    base = live_server.url
    page = open_as("anu")
    page.goto(f"{base}/annotate/")
    assert page.locator("text=New campaign").count() == 0
    assert page.locator("a", has_text="People").count() == 0
    for address in addresses:
        response = page.goto(f"{base}{address}")
        assert response.status == 403, address
        assert "Only researchers and admins can do this." in page.text_content("main"), address
    shot(page, "annotation_403")

    # Posting to them is refused too, and changes nothing.
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    for address, data in (
        (reverse("annotation:people"), {"action": "create", "username": "mallory"}),
        (reverse("annotation:adjudicate", kwargs={"pk": item.pk}), {"verdict": "approve"}),
        (
            reverse("annotation:campaign-new"),
            {"dataset": dataset.pk, "kind": "tuple_vote"},
        ),
    ):
        response = page.request.post(f"{base}{address}", form=data, headers={"X-CSRFToken": token})
        assert response.status == 403, address
    assert not AnnotatorProfile.objects.filter(user__username="mallory").exists()
    assert not Decision.objects.exists()
    assert Campaign.objects.count() == 1
