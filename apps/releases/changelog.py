"""The changelog of a release against an earlier release of its dataset (issue 22).

What changed, and why, between two releases (docs/releases/changelog.md):

* **Instances.** An instance is the *same* across releases when its identity is: template,
  placeholder values, context condition, question polarity and language, and also its name
  order and pairing. The last two are needed because within one template version two
  instances may differ by nothing else: EsBBQ's NAME1/NAME2 permutations share their
  placeholder values and differ by `name_order`, and BharatBBQ's NP/NNP contexts by
  `pairing` (the catalog's live-row unique constraint names both for the same reason).
  Without them an identity would stand for two instances and pair them at random. Imported
  instances have no template: their question index and source id stand in for it.
  *Changed* means same identity, different text or labels: the text hash
  (apps/catalog/instance_hash.py: texts and label) or the option roles / answer_info.

  Speed: instances are never edited in place (a new template version or an accepted
  correction writes new rows and retires the old), so an instance id in both memberships is
  an unchanged instance. The two memberships are compared by id in SQL (anti-joins on the
  (release, instance) primary key), and only the ids in one release but not the other, few
  as a rule, are read, in one query, and paired by identity in Python. A pair with the same
  text is a *renewed* row (a new version that left this instance's text as it was): counted
  with the unchanged.

* **Reasons.** Each added, removed and changed instance gets the first registered
  ChangeReason (apps/releases/registry.py, by order) whose `applies` holds; the releases app
  registers the catalog's reasons (apps/releases/change_reasons.py), the translation app its
  own (apps/translation/change_reasons.py). A case no reason explains is counted under
  "other" and said so (`totals["unexplained"]`, a note), never dropped.

* **Other kinds** (sentence pairs, tuples, context sets) are edited in place and have no
  membership: the older release's frozen JSONL file is compared with the newer one, row by
  row, by their key (external id and language; a tuple's id).

The dict is written as changelog.json at release time (apps/releases/documents.py), printed by
`manage.py compare_releases` and rendered in the card by `changelog_markdown`, a pure function
of it.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
from django.conf import settings
from django.db import connection

from apps.catalog.instance_hash import instance_text_hash, instance_text_hash_sql
from apps.catalog.models import Category, Dataset, Instance, Template, TemplateVersion
from apps.core.errors import KasautiError

from .models import FileKind, Release, ReleaseInstance
from .registry import CardContext, CardSection, change_reasons

CHANGES = ("added", "removed", "changed")
EXAMPLES_PER_REASON = 5
# The reason given when no registered reason applies: counted and reported, never silent.
OTHER_REASON = "other"
OTHER_LABEL = "No registered reason explains it"
# The other kinds' frozen files and the key that identifies a row across releases.
OTHER_KINDS: dict[str, tuple[str, ...]] = {
    FileKind.SENTENCE_PAIRS: ("external_id", "language"),
    FileKind.TUPLES: ("id",),
    FileKind.CONTEXT_SETS: ("external_id", "language"),
}
KIND_LABELS = {
    FileKind.SENTENCE_PAIRS: "Sentence pairs",
    FileKind.TUPLES: "Tuples",
    FileKind.CONTEXT_SETS: "Context sets",
}


# --- instances ------------------------------------------------------------------------------

_ROW_COLUMNS = (
    "side",
    "id",
    "template_id",
    "template_external_id",
    "template_version_id",
    "template_version_number",
    "template_version_status",
    "category",
    "language",
    "context_condition",
    "question_polarity",
    "name_order",
    "pairing",
    "placeholder_values",
    "label",
    "option_roles",
    "answer_info",
    "source_instance_id",
    "review",
    "retired_at",
    "existed_at_previous",
    "live_at_newer",
    "combination",
    "example_id",
    "question_index",
    "source_id",
)
# JSON columns decoded for the reasons; option roles and answer_info are only compared (as
# canonical text, see _diff_rows).
_JSON_COLUMNS = ("placeholder_values", "review")
# The join of two 400k memberships holds one of them in a hash: with the default work_mem
# (4 MB) it spills to disk in batches. Raised for that one statement (and set back).
_DIFF_WORK_MEM = "64MB"
_TEXT_COLUMNS = ("context", "question", "ans0", "ans1", "ans2")


# The ids on one side only, from the frozen files' provenance column (see _diff_ids): two
# arrays of ids, "old" then "new".
_DIFF_IDS_SQL = """
            SELECT 'old' AS side, unnest(%s::bigint[]) AS instance_id
            UNION ALL SELECT 'new', unnest(%s::bigint[])"""


def _diff_ids_join_sql(membership: str) -> str:
    """The same from the two memberships: a full join (for releases whose files carry no
    provenance column, made before it existed)."""
    return f"""
            SELECT CASE WHEN n.instance_id IS NULL THEN 'old' ELSE 'new' END AS side,
                   COALESCE(o.instance_id, n.instance_id) AS instance_id
            FROM (SELECT instance_id FROM {membership} WHERE release_id = %s) o
            FULL JOIN (SELECT instance_id FROM {membership} WHERE release_id = %s) n
                ON n.instance_id = o.instance_id
            WHERE o.instance_id IS NULL OR n.instance_id IS NULL"""  # noqa: S608 (table name)


def _file_member_ids(path: Path) -> np.ndarray | None:
    """The instance ids of a release from its frozen instances.parquet (the provenance
    column), sorted; None when the file is missing or has no provenance column."""
    if not path.is_file():
        return None
    parquet = pq.ParquetFile(path)  # (not pq.read_table: it imports pandas)
    if "provenance" not in parquet.schema_arrow.names:
        return None
    column = parquet.read(columns=["provenance"]).column("provenance").combine_chunks()
    ids = column.field("instance_id")
    if ids.null_count:
        return None
    # From the buffer: Array.to_numpy imports pandas.
    values = np.frombuffer(ids.buffers()[1], dtype=np.int64)[ids.offset : ids.offset + len(ids)]
    return np.sort(values)


def _diff_ids(*, old: Release, new: Release, new_directory: Path | None):
    """(old-only ids, new-only ids) from the two releases' frozen instances.parquet files, or
    None to diff the memberships in SQL. Instances are never edited in place, so an id in
    both releases is the same row. Reading two columns of ids and a sorted set difference
    takes tens of milliseconds at 400,000 instances; the full join of the two memberships
    reads the whole membership table (every release of every dataset) and took 0.7 s."""
    paths = []
    for release, directory in ((old, None), (new, new_directory)):
        if directory is None:
            stored = release.files.filter(kind=FileKind.INSTANCES, format="parquet").first()
            if stored is None:
                return None
            paths.append(Path(settings.MEDIA_ROOT) / stored.path)
        else:
            paths.append(Path(directory) / "instances.parquet")
    old_ids, new_ids = (_file_member_ids(path) for path in paths)
    if old_ids is None or new_ids is None:
        return None
    return (
        np.setdiff1d(old_ids, new_ids, assume_unique=True).tolist(),
        np.setdiff1d(new_ids, old_ids, assume_unique=True).tolist(),
    )


def _diff_rows_sql(*, postgres: bool, from_files: bool = False) -> str:
    """The instances in one membership and not the other, one query. `side` is "old" or "new".
    One full join of the two memberships, each read once along the (release_id, instance_id)
    primary key, keeps the ids on one side only; the instance rows are fetched by primary key
    for those (few) ids. On PostgreSQL
    the text hash is computed in the database; elsewhere the texts come back and are hashed in
    Python (the same function)."""
    membership = ReleaseInstance._meta.db_table
    instance = Instance._meta.db_table
    version = TemplateVersion._meta.db_table
    template = Template._meta.db_table
    category = Category._meta.db_table
    text = (
        f"{instance_text_hash_sql('i')} AS text_hash"
        if postgres
        else ", ".join(f"i.{column}" for column in _TEXT_COLUMNS)
    )
    return f"""
        SELECT d.side, i.id, v.template_id, t.external_id, i.template_version_id, v.number,
               v.status, c.name, i.language, i.context_condition, i.question_polarity,
               i.name_order, i.pairing, i.placeholder_values, i.label, i.option_roles,
               i.answer_info, i.source_instance_id, i.review, i.retired_at,
               i.created_at < %s, (i.retired_at IS NULL OR i.retired_at > %s),
               i.combination, i.example_id, i.question_index, i.source_id,
               {text}
        FROM ({_DIFF_IDS_SQL if from_files else _diff_ids_join_sql(membership)}) d
        JOIN {instance} i ON i.id = d.instance_id
        JOIN {category} c ON c.id = i.category_id
        LEFT JOIN {version} v ON v.id = i.template_version_id
        LEFT JOIN {template} t ON t.id = v.template_id
        ORDER BY d.side, i.id
    """  # noqa: S608 (table names from the models; values are parameters)


def _loaded(value: Any) -> Any:
    """A JSON column as Python (drivers hand jsonb back as text or already decoded)."""
    return json.loads(value) if isinstance(value, str) else value


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _iso(value: Any) -> str | None:
    if value is None:
        return None
    return value.isoformat() if isinstance(value, datetime) else str(value)


def _diff_rows(
    *, old: Release, new: Release, new_directory: Path | None = None
) -> list[dict[str, Any]]:
    postgres = connection.vendor == "postgresql"
    ids = _diff_ids(old=old, new=new, new_directory=new_directory) if postgres else None
    params = [old.created_at, new.created_at, *(ids if ids is not None else (old.pk, new.pk))]
    with connection.cursor() as cursor:
        if postgres:
            cursor.execute("SELECT current_setting('work_mem')")
            (work_mem,) = cursor.fetchone()
            cursor.execute("SELECT set_config('work_mem', %s, true)", [_DIFF_WORK_MEM])
        try:
            cursor.execute(_diff_rows_sql(postgres=postgres, from_files=ids is not None), params)
            fetched = cursor.fetchall()
        finally:
            if postgres:
                cursor.execute("SELECT set_config('work_mem', %s, true)", [work_mem])
    rows = []
    for values in fetched:
        row = dict(zip(_ROW_COLUMNS, values, strict=False))
        extra = values[len(_ROW_COLUMNS) :]
        if postgres:
            row["text_hash"] = extra[0]
        else:
            texts = dict(zip(_TEXT_COLUMNS, extra, strict=True))
            row["text_hash"] = instance_text_hash(**texts, label=row["label"])
        # The comparison keys: PostgreSQL prints jsonb in one canonical form (keys sorted,
        # no spaces), so its text is the key as it comes; elsewhere JSON is stored as written
        # and is put in canonical form here. Parsing and dumping every row's JSON in Python
        # cost more than the whole query at 400k instances with a few thousand changed.
        row["_values_key"] = _json_key(row["placeholder_values"], postgres)
        row["_content_key"] = (
            row["text_hash"],
            _json_key(row.pop("option_roles"), postgres),
            _json_key(row.pop("answer_info"), postgres),
        )
        row["retired_at"] = _iso(row["retired_at"])
        row["existed_at_previous"] = bool(row["existed_at_previous"])
        row["live_at_newer"] = bool(row["live_at_newer"])
        rows.append(row)
    for column in _JSON_COLUMNS:
        _json_decode_all(rows, column)
    return rows


def _json_decode_all(rows: list[dict[str, Any]], column: str) -> None:
    """Decode one JSON column of every row with one json.loads of them all (as an array): a
    call per row costs more than the query at a few thousand rows."""
    texts = [row[column] for row in rows]
    if all(isinstance(text, str) for text in texts):
        values = json.loads("[" + ",".join(texts) + "]") if texts else []
    else:
        values = [_loaded(text) if text is not None else {} for text in texts]
    for row, value in zip(rows, values, strict=True):
        row[column] = value if value is not None else {}


def _json_key(value: Any, postgres: bool) -> str:
    if postgres and isinstance(value, str):
        return value
    return _canonical(_loaded(value))


def _identity(row: dict[str, Any]) -> tuple:
    """Same identity = the same instance across releases (module docstring)."""
    template = row["template_id"]
    if template is None:  # imported from a published file: no template behind it
        template = ("published", row["question_index"], row["source_id"])
    return (
        template,
        row["language"],
        row["_values_key"],
        row["context_condition"],
        row["question_polarity"],
        row["name_order"],
        row["pairing"],
    )


def _content(row: dict[str, Any]) -> tuple:
    """Text and labels: the text hash (texts and label), option roles, answer_info."""
    return row["_content_key"]


def _pair(
    old_rows: list[dict[str, Any]], new_rows: list[dict[str, Any]]
) -> tuple[list[tuple[dict | None, dict | None]], int]:
    """Pair the rows of each side by identity: (old, new), (old, None) removed, (None, new)
    added. Returns the pairs and how many identities were held by more than one row on a
    side (paired in (combination, example_id, id) order; reported, they should not occur)."""
    by_identity: dict[tuple, tuple[list, list]] = defaultdict(lambda: ([], []))
    for row in old_rows:
        by_identity[_identity(row)][0].append(row)
    for row in new_rows:
        by_identity[_identity(row)][1].append(row)
    pairs: list[tuple[dict | None, dict | None]] = []
    collisions = 0
    order = lambda row: (row["combination"], row["example_id"], row["id"])  # noqa: E731
    for olds, news in by_identity.values():
        if len(olds) > 1 or len(news) > 1:
            collisions += 1
        olds.sort(key=order)
        news.sort(key=order)
        for index in range(max(len(olds), len(news))):
            pairs.append(
                (
                    olds[index] if index < len(olds) else None,
                    news[index] if index < len(news) else None,
                )
            )
    return pairs, collisions


def _annotate(rows_old: list[dict], rows_new: list[dict]) -> None:
    """Add to every row what its reasons look at beyond its own columns:

    * template_current_version_id / _number: the template's highest version now;
    * other_versions: the versions of the same template and language among the other side's
      differing rows (a template whose version changed has all its rows there);
    * values_on_other_side: whether those rows hold the same placeholder values;
    * replaces_chain (translations): the ids this row replaced, nearest first (corrections
      follow review.replaces); replaced_by: the row that replaced this one, with its review.
    """
    templates = {row["template_id"] for row in (*rows_old, *rows_new) if row["template_id"]}
    current: dict[int, tuple[int, int]] = {}
    for version in (
        TemplateVersion.objects.filter(template_id__in=templates)
        .order_by("template_id", "number")
        .values("template_id", "id", "number")
    ):
        current[version["template_id"]] = (version["id"], version["number"])
    sides: dict[str, dict[tuple, tuple[set, set]]] = {"old": {}, "new": {}}
    for side, rows in (("old", rows_old), ("new", rows_new)):
        for row in rows:
            versions, values = sides[side].setdefault(
                (row["template_id"], row["language"]), (set(), set())
            )
            versions.add(row["template_version_id"])
            values.add(row["_values_key"])
    for other, rows in (("new", rows_old), ("old", rows_new)):
        for row in rows:
            versions, values = sides[other].get((row["template_id"], row["language"]), ((), ()))
            row["other_versions"] = sorted(v for v in versions if v is not None)
            row["values_on_other_side"] = row["_values_key"] in values
            now = current.get(row["template_id"])
            row["template_current_version_id"] = now[0] if now else None
            row["template_current_version_number"] = now[1] if now else None
            row["replaces_chain"], row["replaced_by"] = [], None
    _annotate_revisions([*rows_old, *rows_new])


def _annotate_revisions(rows: list[dict[str, Any]]) -> None:
    """Translated rows: their revisions (every row of the same source and language, through
    the partial index on source_instance), to follow corrections in both directions."""
    translated = [row for row in rows if row["source_instance_id"]]
    if not translated:
        return
    revisions = Instance.objects.filter(
        source_instance_id__in={row["source_instance_id"] for row in translated},
        language__in={row["language"] for row in translated},
    ).values("id", "review")
    replaces: dict[int, int] = {}
    successor: dict[int, dict[str, Any]] = {}
    for revision in revisions:
        before = (revision["review"] or {}).get("replaces")
        if before:
            replaces[revision["id"]] = before
            successor[before] = {"id": revision["id"], "review": revision["review"] or {}}
    for row in translated:
        chain, current, seen = [], row["id"], set()
        while current in replaces and current not in seen:
            seen.add(current)
            current = replaces[current]
            chain.append(current)
        row["replaces_chain"] = chain
        row["replaced_by"] = successor.get(row["id"])


def _reason_for(change: str, old: dict | None, new: dict | None):
    for reason in change_reasons():
        if reason.applies(change, old, new):
            return reason
    return None


class _Tally:
    """Counts by category x language and by (change, reason), with a few examples each."""

    def __init__(self) -> None:
        self.cells: dict[tuple[str, str], Counter] = defaultdict(Counter)
        self.reasons: dict[tuple[str, str], dict[str, Any]] = {}

    def add(self, change: str, old: dict | None, new: dict | None) -> None:
        row = new if new is not None else old
        self.cells[(row["category"], row["language"])][change] += 1
        reason = _reason_for(change, old, new)
        name = reason.name if reason else OTHER_REASON
        entry = self.reasons.get((change, name))
        if entry is None:
            entry = self.reasons[(change, name)] = {
                "change": change,
                "reason": name,
                "label": reason.label if reason else OTHER_LABEL,
                "n": 0,
                "examples": [],
                "_order": reason.order if reason else 10**6,
            }
        entry["n"] += 1
        if len(entry["examples"]) < EXAMPLES_PER_REASON:
            detail = ""
            if reason is not None and reason.detail is not None:
                detail = reason.detail(old, new)
            elif reason is None:
                detail = _other_detail(old, new)
            entry["examples"].append(
                {
                    "old": old["id"] if old else None,
                    "new": new["id"] if new else None,
                    "detail": detail,
                }
            )

    def by_category_language(self) -> list[dict[str, Any]]:
        return [
            {"category": category, "language": language, **{c: n[c] for c in CHANGES}}
            for (category, language), n in sorted(self.cells.items())
        ]

    def reason_list(self) -> list[dict[str, Any]]:
        entries = sorted(
            self.reasons.values(),
            key=lambda e: (CHANGES.index(e["change"]), e["_order"], e["reason"]),
        )
        return [{k: v for k, v in e.items() if k != "_order"} for e in entries]


def _other_detail(old: dict | None, new: dict | None) -> str:
    row = new if new is not None else old
    return (
        f"template {row['template_external_id'] or '-'} v{row['template_version_number'] or '-'}"
        f", {row['language']}, {row['context_condition']}/{row['question_polarity']}"
    )


def _instances_changelog(
    *, old: Release, new: Release, new_directory: Path | None = None
) -> dict[str, Any]:
    rows = _diff_rows(old=old, new=new, new_directory=new_directory)
    olds = [row for row in rows if row["side"] == "old"]
    news = [row for row in rows if row["side"] == "new"]
    _annotate(olds, news)
    pairs, collisions = _pair(olds, news)
    tally = _Tally()
    totals = Counter()
    for before, after in pairs:
        if before is None:
            change = "added"
        elif after is None:
            change = "removed"
        elif _content(before) != _content(after):
            change = "changed"
        else:
            totals["renewed"] += 1  # a new row, the same instance and text: unchanged
            continue
        totals[change] += 1
        tally.add(change, before, after)
    same_id = new.counts.get("total", 0) - len(news)
    reasons = tally.reason_list()
    unexplained = sum(e["n"] for e in reasons if e["reason"] == OTHER_REASON)
    return {
        "totals": {
            "added": totals["added"],
            "removed": totals["removed"],
            "changed": totals["changed"],
            "unchanged": same_id + totals["renewed"],
            # Of the unchanged: instances written again as new rows with the same text (a
            # template version that left them as they were).
            "renewed": totals["renewed"],
            # Changes no registered reason explains (listed under "other").
            "unexplained": unexplained,
        },
        "by_category_language": tally.by_category_language(),
        "reasons": reasons,
        "identity_collisions": collisions,
    }


# --- other kinds ----------------------------------------------------------------------------


def _jsonl_rows(path: Path | None) -> Iterable[dict[str, Any]]:
    if path is None:
        return []
    with open(path, "rb") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _keyed(rows: Iterable[dict[str, Any]], key: tuple[str, ...]) -> dict[tuple, dict]:
    """Rows by key; a key held twice gets its occurrence number, so no row is lost."""
    keyed: dict[tuple, dict] = {}
    seen: Counter = Counter()
    for row in rows:
        base = tuple(row.get(name) for name in key)
        keyed[(*base, seen[base])] = row
        seen[base] += 1
    return keyed


def _release_jsonl(release: Release, kind: str) -> Path | None:
    from .services.files import release_file_path

    row = release.files.filter(kind=kind, format="jsonl").first()
    return None if row is None else release_file_path(release_file=row)


def _other_kinds_changelog(
    *, old: Release, new: Release, new_directory: Path
) -> tuple[dict[str, dict[str, int]], list[str]]:
    """Each other kind's frozen files compared row by row: added, removed, changed (row
    inequality), unchanged. A kind neither release holds is left out."""
    result: dict[str, dict[str, int]] = {}
    notes: list[str] = []
    for kind, key in OTHER_KINDS.items():
        old_path = _release_jsonl(old, kind)
        new_path = new_directory / f"{kind}.jsonl"
        new_path = new_path if new_path.exists() else None
        if old_path is None and new_path is None:
            continue
        if old_path is not None and not old_path.exists():
            notes.append(
                f"{KIND_LABELS[kind]}: release {old.number}'s file is missing from storage; "
                "not compared"
            )
            continue
        before = _keyed(_jsonl_rows(old_path), key)
        after = _keyed(_jsonl_rows(new_path), key)
        common = before.keys() & after.keys()
        changed = sum(1 for k in common if before[k] != after[k])
        result[kind] = {
            "label": KIND_LABELS[kind],
            "added": len(after.keys() - before.keys()),
            "removed": len(before.keys() - after.keys()),
            "changed": changed,
            "unchanged": len(common) - changed,
        }
    return result, notes


# --- the changelog --------------------------------------------------------------------------


def release_changelog(
    *, release: Release, previous: Release | None, directory: Path
) -> dict[str, Any]:
    """The changelog of `release` against `previous` (an earlier release of the same dataset,
    or None for a first release). `directory` holds `release`'s files (being written, at
    release time)."""
    changelog: dict[str, Any] = {
        "release": {"id": release.pk, "number": release.number},
        "against": None if previous is None else {"id": previous.pk, "number": previous.number},
        "totals": {
            "added": 0,
            "removed": 0,
            "changed": 0,
            "unchanged": 0,
            "renewed": 0,
            "unexplained": 0,
        },
        "by_category_language": [],
        "reasons": [],
        "other_kinds": {},
        "identity_collisions": 0,
        "notes": [],
    }
    if previous is None:
        return changelog
    if previous.dataset_id != release.dataset_id:
        raise ValueError("a changelog compares two releases of the same dataset")
    changelog.update(_instances_changelog(old=previous, new=release, new_directory=directory))
    other, notes = _other_kinds_changelog(old=previous, new=release, new_directory=directory)
    changelog["other_kinds"] = other
    changelog["notes"] = notes
    if changelog["totals"]["unexplained"]:
        changelog["notes"].append(
            f"{changelog['totals']['unexplained']:,} change(s) have no registered reason: "
            "listed under “other” with examples"
        )
    if changelog["identity_collisions"]:
        changelog["notes"].append(
            f"{changelog['identity_collisions']:,} identities are held by more than one "
            "instance in a release; their instances were paired in generation order"
        )
    return changelog


# --- Markdown (the card's section) ----------------------------------------------------------


def _cell(value: Any) -> str:
    """A Markdown table cell: pipes and line breaks would break the table."""
    return str(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def changelog_markdown(changelog: dict[str, Any]) -> str:
    """The card's "Changes since the previous release" section: a pure function of the
    changelog dict (card.json keeps the dict, so the section can be written again from it)."""
    against = changelog.get("against")
    if not against:
        return "This is the dataset's first release.\n"
    totals = changelog["totals"]
    lines = [
        f"Against release {against['number']}: {totals['added']:,} instances added, "
        f"{totals['removed']:,} removed, {totals['changed']:,} changed, "
        f"{totals['unchanged']:,} unchanged.",
        "",
    ]
    cells = changelog.get("by_category_language") or []
    if cells:
        lines += [
            "| Category | Language | Added | Removed | Changed |",
            "|---|---|---:|---:|---:|",
        ]
        lines += [
            f"| {_cell(c['category'])} | {_cell(c['language'])} | {c['added']:,} | "
            f"{c['removed']:,} | {c['changed']:,} |"
            for c in cells
        ]
        lines.append("")
    reasons = changelog.get("reasons") or []
    if reasons:
        lines.append("Why:")
        lines.append("")
        for entry in reasons:
            lines.append(f"- {entry['change'].capitalize()}, {entry['label']}: {entry['n']:,}")
        lines.append("")
    other = changelog.get("other_kinds") or {}
    for kind, n in other.items():
        label = KIND_LABELS.get(kind, kind)
        lines.append(
            f"- {label}: {n['added']:,} added, {n['removed']:,} removed, {n['changed']:,} changed."
        )
    if other:
        lines.append("")
    for note in changelog.get("notes") or []:
        lines.append(f"> Note: {note}")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _changes_facts(context: CardContext) -> dict[str, Any]:
    return context.changelog


# Registered by apps/releases/card_sections.py.
CHANGES_SECTION = CardSection(
    name="changes", part="changes", order=10, facts=_changes_facts, render=changelog_markdown
)


# --- any two releases -----------------------------------------------------------------------


class ReleaseNotFoundError(KasautiError):
    status_code = 404


def release_compare(*, dataset: Dataset, first: int, second: int) -> dict[str, Any]:
    """The changelog between releases number `first` and `second` of `dataset`, in either
    order. Reasons read forwards (a correction replaces an older row by a newer one), so the
    older release is always the one compared against; `requested` records the order asked
    for and `reversed` says whether it was newer-to-older."""
    from .services.files import release_dir

    releases = {r.number: r for r in dataset.releases.filter(number__in=[first, second])}
    missing = [n for n in (first, second) if n not in releases]
    if missing:
        numbers = list(dataset.releases.order_by("number").values_list("number", flat=True))
        known = ", ".join(str(n) for n in numbers) or "none yet"
        raise ReleaseNotFoundError(
            f"dataset {dataset.name!r} has no release {missing[0]} (its releases: {known})"
        )
    older, newer = sorted((releases[first], releases[second]), key=lambda r: r.number)
    if older.pk == newer.pk:
        raise KasautiError(f"release {first} compared with itself: name two different releases")
    directory = Path(settings.MEDIA_ROOT) / release_dir(release=newer)
    changelog = release_changelog(release=newer, previous=older, directory=directory)
    changelog["requested"] = {"from": first, "to": second}
    changelog["reversed"] = first > second
    return changelog
