"""Reads of what translation tells a release (issue 22): the preprocessing figures of a
release's dataset card and one translated instance's chain for its provenance.

Everything here reads the review facts the translation app wrote on each translated Instance
(`Instance.review`, services/review.py) and its own tables (the string cache, the correction
queue): a release freezes instances, and their review facts say which job's verdict each one
carries (its threshold and model versions), so the figures are those of the released rows, not
of whatever job ran last.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection
from django.db.models import Q

from apps.accounts.pseudonyms import person_pseudonym
from apps.catalog.models import Instance

from . import pipeline
from .models import (
    CorrectionItem,
    CorrectionRevision,
    TranslatedString,
    is_demo_model,
    translation_model_version,
)
from .services.review import CORRECTED, FLAGGED, PASSED

# The models a translation job runs (apps/translation/engines.py: the en->indic and indic->en
# IndicTrans2 checkpoints, then a sentence embedder that scores each source text against its
# back-translation). Their versions are the MODEL_VERSION files (or weight digests) each
# translated row records; the names are what those checkpoints are.
MODEL_NAMES: dict[str, str] = {
    "forward": "IndicTrans2 en→Indic (CTranslate2)",
    "backward": "IndicTrans2 Indic→en (CTranslate2)",
    "embedder": "sentence embedder",
}
STATUSES = (PASSED, FLAGGED, CORRECTED)


@contextmanager
def hash_joins() -> Iterator[None]:
    """Plan the queries inside without nested loops, for the rest of this block only.

    At release time the membership rows were written moments ago in the same transaction, so
    the planner has no statistics for them and guesses a few thousand members where there are
    hundreds of thousands; it then probes the instance table once per member (3 s at 400,000
    instances, measured) instead of hashing one side (a fraction of that). The setting is
    transaction-local and put back as it was afterwards; outside a transaction PostgreSQL
    ignores it and the query simply runs with the default plan."""
    if connection.vendor != "postgresql":  # (SQLite, the embedded default, has no planner knobs)
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('enable_nestloop')")
        (previous,) = cursor.fetchone()
        cursor.execute("SELECT set_config('enable_nestloop', 'off', true)")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('enable_nestloop', %s, true)", [previous])


def _released_translations(release) -> Any:
    return Instance.objects.filter(memberships__release=release, source_instance__isnull=False)


def _threshold(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def release_translation_facts(*, release) -> dict[str, Any] | None:
    """Per target language of the release's translated instances: the model versions and the
    back-translation threshold their review facts carry (every distinct one, with its count),
    how many passed, were flagged or corrected, and the corrections recorded on them (how many
    correction items, by how many correctors, on how many instances). None when the release
    holds no translation.

    One aggregate query over the release's membership, hash-joined (hash_joins), whatever its
    size: the groups are few (language x versions x threshold x status), and the correction
    notes come back only for the corrected rows."""
    members = _released_translations(release).values("language", "review").order_by()
    rows = (
        _translation_groups_sql(members)
        if connection.vendor == "postgresql"
        else _translation_groups_python(members)
    )
    if not rows:
        return None
    return _translation_facts(rows)


def _translation_groups_python(members) -> list[tuple]:
    """The rows of _translation_groups_sql, grouped in Python: the embedded SQLite default
    has no jsonb (its datasets are the small ones)."""
    groups: dict[tuple, list] = {}
    for row in members.iterator():
        review = row["review"] or {}
        threshold = review.get("threshold")
        key = (
            row["language"],
            review.get("forward_model_version"),
            review.get("backward_model_version"),
            review.get("embedder_version"),
            None if threshold is None else str(threshold),
            review.get("status"),
        )
        group = groups.setdefault(key, [0, 0, [], []])
        group[0] += 1
        corrections = review.get("corrections")
        if isinstance(corrections, list) and corrections:
            group[1] += 1
            group[2].append([c["item"] for c in corrections if "item" in c])
            group[3].append([c["by"] for c in corrections if "by" in c])
    return [
        (*key, n, fixed, items or None, by or None) for key, (n, fixed, items, by) in groups.items()
    ]


def _translation_groups_sql(members) -> list[tuple]:
    """(language, forward, backward, embedder, threshold text, status, instances, corrected
    instances, their correction items, their correctors) per group, in PostgreSQL."""
    sql, params = members.query.sql_with_params()
    corrected = (
        "jsonb_typeof(m.review->'corrections') = 'array' AND m.review->'corrections' <> '[]'::jsonb"
    )
    with hash_joins(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT m.language, m.review->>'forward_model_version', "
            "m.review->>'backward_model_version', m.review->>'embedder_version', "
            "m.review->>'threshold', m.review->>'status', count(*), "
            f"count(*) FILTER (WHERE {corrected}), "
            "jsonb_agg(jsonb_path_query_array(m.review, '$.corrections[*].item')) "
            f"FILTER (WHERE {corrected}), "
            "jsonb_agg(jsonb_path_query_array(m.review, '$.corrections[*].by')) "
            f"FILTER (WHERE {corrected}) "
            f"FROM ({sql}) m GROUP BY 1, 2, 3, 4, 5, 6",
            params,
        )
        return cursor.fetchall()


def _translation_facts(rows: list[tuple]) -> dict[str, Any]:
    languages: dict[str, dict[str, Any]] = {}
    models: dict[str, dict[tuple[str, str, str], int]] = defaultdict(lambda: defaultdict(int))
    thresholds: dict[str, dict[float | None, int]] = defaultdict(lambda: defaultdict(int))
    notes: dict[str, dict[str, set]] = defaultdict(lambda: {"items": set(), "by": set()})
    for language, forward, backward, embedder, threshold, status, n, fixed, items, by in rows:
        entry = languages.setdefault(
            language,
            {
                "instances": 0,
                "status": {name: 0 for name in STATUSES},
                "corrections": {"corrections": 0, "correctors": 0, "instances": 0},
            },
        )
        entry["instances"] += n
        status = status or "unknown"
        entry["status"][status] = entry["status"].get(status, 0) + n
        models[language][(forward or "", backward or "", embedder or "")] += n
        thresholds[language][_threshold(threshold)] += n
        entry["corrections"]["instances"] += fixed
        for row_items in _loaded(items):
            notes[language]["items"].update(str(item) for item in row_items)
        for row_by in _loaded(by):
            notes[language]["by"].update(person for person in row_by if person)
    for language, entry in languages.items():
        entry["corrections"]["corrections"] = len(notes[language]["items"])
        # People are counted, never named.
        entry["corrections"]["correctors"] = len(notes[language]["by"])
        entry["models"] = [
            {
                "forward_model_version": forward,
                "backward_model_version": backward,
                "embedder_version": embedder,
                "demo": is_demo_model(forward, backward),
                "instances": n,
            }
            for (forward, backward, embedder), n in sorted(
                models[language].items(), key=lambda kv: (-kv[1], kv[0])
            )
        ]
        entry["thresholds"] = [
            {"threshold": threshold, "instances": n}
            for threshold, n in sorted(
                thresholds[language].items(), key=lambda kv: (kv[0] is None, kv[0] or 0.0)
            )
        ]
    return {
        "model_names": dict(MODEL_NAMES),
        "instances": sum(entry["instances"] for entry in languages.values()),
        "languages": dict(sorted(languages.items())),
    }


def _loaded(value: Any) -> list:
    """A jsonb aggregate as psycopg returns it (decoded, or text when no loader is set)."""
    if value is None:
        return []
    return json.loads(value) if isinstance(value, str) else value


# --- one instance's chain ---------------------------------------------------------------------

SOURCE_FIELDS = (
    "id",
    "dataset_id",
    "category_id",
    "language",
    "template_version_id",
    "combination",
    "name_order",
    "context_condition",
    "context",
    "question",
    "ans0",
    "ans1",
    "ans2",
)


def _units(source: dict[str, Any], ambiguous: str | None) -> list[tuple[str, str]]:
    """(role, English text) of each string the translation of `source` is made of, split the
    way the job split it (pipeline.split_context: a disambiguated context is its ambiguous
    part, translated once for the combination, and the rest)."""
    parts = (
        pipeline.split_context(source["context"], ambiguous)
        if source["context_condition"] == "disambig"
        else [source["context"]]
    )
    roles = (
        ["context"] if len(parts) == 1 else ["context (ambiguous part)", "context (disambiguation)"]
    )
    units = list(zip(roles, parts, strict=True))
    units += [("question", source["question"])]
    units += [(f"ans{i}", source[f"ans{i}"]) for i in range(3)]
    return [(role, text) for role, text in units if text.strip()]


def instance_source(*, instance: Instance) -> dict[str, Any] | None:
    """The English row a translated instance was made from, with the ambiguous context of its
    combination when it is a disambiguated one (two indexed lookups)."""
    source = next(
        iter(Instance.objects.filter(pk=instance.source_instance_id).values(*SOURCE_FIELDS)), None
    )
    if source is None:
        return None
    source["ambiguous_context"] = None
    if source["context_condition"] == "disambig":
        sibling = Instance.objects.filter(
            template_version_id=source["template_version_id"],
            language=source["language"],
            combination=source["combination"],
            name_order=source["name_order"],
            context_condition="ambig",
        ).values_list("context", flat=True)
        # Live rows: the instance identity index (partial, on live rows) leads with
        # template_version, so this is an index range scan. A source retired since (kept for
        # the releases that froze it) falls back to its dataset, language and category.
        # Unordered: with the model's ordering, LIMIT 1 would walk another index in that
        # order instead (measured: p95 88 ms at 1M instances).
        found = list(sibling.filter(retired_at__isnull=True).order_by()[:1]) or list(
            sibling.filter(
                dataset_id=source["dataset_id"], category_id=source["category_id"]
            ).order_by()[:1]
        )
        source["ambiguous_context"] = found[0] if found else None
    return source


def instance_strings(
    *, instance: Instance, source: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The translated strings a translated instance is made of, in instance order (context,
    question, ans0-2), each with its role, source text and the cached row (translation,
    back-translation, cosine) of the model versions its review facts name. One lookup on the
    string cache's unique key (text hash, language, model version)."""
    # The provenance page asks twice for the same instance object (the translation step, then
    # the validation step for the scored strings): the second asks nothing of the database.
    cached = getattr(instance, "_provenance_strings", None)
    if cached is not None:
        return cached
    source = source if source is not None else instance_source(instance=instance)
    if source is None:
        return []
    units = _units(source, source.get("ambiguous_context"))
    review = instance.review or {}
    versions = (
        review.get("forward_model_version", ""),
        review.get("backward_model_version", ""),
        review.get("embedder_version", ""),
    )
    hashes = {text: pipeline.text_hash(text) for _, text in units}
    cache = TranslatedString.objects.filter(
        text_hash__in=set(hashes.values()), language=instance.language
    )
    if any(versions):
        cache = cache.filter(model_version=translation_model_version(*versions))
    by_hash = {
        row["text_hash"]: row
        for row in cache.order_by("id").values(
            "id", "text_hash", "translation", "back_translation", "similarity"
        )
    }
    strings = [
        {"role": role, "source_text": text, **_string(by_hash.get(hashes[text]))}
        for role, text in units
    ]
    instance._provenance_strings = strings
    return strings


