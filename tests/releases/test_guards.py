"""A released instance, and a release with members, cannot be deleted or renumbered, even by
SQL that bypasses Django: the membership's keys carry no database constraint (release speed,
see ReleaseInstance), triggers keep what the constraints guaranteed. Runs on PostgreSQL and,
listed in the Makefile's SQLITE_TESTS, on SQLite."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.models import ProtectedError

from apps.catalog.models import Instance, TemplateVersion
from apps.releases.models import Release, ReleaseInstance
from apps.releases.services import release_create

pytestmark = pytest.mark.django_db


def _sql(statement: str, params: list) -> int:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.rowcount


@pytest.fixture
def released(dataset) -> tuple[Release, Instance, Instance]:
    """A release, one of its instances and a live instance of the dataset it does not hold
    (a template left in draft: a reviewed release leaves its instances out)."""
    TemplateVersion.objects.filter(template__dataset=dataset, language="ta").update(status="draft")
    release = release_create(dataset=dataset)
    member = Instance.objects.get(pk=release.memberships.order_by("instance_id")[0].instance_id)
    outsider = Instance.objects.filter(dataset=dataset).exclude(memberships__release=release)[0]
    return release, member, outsider


def test_released_instance_cannot_be_deleted_by_sql(released):
    release, member, outsider = released
    with pytest.raises(IntegrityError, match="belongs to a release"):
        _sql("DELETE FROM catalog_instance WHERE id = %s", [member.pk])
    # Among others, in one statement: refused as a whole.
    with pytest.raises(IntegrityError, match="belongs to a release"):
        _sql("DELETE FROM catalog_instance WHERE id IN (%s, %s)", [outsider.pk, member.pk])
    assert Instance.objects.filter(pk__in=[member.pk, outsider.pk]).count() == 2
    # Through Django: refused before any SQL runs.
    with pytest.raises(ProtectedError):
        member.delete()
    # An instance no release holds can still go.
    assert _sql("DELETE FROM catalog_instance WHERE id = %s", [outsider.pk]) == 1


def test_released_instance_id_cannot_change(released):
    release, member, outsider = released
    with pytest.raises(IntegrityError, match="belongs to a release"):
        _sql("UPDATE catalog_instance SET id = id + 1000000 WHERE id = %s", [member.pk])
    assert _sql("UPDATE catalog_instance SET id = id + 1000000 WHERE id = %s", [outsider.pk]) == 1
    # Other columns of a released instance change as before (retirement, review facts).
    assert _sql("UPDATE catalog_instance SET retired_at = NULL WHERE id = %s", [member.pk]) == 1


def test_release_with_members_cannot_be_deleted_or_renumbered_by_sql(released):
    release, member, _ = released
    with pytest.raises(IntegrityError, match="release"):
        _sql("DELETE FROM releases_release WHERE id = %s", [release.pk])
    with pytest.raises(IntegrityError, match="release"):
        _sql("UPDATE releases_release SET id = id + 1000 WHERE id = %s", [release.pk])
    assert Release.objects.filter(pk=release.pk).exists()
    assert ReleaseInstance.objects.filter(release=release, instance=member).exists()
