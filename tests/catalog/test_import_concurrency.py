"""Parallel imports into a dataset that does not exist yet (real threads, each with its own
PostgreSQL connection and transaction): one import creates the dataset and says so; every
other one reports that it added to an existing dataset."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from django.db import connection

from apps.catalog.importers import ImportFile, benchmark_import
from apps.catalog.importers.instances import instances_import
from apps.catalog.models import ContextSet, Dataset, Instance

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

PUBLISHED = Path(__file__).resolve().parent.parent / "data" / "import" / "published"


def _in_parallel(calls) -> list:
    """Run each call in its own thread, all released at once; the reports, in call order."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)
    errors: list[BaseException] = []

    def run(index: int, call) -> None:
        try:
            barrier.wait(timeout=30)
            results[index] = call()
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    return results


def _casa(context_id: int) -> ImportFile:
    data = (
        "context_id,sentence,type,Annotator 1 (1 to 5),Annotator 2 (1 to 5)\n"
        f"{context_id},She could not lead team {context_id}.,stereotype,4,4\n"
        f"{context_id},He led team {context_id}.,anti_stereotype,4,5\n"
    ).encode()
    return ImportFile("IndiCASA_dataset - gender.csv", data)


def test_parallel_template_imports_one_creator():
    reports = _in_parallel(
        [
            lambda i=i: benchmark_import(dataset_name="casa", fmt="indicasa", files=[_casa(i)])
            for i in range(4)
        ]
    )
    assert [r.dataset_created for r in reports].count(True) == 1, [
        r.dataset_created for r in reports
    ]
    assert Dataset.objects.filter(name="casa").count() == 1
    assert ContextSet.objects.filter(dataset__name="casa").count() == 4


def test_parallel_instance_imports_one_creator():
    files = ["Age.jsonl", "Nationality.jsonl", "Age.jsonl", "Nationality.jsonl"]
    reports = _in_parallel(
        [
            lambda name=name: instances_import(
                dataset_name="bbq",
                fmt="bbq-instances",
                files=[ImportFile(name, (PUBLISHED / name).read_bytes())],
            )
            for name in files
        ]
    )
    assert [r.dataset_created for r in reports].count(True) == 1, [
        r.dataset_created for r in reports
    ]
    assert Dataset.objects.filter(name="bbq").count() == 1
    assert Instance.objects.filter(dataset__name="bbq").exists()
