"""release_create: numbering, counts, checksums, immutability, all-or-nothing."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import pytest
from django.db.models import ProtectedError
from django.utils import timezone

from apps.catalog.models import Instance
from apps.catalog.services import dataset_instantiate, template_create, template_edit
from apps.core.errors import ConflictError, KasautiError
from apps.releases import writers
from apps.releases.models import Release, ReleaseFile, ReleaseImmutableError, ReleaseInstance
from apps.releases.services import release_create, release_file_path
from tests.factories import CategoryFactory, DatasetFactory, TemplateVersionFactory

pytestmark = pytest.mark.django_db


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_release_numbers_counts_and_files(dataset, researcher):
    release = release_create(dataset=dataset, created_by=researcher, notes="first")
    live = Instance.objects.filter(dataset=dataset, retired_at__isnull=True)
    assert release.number == 1
    assert release.counts["total"] == live.count() == 96
    expected = Counter((i.category.name, i.language) for i in live.select_related("category"))
    got = {
        (category, language): n
        for category, languages in release.counts["by_category_language"].items()
        for language, n in languages.items()
    }
    assert got == dict(expected)
    assert got[("Caste", "te")] == 16 and got[("Age", "hi")] == 16
    # Reviewed (the default): no sentence pairs (no review step), the voted tuple, the set
    # whose sentences passed review.
    assert (release.counts["sentence_pairs"], release.counts["tuples"]) == (0, 1)
    assert (release.counts["context_sets"], release.counts["context_sentences"]) == (1, 3)
    assert set(release.memberships.values_list("instance_id", flat=True)) == set(
        live.values_list("id", flat=True)
    )

    files = list(release.files.all())
    # 3 formats of each kind that has rows; no empty files for the sentence pairs.
    assert sorted({f.kind for f in files}) == [
        "card", "changelog", "citation", "context_sets", "instances", "tuples"
    ]  # fmt: skip
    assert len(files) == 9 + 4  # and README.md, card.json, CITATION.cff, changelog.json
    assert not (release_file_path(release_file=files[0]).parent / "sentence_pairs.csv").exists()
    assert sorted(p.name for p in release_file_path(release_file=files[0]).parent.iterdir()) == [
        "CITATION.cff",
        "README.md",
        "card.json",
        "changelog.json",
        *(
            f"{kind}.{ext}"
            for kind in ("context_sets", "instances", "tuples")
            for ext in ("csv", "jsonl", "parquet")
        ),
    ]
    for f in files:
        path = release_file_path(release_file=f)
        assert f.path.startswith(f"releases/bharat-{dataset.pk}/1/")
        assert path.is_file()
        assert f.sha256 == _sha(path)
        assert f.size == path.stat().st_size
    rows = {(f.kind, f.format): f.rows for f in files}
    assert rows[("instances", "parquet")] == 96
    assert rows[("context_sets", "csv")] == 1 and rows[("tuples", "parquet")] == 1
    # No temporary directory is left next to the release.
    assert [p.name for p in path.parent.parent.iterdir()] == ["1"]

    # Nothing changed: the latest release is the answer, no copy is made.
    again = release_create(dataset=dataset)
    assert again.pk == release.pk and again.reused
    assert Release.objects.filter(dataset=dataset).count() == 1


def test_release_rows_are_immutable(dataset):
    release = release_create(dataset=dataset)
    release.notes = "changed"
    with pytest.raises(ReleaseImmutableError, match="immutable"):
        release.save()
    with pytest.raises(ReleaseImmutableError):
        release.delete()
    release_file = release.files.first()
    with pytest.raises(ReleaseImmutableError):
        release_file.save()
    with pytest.raises(ReleaseImmutableError):
        release_file.delete()
    with pytest.raises(ReleaseImmutableError):
        ReleaseFile.objects.filter(release=release).update(sha256="0" * 64)
    with pytest.raises(ReleaseImmutableError):
        ReleaseInstance.objects.filter(release=release).delete()
    with pytest.raises(ReleaseImmutableError):
        Release.objects.all().delete()
    membership = release.memberships.first()
    with pytest.raises(ReleaseImmutableError):
        membership.delete()


def test_released_instances_and_dataset_cannot_be_deleted(dataset):
    release_create(dataset=dataset)
    instance = Instance.objects.filter(dataset=dataset).first()
    with pytest.raises(ProtectedError):
        instance.delete()
    with pytest.raises(ProtectedError):
        Instance.objects.filter(dataset=dataset).delete()
    with pytest.raises(ProtectedError):
        dataset.delete()


def test_retiring_and_editing_after_release_leave_it_untouched(dataset, researcher):
    release = release_create(dataset=dataset)
    members = set(release.memberships.values_list("instance_id", flat=True))
    checksums = {f.path: f.sha256 for f in release.files.all()}

    template = dataset.templates.get(versions__language="hi")
    template_edit(
        template=template, changes={"question_negative": "कौन भूल गया?"}, edited_by=researcher
    )
    result = dataset_instantiate(dataset=dataset)
    assert result["retired"] == 16 and result["created"] == 16
    # Retire part of a template's instances by hand (e.g. a reviewer's decision).
    Instance.objects.filter(dataset=dataset, language="ta", context_condition="ambig").update(
        retired_at=timezone.now()
    )

    release.refresh_from_db()
    assert set(release.memberships.values_list("instance_id", flat=True)) == members
    assert release.counts["total"] == 96
    for f in release.files.all():
        assert _sha(release_file_path(release_file=f)) == checksums[f.path]

    second = release_create(dataset=dataset)
    assert second.counts["total"] == 96 - 8
    assert second.counts["by_category_language"]["Caste"]["ta"] == 8
    assert (
        second.files.get(kind="instances", format="jsonl").sha256
        != checksums[release.files.get(kind="instances", format="jsonl").path]
    )


def test_nothing_to_release(db, media_root):
    empty = DatasetFactory(name="empty")
    with pytest.raises(KasautiError, match="nothing to release"):
        release_create(dataset=empty)
    assert not Release.objects.exists()
    assert not list(Path(media_root).glob("releases/*/*"))


def test_uninstantiated_templates_block_the_release(dataset):
    template_create(
        dataset=dataset,
        external_id="new",
        category=CategoryFactory(name="Age"),
        content={
            "ambiguous_context": "A {{NAME1}} met a {{NAME2}}.",
            "disambiguating_context": "The {{NAME1}} left.",
            "question_negative": "Who left?",
            "question_non_negative": "Who stayed?",
            "placeholders": {"NAME1": ["nurse"], "NAME2": ["doctor"]},
        },
    )
    # Everything as published would take the draft: refused, naming it. (A reviewed release
    # takes approved versions only, so a draft does not hold it up: issue 18, 2.1.)
    with pytest.raises(ConflictError, match=r"\(new v1 \(draft\)\); instantiate the dataset"):
        release_create(dataset=dataset, content="as_published")
    assert not Release.objects.exists()


def test_failure_while_writing_leaves_nothing(dataset, media_root, monkeypatch):
    def explode(self, rows):
        raise RuntimeError("disk full")

    monkeypatch.setattr(writers.ParquetWriter, "write_batch", explode)
    with pytest.raises(RuntimeError, match="disk full"):
        release_create(dataset=dataset)
    assert not Release.objects.exists()
    assert not ReleaseInstance.objects.exists()
    assert not list(Path(media_root).rglob("*.*"))


def test_dataset_with_only_tuples_can_be_released(db):
    other = DatasetFactory()
    TemplateVersionFactory(template__dataset=DatasetFactory())  # another dataset's template
    from apps.catalog.models import StereotypeTuple

    StereotypeTuple.objects.create(
        dataset=other,
        category=CategoryFactory(name="Age"),
        identity_term="old",
        attribute="wise",
        votes=[1, 1, 0],
    )
    release = release_create(dataset=other)
    assert release.counts["total"] == 0 and release.counts["tuples"] == 1
    assert sorted(release.files.values_list("kind", "format")) == [
        ("card", "json"),
        ("card", "md"),
        ("changelog", "json"),
        ("citation", "cff"),
        ("tuples", "csv"),
        ("tuples", "jsonl"),
        ("tuples", "parquet"),
    ]


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_simultaneous_identical_requests_make_one_release(dataset):
    """Four requests at once (four threads, four connections): the dataset lock serialises
    them, the first makes release 1 and the others get it back."""
    import threading

    from django.db import connection

    results: list[int] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def request() -> None:
        try:
            barrier.wait(timeout=30)
            results.append(release_create(dataset=dataset).pk)
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=request) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    assert len(results) == 4 and len(set(results)) == 1
    assert Release.objects.filter(dataset=dataset).count() == 1


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_simultaneous_requests_with_different_notes_get_a_release_or_a_conflict(dataset):
    """Four requests at once with four different notes (four threads, four connections, real
    PostgreSQL row locks): one makes release 1 with its notes; each of the others is told that
    nothing changed since release 1 and that its notes were not kept. No note is dropped
    silently."""
    import threading

    from django.db import connection

    made: dict[str, int] = {}
    conflicts: dict[str, str] = {}
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def request(notes: str) -> None:
        try:
            barrier.wait(timeout=30)
            made[notes] = release_create(dataset=dataset, notes=notes).pk
        except ConflictError as exc:
            conflicts[notes] = str(exc)
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    notes = [f"note {i} – टिप्पणी" for i in range(4)]
    threads = [threading.Thread(target=request, args=(n,)) for n in notes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    (release,) = Release.objects.filter(dataset=dataset)
    assert made == {release.notes: release.pk}
    assert sorted([*made, *conflicts]) == sorted(notes)
    for note, message in conflicts.items():
        assert "has not changed since release 1" in message, message
        assert repr(note) in message and repr(release.notes) in message, message
    # The same notes again (a double click) or none: the release is the answer.
    assert release_create(dataset=dataset, notes=release.notes).pk == release.pk
    assert release_create(dataset=dataset).pk == release.pk
