"""The Format and generator registries: every format name is one registered object of one kind,
unknown names are errors, and a format registered from outside goes through the one pipeline."""

from __future__ import annotations

import pytest

from apps.catalog import generators
from apps.catalog.importers import (
    INSTANCES,
    TEMPLATES,
    Format,
    ImportFile,
    benchmark_import,
    format_get,
    format_names,
    format_register,
    parse_import,
)
from apps.catalog.importers.base import Reader
from apps.catalog.importers.formats import format_unregister
from apps.catalog.importers.records import ParseResult, TupleRecord
from apps.catalog.importers.tables import Table
from apps.catalog.models import StereotypeTuple
from apps.core.errors import ImportRejected


class ToyReader(Reader):
    """A throwaway template-kind reader: one stereotype tuple per row."""

    format = "toy"

    def read_table(self, table: Table, result: ParseResult) -> None:
        for row in table.rows:
            result.tuples.append(
                TupleRecord(
                    file=table.file,
                    line=row.line,
                    category=row.get("category"),
                    language=self.language,
                    identity_term=row.get("group"),
                    attribute=row.get("attribute"),
                    polarity="negative",
                    votes=[],
                )
            )


@pytest.fixture
def toy_format():
    fmt = format_register(format=Format("toy", "Toy tuples", TEMPLATES, f"{__name__}.ToyReader"))
    yield fmt
    format_unregister(name="toy")


def test_each_format_name_is_one_registered_format_of_one_kind() -> None:
    assert format_names(kind=TEMPLATES) == (
        "bbq",
        "bharatbbq",
        "esbbq",
        "cabbq",
        "indibias",
        "indicasa",
    )
    assert format_names(kind=INSTANCES) == (
        "bbq-instances",
        "bharatbbq-instances",
        "esbbq-instances",
        "cabbq-instances",
    )
    assert format_names() == format_names(kind=TEMPLATES) + format_names(kind=INSTANCES)
    for name in format_names():
        assert format_get(name=name).reader.format == name
    assert format_get(name="cabbq-instances").language == "ca"


def test_an_unknown_format_or_generator_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown format 'crows'; use one of bbq, "):
        format_get(name="crows")
    with pytest.raises(ValueError, match="unknown generator 'nope'; known: bbq, bharatbbq"):
        generators.generator_get(name="nope")
    with pytest.raises(ValueError, match="already registered"):
        format_register(format=Format("bbq", "Another BBQ", TEMPLATES, f"{__name__}.ToyReader"))
    with pytest.raises(ValueError, match="kind must be one of"):
        Format("toy", "Toy", "sentences", f"{__name__}.ToyReader")


@pytest.mark.django_db
def test_a_registered_format_goes_through_the_one_pipeline(toy_format) -> None:
    upload = ImportFile("toy.csv", b"category,group,attribute\nage,old people,slow\n")
    parsed = parse_import(fmt="toy", files=[upload])
    assert parsed.problems == [] and len(parsed.tuples) == 1
    report = benchmark_import(dataset_name="toy", fmt="toy", files=[upload])
    assert (report.format, report.tuples.created) == ("toy", 1)
    stored = StereotypeTuple.objects.get(dataset__name="toy")
    assert (stored.identity_term, stored.attribute, stored.category.name) == (
        "old people",
        "slow",
        "age",
    )
    format_unregister(name="toy")
    with pytest.raises(ImportRejected, match="unknown format 'toy'"):
        benchmark_import(dataset_name="toy", fmt="toy", files=[upload])
