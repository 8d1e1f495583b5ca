"""The adaptation report (EsBBQ Table 1 and Figure 2): the counting on hand-computed cases,
then the command's JSON, the API and the page on a small import (test_adaptation_import's
hand-written BBQ CSVs and EsBBQ workbooks)."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from drf_spectacular.generators import SchemaGenerator

from apps.catalog.adaptation_report import (
    Link,
    SourceTemplate,
    TargetTemplate,
    adaptation_counts,
    adaptation_report,
)
from apps.catalog.importers import benchmark_import
from apps.catalog.models import Dataset, Template
from apps.catalog.services import adaptation_remove, adaptation_start, dataset_source_set

from .test_adaptation_import import bbq_files, esbbq_file, esbbq_files, esbbq_row

ZERO = {"simply_transferred": 0, "target_modified": 0, "culturally_transformed": 0,
        "sample_removed": 0}  # fmt: skip


def counts(**values: int) -> dict[str, int]:
    return {**ZERO, **values}


def src(i: int, category: str, qi: str, proper: bool = False, *questions: str) -> SourceTemplate:
    return SourceTemplate(i, category, qi, proper, questions)


# --- the counting, on hand-made data -------------------------------------------------------


def test_a_b_rows_are_one_template_and_unreferenced_ones_are_removed() -> None:
    sources = [src(1, "Age", "1"), src(2, "Age", "1"), src(3, "Age", "2"), src(4, "Age", "3")]
    targets = [TargetTemplate(10, "Edad", "1", "ST"), TargetTemplate(11, "Edad", "1", "ST"),
               TargetTemplate(12, "Edad", "2", "TM")]  # fmt: skip
    links = [Link(1, 10), Link(2, 10), Link(1, 11), Link(2, 11), Link(3, 12), Link(4, None)]
    report = adaptation_counts(source="BBQ", sources=sources, targets=targets, links=links)
    assert report.as_dict() == {
        "source": "BBQ",
        "by_category": {"Age": counts(simply_transferred=1, target_modified=1, sample_removed=1)},
        "newly_created": {},
        "total": {**counts(simply_transferred=1, target_modified=1, sample_removed=1),
                  "newly_created": 0},
    }  # fmt: skip
    assert report.reconstruction == {"Age": {"Edad": 2}}


def test_twins_adapted_into_one_template_count_once() -> None:
    # BBQ Gender_identity 1 (common noun) and 26 (its proper-noun twin) both feed EsBBQ
    # Gender 1 (plain and p versions); 2 and 27 feed different templates: two units.
    sources = [
        src(1, "Gender_identity", "1"),
        src(2, "Gender_identity", "26", True),
        src(3, "Gender_identity", "2"),
        src(4, "Gender_identity", "27", True),
    ]
    targets = [
        TargetTemplate(10, "Gender", "1", "ST"),
        TargetTemplate(11, "Gender", "1", "ST"),
        TargetTemplate(12, "Gender", "2", "ST"),
        TargetTemplate(13, "Gender", "3", "TM"),
    ]
    links = [Link(1, 10), Link(2, 11), Link(3, 12), Link(4, 13)]  # fmt: skip
    report = adaptation_counts(source="BBQ", sources=sources, targets=targets, links=links)
    assert report.by_category["Gender_identity"] == {
        **counts(simply_transferred=2, target_modified=1), "to_do": 0}  # fmt: skip
    assert [unit.question_indexes for unit in report.units] == [["1", "26"], ["2"], ["27"]]


def test_an_unadapted_proper_noun_twin_joins_the_one_common_template_asking_its_question():
    sources = [
        src(1, "Race", "5", False, "Who has COVID-19?", "Who was negative?"),
        src(2, "Race", "7", False, "Who was rejected?", "Who was accepted?"),
        src(3, "Race", "29", True, "Who has COVID-19?", "Who was negative?"),
        src(4, "Race", "31", True, "Who was REJECTED? ", "Who got in?"),  # case, spaces
        # two common templates ask "Who is bad at math?": its twin is not known
        src(5, "Race", "8", False, "Who is bad at math?", ""),
        src(6, "Race", "9", False, "Who is bad at math?", ""),
        src(7, "Race", "50", True, "Who is bad at math?", ""),
        # an adapted proper-noun template keeps its own unit (the adaptation says which
        # templates are twins), even when a common template asks its question
        src(8, "Race", "51", True, "Who was rejected?", ""),
        # another category's common template asking the question is no twin
        src(9, "Religion", "1", False, "Who has COVID-19?", ""),
    ]
    targets = [TargetTemplate(10, "Nationality", "11", "TM"), TargetTemplate(11, "Raza", "9", "ST")]
    links = [Link(1, 10), Link(8, 11), Link(2, None), Link(3, None), Link(4, None),
             Link(5, None), Link(6, None), Link(7, None), Link(9, None)]  # fmt: skip
    report = adaptation_counts(source="BBQ", sources=sources, targets=targets, links=links)
    labels = {unit.label: unit.outcome for unit in report.units}
    assert labels == {
        "Race 5+29": "target_modified",  # the removed twin of an adapted template counts with it
        "Race 7+31": "sample_removed",
        "Race 8": "sample_removed",
        "Race 9": "sample_removed",
        "Race 50": "sample_removed",
        "Race 51": "simply_transferred",
        "Religion 1": "sample_removed",
    }
    assert [u.twins_by_question for u in report.units if u.twins_by_question] == [["29"], ["31"]]
    race = counts(simply_transferred=1, target_modified=1, sample_removed=4)
    assert report.by_category["Race"] == {**race, "to_do": 0}


def test_targets_that_disagree_give_the_most_transformed_class() -> None:
    # BBQ Sexual_orientation 17 -> LGBTQIA 15 (t) and 15 v (m): Target-Modified, as Table 1.
    sources = [src(1, "SO", "17"), src(2, "SO", "18"), src(3, "SO", "19")]
    targets = [TargetTemplate(10, "LGBTQIA", "15", "ST"), TargetTemplate(11, "LGBTQIA", "15", "TM"),
               TargetTemplate(12, "LGBTQIA", "16", "TM"), TargetTemplate(13, "LGBTQIA", "17", "CT"),
               TargetTemplate(14, "LGBTQIA", "18", "ST")]  # fmt: skip
    links = [Link(1, 10), Link(1, 11), Link(2, 12), Link(2, 13), Link(3, 14)]
    report = adaptation_counts(source="BBQ", sources=sources, targets=targets, links=links)
    assert [(u.label, u.classes, u.outcome) for u in report.units] == [
        ("SO 17", ["ST", "TM"], "target_modified"),
        ("SO 18", ["CT", "TM"], "culturally_transformed"),
        ("SO 19", ["ST"], "simply_transferred"),
    ]
    assert [u.label for u in report.disagreements] == ["SO 17", "SO 18"]


def test_undecided_sources_are_to_do_and_only_then_reported() -> None:
    sources = [src(1, "Age", "1"), src(2, "Age", "2"), src(3, "Age", "2"), src(4, "Age", "3"),
               src(5, "Age", "4")]  # fmt: skip
    targets = [TargetTemplate(10, "Edad", "1", ""), TargetTemplate(11, "Edad", "4", "ST")]
    # 1: adapted into a template with no class yet; 2: one row removed, the other not
    # decided; 3: nothing; 4: adapted.
    links = [Link(1, 10), Link(2, None), Link(5, 11)]
    report = adaptation_counts(source="BBQ", sources=sources, targets=targets, links=links)
    assert report.as_dict()["by_category"] == {"Age": {**counts(simply_transferred=1), "to_do": 3}}
    assert report.as_dict()["total"]["to_do"] == 3
    assert report.has_to_do


def test_newly_created_counts_a_template_id_once_and_not_unlinked_adaptations() -> None:
    sources = [src(1, "Age", "1")]
    targets = [
        TargetTemplate(10, "Edad", "1", "ST"),
        TargetTemplate(11, "Edad", "2", "NC"),  # 2 and 2 p: one Newly-Created template
        TargetTemplate(12, "Edad", "2", "NC"),
        TargetTemplate(13, "Edad", "3", ""),  # no class, no source: Newly-Created
        TargetTemplate(14, "Edad", "4", "ST"),  # says adapted, linked to nothing
        TargetTemplate(15, "Región", "1", "NC"),
        TargetTemplate(16, "Edad", "1", "NC"),  # a version of a linked template id
    ]
    report = adaptation_counts(source="BBQ", sources=sources, targets=targets,
                               links=[Link(1, 10)])  # fmt: skip
    assert report.newly_created == {"Edad": 2, "Región": 1}
    assert report.total["newly_created"] == 3
    assert report.unlinked == {"Edad": 1}
    assert report.reconstruction == {"Age": {"Edad": 1}}


def test_reconstruction_counts_a_source_in_each_category_it_feeds() -> None:
    # A source feeding two target categories counts in each; two source categories feeding
    # one target template stay two units (one in each source category).
    sources = [src(1, "Gender_identity", "1"), src(2, "Gender_identity", "2"),
               src(3, "Race_ethnicity", "4")]  # fmt: skip
    targets = [TargetTemplate(10, "Gender", "1", "ST"), TargetTemplate(11, "LGBTQIA", "1", "TM"),
               TargetTemplate(12, "Gender", "2", "TM")]  # fmt: skip
    links = [Link(1, 10), Link(1, 11), Link(2, 12), Link(3, 12)]
    report = adaptation_counts(source="BBQ", sources=sources, targets=targets, links=links)
    assert report.reconstruction == {
        "Gender_identity": {"Gender": 2, "LGBTQIA": 1},
        "Race_ethnicity": {"Gender": 1},
    }
    assert report.total["target_modified"] == 3


# --- on an import: the command, the API, the page ------------------------------------------


EXACT = {
    "source": "BBQ",
    "by_category": {
        "Age": counts(simply_transferred=1, target_modified=1, sample_removed=1),
        "Race_ethnicity": counts(target_modified=1, sample_removed=1),
    },
    "newly_created": {"Age": 1},
    "total": {**counts(simply_transferred=1, target_modified=2, sample_removed=2),
              "newly_created": 1},
}  # fmt: skip


@pytest.fixture
def esbbq(db) -> Dataset:
    benchmark_import(dataset_name="BBQ", fmt="bbq", files=bbq_files())
    benchmark_import(dataset_name="EsBBQ", fmt="esbbq", files=esbbq_files(), adapted_from="BBQ")
    return Dataset.objects.get(name="EsBBQ")


def test_the_command_prints_the_report_exactly(esbbq, capsys) -> None:
    call_command("adaptation_report", "--dataset", "EsBBQ", "--json")
    out = capsys.readouterr().out
    assert json.loads(out) == EXACT
    assert list(json.loads(out)) == ["source", "by_category", "newly_created", "total"]
    assert adaptation_report(dataset=esbbq).unlinked == {"Age": 2}  # Age-5, Age-6: no source
    call_command("adaptation_report", "--dataset", "EsBBQ")
    text = capsys.readouterr().out.splitlines()
    assert text[0] == "EsBBQ adapted from BBQ"
    assert text[2].split() == ["Age", "3", "1", "1", "0", "1"]
    assert text[4].split() == ["total", "5", "1", "2", "0", "2"]


@pytest.mark.django_db
def test_the_command_refuses_unknown_and_unadapted_datasets() -> None:
    Dataset.objects.create(name="Plain")
    with pytest.raises(CommandError, match="no dataset named 'Nope'"):
        call_command("adaptation_report", "--dataset", "Nope")
    with pytest.raises(CommandError, match="Plain adapts no dataset"):
        call_command("adaptation_report", "--dataset", "Plain", "--json")


def test_a_dataset_adapted_in_the_browser_reports_what_is_still_to_do(esbbq, researcher):
    source = Dataset.objects.get(name="BBQ")
    draft = Dataset.objects.create(name="Draft")
    draft = dataset_source_set(dataset=draft, source=source)
    age1a, age3 = (
        Template.objects.get(dataset=source, external_id=x) for x in ("Age-1a", "Age-3a")
    )
    adaptation_start(dataset=draft, source_template=age1a, transformation_type="CT",
                     language="hi", created_by=researcher)  # fmt: skip
    adaptation_remove(dataset=draft, source_template=age3, reason="not attested in India")
    body = adaptation_report(dataset=Dataset.objects.get(name="Draft")).as_dict()
    # Age 1 (rows a, b): one adapted row decides the template; Age 2 and Race 1, 2 are to do.
    assert body["by_category"] == {
        "Age": {**counts(culturally_transformed=1, sample_removed=1), "to_do": 1},
        "Race_ethnicity": {**counts(), "to_do": 2},
    }
    assert body["newly_created"] == {}


def test_the_api_returns_the_report_with_the_reconstruction(esbbq, annotator_client,
                                                             anonymous_client) -> None:  # fmt: skip
    url = f"/api/datasets/{esbbq.pk}/adaptation-report/"
    response = annotator_client.get(url)
    assert response.status_code == 200
    assert response.json() == {
        **EXACT,
        "reconstruction": {"Age": {"Age": 2}, "Race_ethnicity": {"RaceEthnicity": 1}},
    }
    assert anonymous_client.get(url).status_code in (401, 403)
    plain = Dataset.objects.create(name="Plain")
    refused = annotator_client.get(f"/api/datasets/{plain.pk}/adaptation-report/")
    assert refused.status_code == 400
    assert refused.json() == {
        "detail": "Plain adapts no dataset: import it with --adapted-from SOURCE or set its source"
    }
    assert annotator_client.get("/api/datasets/999999/adaptation-report/").status_code == 404


def test_the_api_is_in_the_openapi_schema() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    operation = schema["paths"]["/api/datasets/{id}/adaptation-report/"]["get"]
    assert operation["operationId"] == "dataset_adaptation_report"
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    output = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert set(output["properties"]) == {
        "source", "by_category", "newly_created", "total", "reconstruction"}  # fmt: skip
    category = output["properties"]["by_category"]["additionalProperties"]["$ref"]
    fields = schema["components"]["schemas"][category.rsplit("/", 1)[1]]["properties"]
    assert set(fields) == {"simply_transferred", "target_modified", "culturally_transformed",
                           "sample_removed", "to_do"}  # fmt: skip


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_page_shows_the_tables_and_the_reconstruction(esbbq, annotator) -> None:
    response = client_for(annotator).get(f"/datasets/{esbbq.pk}/adaptation-report/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="source-link"' in html and ">BBQ</a>" in html
    assert '<tr data-category="Age"><th scope="row">Age</th><td class="num" data-key="units">3' in (
        html
    )
    assert '<th class="num" id="newly-created-total">1</th>' in html
    assert 'data-target="RaceEthnicity">→ RaceEthnicity <strong>1</strong>' in html
    assert 'id="unlinked"' in html and "?kind=missing-source" in html
    assert 'id="to-do-total"' not in html


def test_the_page_escapes_names_and_explains_a_dataset_with_no_source(researcher) -> None:
    benchmark_import(dataset_name="BBQ", fmt="bbq", files=bbq_files())
    evil = "<script>alert(1)</script>"
    row = dict(esbbq_row(1, None, "t", "Age", 1), esbbq_category="<i>Edad</i>")
    new = dict(esbbq_row(2, None, "n", None, None), esbbq_category="<i>Edad</i>")
    benchmark_import(dataset_name=evil, fmt="esbbq", files=[esbbq_file([row, new])],
                     adapted_from="BBQ")  # fmt: skip
    dataset = Dataset.objects.get(name=evil)
    html = client_for(researcher).get(f"/datasets/{dataset.pk}/adaptation-report/").content
    html = html.decode()
    assert evil not in html and "<i>Edad</i>" not in html
    assert "&lt;i&gt;Edad&lt;/i&gt;" in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    plain = Dataset.objects.create(name="Plain")
    page = client_for(researcher).get(f"/datasets/{plain.pk}/adaptation-report/")
    assert page.status_code == 200
    assert 'id="adaptation-error"' in page.content.decode()
    assert client_for(researcher).get("/datasets/999999/adaptation-report/").status_code == 404


@pytest.mark.django_db
def test_the_page_needs_a_role(outsider) -> None:
    dataset = Dataset.objects.create(name="D")
    assert client_for(outsider).get(f"/datasets/{dataset.pk}/adaptation-report/").status_code == 403
