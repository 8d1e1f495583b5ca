"""Release membership without per-row foreign-key checks; triggers keep releases undeletable.

The two foreign keys of ReleaseInstance lose their database constraints (a release writes its
membership rows by the hundred thousand, and the checks cost more than the rows; see
ReleaseInstance). What those constraints guaranteed besides valid inserts, which release_create
guarantees by construction, is kept by triggers on PostgreSQL and SQLite: deleting an instance
that belongs to a release, or a release that has members, or changing their ids, is refused
with an integrity error, as the foreign keys did. On PostgreSQL the delete checks run once per
statement over its deleted rows (deletes are rare; the transition table costs nothing on
insert). The redundant index on release_id goes too: the unique (release, instance)
constraint's index serves lookups by release.
"""

import django.db.models.deletion
from django.db import migrations, models

INSTANCE_MESSAGE = "an instance that belongs to a release cannot be deleted (retire it instead)"
RELEASE_MESSAGE = "a release cannot be deleted: releases are immutable"

POSTGRESQL = [
    f"""
    CREATE FUNCTION releases_refuse_released_instance_delete() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE
        hit record;
    BEGIN
        SELECT m.instance_id, m.release_id INTO hit
        FROM gone g JOIN releases_releaseinstance m ON m.instance_id = g.id LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION '{INSTANCE_MESSAGE}: instance % is in release %',
                hit.instance_id, hit.release_id
                USING ERRCODE = 'foreign_key_violation';
        END IF;
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER releases_released_instance_delete AFTER DELETE ON catalog_instance
    REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION releases_refuse_released_instance_delete()
    """,
    f"""
    CREATE FUNCTION releases_refuse_member_release_delete() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE
        hit bigint;
    BEGIN
        SELECT m.release_id INTO hit
        FROM gone g JOIN releases_releaseinstance m ON m.release_id = g.id LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION '{RELEASE_MESSAGE}: release % has instances', hit
                USING ERRCODE = 'foreign_key_violation';
        END IF;
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER releases_member_release_delete AFTER DELETE ON releases_release
    REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION releases_refuse_member_release_delete()
    """,
    # A changed id would orphan the membership rows as a delete would (row level: only an
    # UPDATE that sets the id column fires it, which Django never does).
    """
    CREATE FUNCTION releases_refuse_member_id_change() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_TABLE_NAME = 'catalog_instance' THEN
            PERFORM 1 FROM releases_releaseinstance WHERE instance_id = OLD.id LIMIT 1;
        ELSE
            PERFORM 1 FROM releases_releaseinstance WHERE release_id = OLD.id LIMIT 1;
        END IF;
        IF FOUND THEN
            RAISE EXCEPTION 'the id of % % cannot change: it belongs to a release',
                TG_TABLE_NAME, OLD.id
                USING ERRCODE = 'foreign_key_violation';
        END IF;
        RETURN NEW;
    END $$
    """,
    """
    CREATE TRIGGER releases_released_instance_id BEFORE UPDATE OF id ON catalog_instance
    FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id)
    EXECUTE FUNCTION releases_refuse_member_id_change()
    """,
    """
    CREATE TRIGGER releases_member_release_id BEFORE UPDATE OF id ON releases_release
    FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id)
    EXECUTE FUNCTION releases_refuse_member_id_change()
    """,
]
POSTGRESQL_REVERSE = [
    "DROP TRIGGER releases_released_instance_delete ON catalog_instance",
    "DROP TRIGGER releases_member_release_delete ON releases_release",
    "DROP TRIGGER releases_released_instance_id ON catalog_instance",
    "DROP TRIGGER releases_member_release_id ON releases_release",
    "DROP FUNCTION releases_refuse_released_instance_delete()",
    "DROP FUNCTION releases_refuse_member_release_delete()",
    "DROP FUNCTION releases_refuse_member_id_change()",
]

# SQLite has no statement-level triggers; per row is fine at its sizes. RAISE(ABORT) is an
# integrity error, like a foreign-key violation.
SQLITE = [
    f"""
    CREATE TRIGGER releases_released_instance_delete BEFORE DELETE ON catalog_instance
    FOR EACH ROW WHEN EXISTS (
        SELECT 1 FROM releases_releaseinstance WHERE instance_id = OLD.id
    )
    BEGIN SELECT RAISE(ABORT, '{INSTANCE_MESSAGE}'); END
    """,
    f"""
    CREATE TRIGGER releases_member_release_delete BEFORE DELETE ON releases_release
    FOR EACH ROW WHEN EXISTS (SELECT 1 FROM releases_releaseinstance WHERE release_id = OLD.id)
    BEGIN SELECT RAISE(ABORT, '{RELEASE_MESSAGE}'); END
    """,
    """
    CREATE TRIGGER releases_released_instance_id BEFORE UPDATE OF id ON catalog_instance
    FOR EACH ROW WHEN OLD.id IS NOT NEW.id AND EXISTS (
        SELECT 1 FROM releases_releaseinstance WHERE instance_id = OLD.id
    )
    BEGIN SELECT RAISE(ABORT, 'the id of an instance that belongs to a release cannot change');
    END
    """,
    """
    CREATE TRIGGER releases_member_release_id BEFORE UPDATE OF id ON releases_release
    FOR EACH ROW WHEN OLD.id IS NOT NEW.id AND EXISTS (
        SELECT 1 FROM releases_releaseinstance WHERE release_id = OLD.id
    )
    BEGIN SELECT RAISE(ABORT, 'the id of a release cannot change'); END
    """,
]
SQLITE_REVERSE = [
    "DROP TRIGGER releases_released_instance_delete",
    "DROP TRIGGER releases_member_release_delete",
    "DROP TRIGGER releases_released_instance_id",
    "DROP TRIGGER releases_member_release_id",
]

TRIGGERS = {"postgresql": (POSTGRESQL, POSTGRESQL_REVERSE), "sqlite": (SQLITE, SQLITE_REVERSE)}


def _run(schema_editor, position: int) -> None:
    statements = TRIGGERS.get(schema_editor.connection.vendor)
    if statements is None:
        raise RuntimeError(
            f"no release guard triggers for database {schema_editor.connection.vendor!r}"
        )
    for statement in statements[position]:
        schema_editor.execute(statement, params=None)  # no placeholders: % is plpgsql's


def triggers_create(apps, schema_editor) -> None:
    _run(schema_editor, 0)


def triggers_drop(apps, schema_editor) -> None:
    _run(schema_editor, 1)


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0007_instance_review"),
        ("releases", "0004_release_content"),
    ]

    operations = [
        migrations.AlterField(
            model_name="releaseinstance",
            name="instance",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="memberships",
                to="catalog.instance",
            ),
        ),
        migrations.AlterField(
            model_name="releaseinstance",
            name="release",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="memberships",
                to="releases.release",
            ),
        ),
        migrations.RunPython(triggers_create, triggers_drop),
    ]
