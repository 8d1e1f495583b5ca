"""Reads of what translation tells a release (issue 22): the preprocessing figures of a
release's dataset card and one translated instance's chain for its provenance.

Everything here reads the review facts the translation app wrote on each translated Instance
(`Instance.review`, services/review.py) and its own tables (the string cache, the correction
queue): a release freezes instances, and their review facts say which job's verdict each one
carries (its threshold and model versions), so the figures are those of the released rows, not
of whatever job ran last.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db import connection
from django.db.models import Count, Q
from django.db.models.fields.json import KT

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


def person_pseudonym(user_id: int | None, *, role: str = "annotator") -> str:
    """How a person is named in what a release publishes (a card, a provenance chain, a
    changelog): their role and the account's id, e.g. "annotator-3", never a name or a
    username. Stable, so the same person reads the same everywhere and across releases; only
    someone with access to the accounts can tell who it is."""
    return f"{role}-{user_id}" if user_id is not None else "unknown"


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
    correction items, by how many correctors). None when the release holds no translation.

    Two aggregate queries over the release's membership, whatever its size."""
    rows = (
        _released_translations(release)
        .values(
            "language",
            forward=KT("review__forward_model_version"),
            backward=KT("review__backward_model_version"),
            embedder=KT("review__embedder_version"),
            threshold=KT("review__threshold"),
            status=KT("review__status"),
        )
        .annotate(n=Count("pk"))
        .order_by()
    )
    languages: dict[str, dict[str, Any]] = {}
    models: dict[str, dict[tuple[str, str, str], int]] = defaultdict(lambda: defaultdict(int))
    thresholds: dict[str, dict[float | None, int]] = defaultdict(lambda: defaultdict(int))
    for row in rows:
        entry = languages.setdefault(
            row["language"],
            {"instances": 0, "status": {status: 0 for status in STATUSES}},
        )
        entry["instances"] += row["n"]
        status = row["status"] or "unknown"
        entry["status"][status] = entry["status"].get(status, 0) + row["n"]
        key = (row["forward"] or "", row["backward"] or "", row["embedder"] or "")
        models[row["language"]][key] += row["n"]
        thresholds[row["language"]][_threshold(row["threshold"])] += row["n"]
    if not languages:
        return None
    corrections = _release_corrections(release)
    for language, entry in languages.items():
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
        entry["corrections"] = corrections.get(
            language, {"corrections": 0, "correctors": 0, "instances": 0}
        )
    return {
        "model_names": dict(MODEL_NAMES),
        "instances": sum(entry["instances"] for entry in languages.values()),
        "languages": dict(sorted(languages.items())),
    }


def _release_corrections(release) -> dict[str, dict[str, int]]:
    """Per language: the distinct correction items recorded on the release's translated
    instances (`review.corrections`, one note per accepted correction that rewrote the row),
    the distinct people who made them (counted, never named) and the instances they touched.
    One aggregate query: the notes are unnested in the database."""
    members = _released_translations(release).values("id", "language", "review").order_by()
    sql, params = members.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT m.language, count(DISTINCT note->>'item'), "
            "count(DISTINCT NULLIF(note->>'by', '')), count(DISTINCT m.id) "
            f"FROM ({sql}) m CROSS JOIN LATERAL jsonb_array_elements("
            "CASE WHEN jsonb_typeof(m.review->'corrections') = 'array' "
            "THEN m.review->'corrections' ELSE '[]'::jsonb END) note "
            "GROUP BY m.language",
            params,
        )
        return {
            language: {"corrections": items, "correctors": people, "instances": instances}
            for language, items, people, instances in cursor.fetchall()
        }


# --- one instance's chain ---------------------------------------------------------------------

SOURCE_FIELDS = (
    "id",
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
    source = Instance.objects.filter(pk=instance.source_instance_id).values(*SOURCE_FIELDS).first()
    if source is None:
        return None
    source["ambiguous_context"] = None
    if source["context_condition"] == "disambig":
        # The instance identity index leads with template_version: an index range scan.
        source["ambiguous_context"] = (
            Instance.objects.filter(
                template_version_id=source["template_version_id"],
                language=source["language"],
                combination=source["combination"],
                name_order=source["name_order"],
                context_condition="ambig",
            )
            .values_list("context", flat=True)
            .first()
        )
    return source


def instance_strings(
    *, instance: Instance, source: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The translated strings a translated instance is made of, in instance order (context,
    question, ans0-2), each with its role, source text and the cached row (translation,
    back-translation, cosine) of the model versions its review facts name. One lookup on the
    string cache's unique key (text hash, language, model version)."""
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
    strings = TranslatedString.objects.filter(
        text_hash__in=set(hashes.values()), language=instance.language
    )
    if any(versions):
        strings = strings.filter(model_version=translation_model_version(*versions))
    by_hash = {
        row["text_hash"]: row
        for row in strings.order_by("id").values(
            "id", "text_hash", "translation", "back_translation", "similarity"
        )
    }
    return [
        {"role": role, "source_text": text, **_string(by_hash.get(hashes[text]))}
        for role, text in units
    ]


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
                "by": person_pseudonym(revision.author_id),
                "at": revision.created_at.isoformat(),
                # The first revision's previous text is empty: it replaced the machine output.
                "before": revision.previous_text or original,
                "after": revision.text,
                "note": revision.note,
            }
        )
    return out
