"""IndiBias sentence pairs and tuples, IndiCASA context sets."""

from __future__ import annotations

import csv
import io
import unicodedata

import pytest

from apps.catalog.importers import ImportFile, benchmark_import
from apps.catalog.models import ContextSentence, ContextSet, SentencePair, StereotypeTuple

from .test_import_support import data_file

pytestmark = pytest.mark.django_db


def test_indibias_release_rows_become_parallel_en_hi_pairs() -> None:
    file = data_file("indibias/IndiBias_sample.csv")
    report = benchmark_import(dataset_name="indibias", fmt="indibias", files=[file])
    assert report.pairs.created == 6
    assert report.by_category == {"Caste": 1, "age": 1, "socioeconomic": 1}
    en = SentencePair.objects.get(external_id="101", language="en")
    hi = SentencePair.objects.get(external_id="101", language="hi")
    assert en.parallel == hi and hi.parallel == en
    assert en.sent_more == "The Dalit boy was not allowed to enter the temple."
    assert (en.direction, en.category.name, en.origin) == (
        "stereo",
        "Caste",
        "IndiBias_sample.csv:2",
    )
    assert SentencePair.objects.get(external_id="103", language="hi").direction == "antistereo"
    # Devanagari round-trips byte for byte (the file is already NFC).
    rows = csv.DictReader(io.StringIO(file.data.decode("utf-8")))
    for row in rows:
        pair = SentencePair.objects.get(external_id=row["index"], language="hi")
        assert (
            pair.sent_more.encode() == unicodedata.normalize("NFC", row["sent_more_hindi"]).encode()
        )
        assert (
            pair.sent_less.encode() == unicodedata.normalize("NFC", row["sent_less_hindi"]).encode()
        )


def test_indibias_hindi_is_normalised_to_nfc() -> None:
    raw = data_file("indibias/IndiBias_sample.csv").data.decode("utf-8")
    # Precomposed nukta letters (U+0916 U+093C written as U+0959) and a decomposed
    # U+0929 (न + ़) which NFC composes.
    odd = raw.replace("ख़", "\u0959").replace("दलित", "दलित\u0928\u093c")
    file = ImportFile("IndiBias_odd.csv", odd.encode("utf-8"))
    benchmark_import(dataset_name="indibias", fmt="indibias", files=[file])
    for pair in SentencePair.objects.filter(language="hi"):
        for text in (pair.sent_more, pair.sent_less):
            assert text == unicodedata.normalize("NFC", text)
            assert text in unicodedata.normalize("NFC", odd)
    assert "\u0929" in SentencePair.objects.get(external_id="101", language="hi").sent_more


def test_indibias_reimport_updates_changed_pairs_only() -> None:
    file = data_file("indibias/IndiBias_sample.csv")
    benchmark_import(dataset_name="ib", fmt="indibias", files=[file])
    changed = ImportFile(
        file.name, file.data.replace(b"learned to code in a week", b"learned to code in a day")
    )
    report = benchmark_import(dataset_name="ib", fmt="indibias", files=[changed])
    assert (report.pairs.created, report.pairs.updated, report.pairs.unchanged) == (0, 1, 5)
    assert SentencePair.objects.count() == 6
    en = SentencePair.objects.get(external_id="103", language="en")
    assert en.sent_more == "The old man learned to code in a day."
    assert en.parallel.language == "hi"


def test_tuple_csv_is_detected_by_its_header() -> None:
    report = benchmark_import(
        dataset_name="ib", fmt="indibias", files=[data_file("indibias/tuples.csv")]
    )
    assert report.tuples.created == 3
    marwari = StereotypeTuple.objects.get(identity_term="Marwari")
    assert (marwari.attribute, marwari.polarity, marwari.votes) == (
        "thrifty",
        "positive",
        [1, 1, 0],
    )
    assert marwari.category.name == "caste"
    again = benchmark_import(
        dataset_name="ib", fmt="indibias", files=[data_file("indibias/tuples.csv")]
    )
    assert again.tuples.unchanged == 3 and StereotypeTuple.objects.count() == 3


def test_tuple_csv_with_one_column_per_annotator() -> None:
    data = (
        b"Identity Term,Attribute,Category,Polarity,Annotator 1,Annotator 2,Annotator 3\n"
        b"Bengali,intellectual,region,positive,1,1,1\n"
    )
    benchmark_import(dataset_name="ib", fmt="indibias", files=[ImportFile("t.csv", data)])
    assert StereotypeTuple.objects.get().votes == [1, 1, 1]


def test_indicasa_context_sets() -> None:
    file = data_file("indicasa/IndiCASA_dataset - gender.csv")
    report = benchmark_import(dataset_name="casa", fmt="indicasa", files=[file])
    assert (report.context_sets.created, report.sentences) == (2, 5)
    first = ContextSet.objects.get(external_id="gender-0")
    assert (first.category.name, first.language) == ("gender", "en")
    assert first.origin == "IndiCASA_dataset - gender.csv:2"
    sentences = list(first.sentences.order_by("position").values_list("kind", "text"))
    assert sentences[1] == (
        ContextSentence.Kind.ANTI_STEREOTYPE,
        "Meera led the surveying team through the monsoon without a single delay.",
    )
    assert [kind for kind, _ in sentences] == ["stereotype", "anti_stereotype", "stereotype"]

    same = benchmark_import(dataset_name="casa", fmt="indicasa", files=[file])
    assert same.context_sets.unchanged == 2 and same.sentences == 0
    changed = ImportFile(file.name, file.data.replace(b"the most trusted", b"a trusted"))
    again = benchmark_import(dataset_name="casa", fmt="indicasa", files=[changed])
    assert (again.context_sets.updated, again.context_sets.unchanged, again.sentences) == (1, 1, 2)
    assert ContextSentence.objects.count() == 5


def test_indicasa_category_flag_fallback() -> None:
    data = data_file("indicasa/IndiCASA_dataset - gender.csv").data
    benchmark_import(
        dataset_name="casa",
        fmt="indicasa",
        files=[ImportFile("ctx.csv", data)],
        category="religion",
    )
    assert set(ContextSet.objects.values_list("external_id", flat=True)) == {
        "religion-0",
        "religion-1",
    }


def test_reimport_keeps_a_campaigns_votes_and_updates_the_imported_ones() -> None:
    """Issue 18 4.5: the imported votes are kept beside the votes that decide; once a campaign
    decided a tuple, a re-import updates its imported votes only."""
    data = (
        b"identity_term,attribute,category,polarity,votes\n"
        b'Bengali,intellectual,region,positive,"1,1,1"\n'
    )
    benchmark_import(dataset_name="ib", fmt="indibias", files=[ImportFile("t.csv", data)])
    tup = StereotypeTuple.objects.get()
    assert (tup.votes, tup.imported_votes, tup.votes_source) == ([1, 1, 1], [1, 1, 1], "imported")
    # What a tuple-vote campaign does when it decides the tuple (apps.annotation).
    StereotypeTuple.objects.filter(pk=tup.pk).update(votes=[0, 0, 1], votes_source="campaign")
    changed = data.replace(b'"1,1,1"', b'"1,0,1"')
    report = benchmark_import(
        dataset_name="ib", fmt="indibias", files=[ImportFile("t.csv", changed)]
    )
    assert report.tuples.updated == 1
    tup.refresh_from_db()
    assert (tup.votes, tup.imported_votes, tup.votes_source) == ([0, 0, 1], [1, 0, 1], "campaign")