def _string(row: dict[str, Any] | None) -> dict[str, Any]:
    if row is None:  # not in the cache under these versions (e.g. an imported translation)
        return {"string_id": None, "translation": None, "back_translation": None, "cosine": None}
    return {
        "string_id": row["id"],
        "translation": row["translation"],
        "back_translation": row["back_translation"],
        "cosine": round(row["similarity"], 4),
    }


def instance_corrections(
    *, instance: Instance, strings: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Every human correction of what a translated instance is made of, oldest first: the
    correction items on its strings, on the instance itself (an option mismatch) and those its
    review facts name (the rows it replaced), each revision with who (pseudonymised), when,
    the text before and after. Two indexed queries (three when an instance-level item exists)."""
    review = instance.review or {}
    noted = [note.get("item") for note in review.get("corrections") or [] if isinstance(note, dict)]
    string_ids = [s["string_id"] for s in strings if s["string_id"] is not None]
    items = {
        row["id"]: row
        for row in CorrectionItem.objects.filter(
            Q(translated_string_id__in=string_ids)
            | Q(instance_id=instance.pk)
            | Q(pk__in=[pk for pk in noted if isinstance(pk, int)])
        ).values("id", "kind", "status", "language", "translated_string_id", "instance_id")
    }
    if not items:
        return []
    machine = {s["string_id"]: s["translation"] for s in strings if s["string_id"] is not None}
    roles = {s["string_id"]: s["role"] for s in strings if s["string_id"] is not None}
    instance_items = [row["instance_id"] for row in items.values() if row["instance_id"]]
    machine_context = dict(
        Instance.objects.filter(pk__in=instance_items).values_list("id", "context")
    )
    out = []
    for revision in CorrectionRevision.objects.filter(item_id__in=list(items)).order_by(
        "created_at", "id"
    ):
        item = items[revision.item_id]
        if item["translated_string_id"]:
            original = machine.get(item["translated_string_id"])
            role = roles.get(item["translated_string_id"], "")
        else:
            original = machine_context.get(item["instance_id"])
            role = "context"
        out.append(
            {
                "item": item["id"],
                "kind": item["kind"],
                "role": role,
                "by": person_pseudonym(user_id=revision.author_id) or "unknown",
                "at": revision.created_at.isoformat(),
                # The first revision's previous text is empty: it replaced the machine output.
                "before": revision.previous_text or original,
                "after": revision.text,
                "note": revision.note,
            }
        )
    return out
