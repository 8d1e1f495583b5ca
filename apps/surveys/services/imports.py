"""Import a Google Forms or Typeform CSV export into a survey's answers.

    survey_import_preview(...)  the file's columns with sample values, the guessed (or given)
                                mapping, what would be created, and every problem and finding
    survey_import(...)          the import itself: one transaction, all or nothing

Idempotent: every imported answer carries `import_key`, the sha256 of (survey, format, the
row's content, which section of the row, and which copy of an identical row), and the survey
holds a key once (constraint `answer_import_key`). Re-importing the same file, or a later
export of the same form that holds the same rows (with new rows, a new question added, tags
changed), adds only what is new; the rest is counted "already present".

Respondents: one per export row, or per respondent key when one is mapped (Typeform's `#`
token, Google Forms' email address): token_hash is sha256 of (survey, format, key), so the key
itself (an email address) is never stored.

Unreadable input (not CSV, undecodable, a mapped column missing, a bad timestamp, a value too
long to store) rejects the whole import (`ImportRejected`, each problem with file, line, field)
and writes nothing. Empty rows, rows with no stereotype, partial responses, and values that
match nothing in the survey (a category it does not have) are findings: skipped or left blank
and reported.

Synchronous, inside the request: a 10,000-row export imports in a few seconds
(bench/survey_import.py, docs/surveys/import.md).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import secrets
import shutil
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.conf.locale import LANG_INFO
from django.db import connection, models, transaction
from django.utils import timezone

from apps.core.errors import ImportProblem, ImportRejected, KasautiError
from apps.core.text import nfc

from ..importers import (
    ANSWER_FIELDS,
    EXPOSURE_KINDS,
    FIELD_MAX_CHARS,
    MAX_BYTES,
    ROW_FIELDS,
    TEXT_MAX_CHARS,
    TIMESTAMP_EXAMPLES,
    ExportTable,
    Mapping,
    SurveyFormat,
    TimestampError,
    exposure_read,
    exposure_words,
    fold,
    label_index,
    mapping_from_flat,
    mapping_guess,
    mapping_problems,
    split_choices,
    survey_format_get,
    table_read,
    timestamps_parse,
    yes,
)
from ..models import Answer, Respondent, Survey
from ..questionnaire import PREFER_NOT

log = logging.getLogger(__name__)

SAMPLE_ROWS = 5
FINDINGS_SHOWN = 200


@dataclass
class PlannedAnswer:
    import_key: str
    token_hash: str
    line: int
    values: dict[str, Any]


@dataclass
class Plan:
    rows_read: int = 0
    answers: list[PlannedAnswer] = field(default_factory=list)
    # token_hash -> {"language", "demographics"} (the first row of that respondent wins)
    respondents: dict[str, dict[str, Any]] = field(default_factory=dict)
    problems: list[ImportProblem] = field(default_factory=list)
    findings: list[ImportProblem] = field(default_factory=list)
    date_order: str = ""
    # Whether the export asked the demographic questions (some are mapped): its respondents
    # were asked, whether or not they answered.
    demographics_asked: bool = False


@dataclass
class ImportResult:
    format: str
    filename: str
    rows_read: int
    answers_created: int
    already_present: int
    respondents_created: int
    rows_skipped: int
    findings: list[ImportProblem]
    seconds: float = 0.0
    dry_run: bool = False

    @property
    def findings_by_kind(self) -> dict[str, int]:
        return dict(Counter(f.kind for f in self.findings))

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "filename": self.filename,
            "rows_read": self.rows_read,
            "answers_created": self.answers_created,
            "already_present": self.already_present,
            "respondents_created": self.respondents_created,
            "rows_skipped": self.rows_skipped,
            "findings_by_kind": self.findings_by_kind,
            "findings": [f.as_dict() for f in self.findings[:FINDINGS_SHOWN]],
            "dry_run": self.dry_run,
            "seconds": round(self.seconds, 2),
        }

    def lines(self) -> list[str]:
        what = "would be created" if self.dry_run else "created"
        return [
            f"{self.rows_read:,} rows read from {self.filename}",
            f"{self.answers_created:,} answers {what} ({self.answers_created:,} new, "
            f"{self.already_present:,} already present)",
            f"{self.respondents_created:,} respondents {what}",
            f"{self.rows_skipped:,} rows skipped (see the findings)",
            f"in {self.seconds:.2f} s",
        ]


@dataclass
class ColumnPreview:
    index: int
    label: str
    header: str
    samples: list[str]
    mapped_to: list[str]


@dataclass
class ImportPreview:
    format: SurveyFormat
    filename: str
    columns: list[ColumnPreview]
    sample_rows: list[list[str]]
    guessed: dict[str, str]
    mapping: dict[str, str]
    sections: int
    problems: list[ImportProblem]
    findings: list[ImportProblem]
    result: ImportResult | None  # what the import would do (None when it would be rejected)
    date_order: str = ""
    format_note: str = ""

    @property
    def findings_by_kind(self) -> dict[str, int]:
        return dict(Counter(f.kind for f in self.findings))


# --------------------------------------------------------------------------- services


def survey_import_preview(
    *,
    survey: Survey,
    format: str,
    data: bytes,
    filename: str,
    mapping: dict[str, str] | None = None,
) -> ImportPreview:
    """What the import would do with `mapping` (None: the guess): nothing is written."""
    export_format = survey_format_get(name=format)
    content = survey.current_version.content
    try:
        table = export_format.read(data, filename)
    except ImportRejected as exc:
        return ImportPreview(
            format=export_format,
            filename=filename,
            columns=[],
            sample_rows=[],
            guessed={},
            mapping={},
            sections=1,
            problems=exc.problems,
            findings=[],
            result=None,
        )
    guess = mapping_guess(table, format=export_format, content=content)
    guessed = guess.flat(table)
    if mapping is None:
        chosen, problems = guess, []
    else:
        chosen, problems = _mapping_read(mapping, table=table, content=content)
    plan = Plan(problems=list(problems))
    if not problems:
        plan = _plan(survey=survey, export_format=export_format, table=table, mapping=chosen)
    result = None
    if not plan.problems:
        result = _result(survey=survey, export_format=export_format, table=table, plan=plan)
        result.dry_run = True
    used: dict[int, list[str]] = {}
    for key, index in chosen.columns_used():
        used.setdefault(index, []).append(key)
    rows = [row for row in table.rows if not row.empty]
    columns = [
        ColumnPreview(
            index=c.index,
            label=c.label,
            header=c.header,
            samples=_samples(rows, c.index),
            mapped_to=used.get(c.index, []),
        )
        for c in table.columns
    ]
    return ImportPreview(
        format=export_format,
        filename=filename,
        columns=columns,
        sample_rows=[list(row.cells) for row in rows[:SAMPLE_ROWS]],
        guessed=guessed,
        mapping=chosen.flat(table),
        sections=len(chosen.slots),
        problems=plan.problems,
        findings=plan.findings,
        result=result,
        date_order=plan.date_order,
        format_note=export_format.looks_like(table),
    )


def survey_import_columns(*, format: str, data: bytes, filename: str) -> list[str]:
    """The labels of the export's columns ("Title (2)" for a repeated title); [] when the
    file cannot be read (the preview says why)."""
    try:
        table = survey_format_get(name=format).read(data, filename)
    except ImportRejected:
        return []
    return [column.label for column in table.columns]


@transaction.atomic
def survey_import(
    *,
    survey: Survey,
    format: str,
    data: bytes,
    filename: str,
    mapping: dict[str, str] | None,
    imported_by: Any = None,
    dry_run: bool = False,
) -> ImportResult:
    """Import the export into `survey` with `mapping` (FIELD -> column, option -> value; None:
    the guessed mapping). All or nothing: ImportRejected lists every problem and nothing is
    written. `dry_run`: count what would be created, write nothing."""
    started = time.perf_counter()
    export_format = survey_format_get(name=format)
    # One import of a survey at a time: two imports of the same file must not both find a
    # key absent and then collide on the constraint.
    survey = (
        Survey.objects.select_for_update(of=("self",))
        .select_related("current_version")
        .get(pk=survey.pk)
    )
    content = survey.current_version.content
    table = export_format.read(data, filename)
    if mapping is None:
        chosen = mapping_guess(table, format=export_format, content=content)
    else:
        chosen, problems = _mapping_read(mapping, table=table, content=content)
        if problems:
            raise ImportRejected(problems)
    plan = _plan(survey=survey, export_format=export_format, table=table, mapping=chosen)
    if plan.problems:
        raise ImportRejected(plan.problems)
    result = _result(
        survey=survey, export_format=export_format, table=table, plan=plan, write=not dry_run
    )
    result.dry_run = dry_run
    result.seconds = time.perf_counter() - started
    log.info(
        "survey %s: %s import of %s by %s: %s",
        survey.slug,
        format,
        filename,
        getattr(imported_by, "pk", None),
        result.lines(),
    )
    return result


def _mapping_read(
    flat: dict[str, str], *, table: ExportTable, content: dict
) -> tuple[Mapping, list[ImportProblem]]:
    keys = [q["key"] for q in content.get("demographics") or []]
    mapping, problems = mapping_from_flat(flat, table=table, demographic_keys=keys)
    language = mapping.options.get("default_language", "")
    if language and language not in content["languages"]:
        problems.append(
            ImportProblem(
                table.filename,
                1,
                "default_language",
                f"{language!r} is not a language of the survey ({', '.join(content['languages'])})",
            )
        )
    return mapping, problems


def _samples(rows: list, index: int) -> list[str]:
    samples: list[str] = []
    for row in rows:
        value = row.cell(index)
        if value and value not in samples:
            samples.append(value)
            if len(samples) == 3:
                break
    return samples


def _sha(*parts: object) -> str:
    return hashlib.sha256("\x00".join(str(p) for p in parts).encode("utf-8")).hexdigest()


def _plan(
    *, survey: Survey, export_format: SurveyFormat, table: ExportTable, mapping: Mapping
) -> Plan:
    """Read every row with the mapping into answers to create; nothing is written."""
    plan = Plan(
        problems=mapping_problems(mapping, table=table),
        demographics_asked=bool(mapping.demographics),
    )
    if plan.problems:
        return plan
    content = survey.current_version.content
    labels = {c.index: c.label for c in table.columns}
    languages: list[str] = content["languages"]
    default_language = mapping.options.get("default_language") or languages[0]

    def problem(line: int, key: str, message: str) -> None:
        plan.problems.append(ImportProblem(table.filename, line, key, message))

    def finding(line: int, key: str, kind: str, message: str) -> None:
        plan.findings.append(ImportProblem(table.filename, line, key, message, kind=kind))

    rows = []
    for row in table.rows:
        plan.rows_read += 1
        if row.empty:
            finding(row.line, "row", "empty_row", "an empty row, skipped")
            continue
        reason = export_format.row_skip(table, row)
        if reason:
            finding(row.line, "row", "partial", f"{reason}, skipped")
            continue
        rows.append(row)

    ts_index = mapping.row["submitted_at"]
    ts_key = f"submitted_at ({labels[ts_index]})"
    zone = export_format.fixed_zone or mapping.options["timezone"]
    try:
        moments, plan.date_order = timestamps_parse(
            [row.cell(ts_index) for row in rows],
            date_order=mapping.options["date_order"],
            zone=zone,
        )
    except TimestampError as exc:
        problem(1, ts_key, str(exc))
        return plan

    words = exposure_words(mapping, content)
    categories = content.get("categories") or []
    category_index = label_index(categories)
    groups_by_category = {c["key"]: label_index(c.get("groups") or []) for c in categories}
    all_groups: dict[str, list[tuple[str, str]]] = {}
    for category in categories:
        for folded, key in groups_by_category[category["key"]].items():
            all_groups.setdefault(folded, []).append((category["key"], key))
    prefer_not = {
        fold(texts["prefer_not_to_say"])
        for texts in content["strings"].values()
        if texts.get("prefer_not_to_say")
    }
    prefer_not |= {"prefer not to say", "prefiero no decirlo", "prefiero no responder"}
    questions = {q["key"]: q for q in content.get("demographics") or []}
    option_index = {key: label_index(q.get("options") or []) for key, q in questions.items()}
    language_index: dict[str, str] = {}
    for code in languages:
        language_index[fold(code)] = code
        info = LANG_INFO.get(code, {})
        for name in (info.get("name"), info.get("name_local")):
            if name:
                language_index.setdefault(fold(name), code)
    volatile = export_format.volatile_columns(table)
    copies: Counter[str] = Counter()

    for row, moment in zip(rows, moments, strict=True):
        if moment is None:
            problem(
                row.line,
                ts_key,
                f"unreadable timestamp {row.cell(ts_index)!r}; expected forms such as "
                f"{TIMESTAMP_EXAMPLES}",
            )
            continue
        content_key = "\x1f".join(
            f"{labels[i]}\x1e{value}"
            for i, value in enumerate(row.cells)
            if value and i not in volatile
        )
        copies[content_key] += 1
        row_key = _sha(survey.pk, export_format.name, content_key, copies[content_key])
        respondent_cell = row.cell(mapping.row["respondent"]) if "respondent" in mapping.row else ""
        respondent_key = respondent_cell or f"row:{row_key}"
        token_hash = _sha(survey.pk, export_format.name, respondent_key)

        language = default_language
        if "language" in mapping.row:
            cell = row.cell(mapping.row["language"])
            if cell:
                found = language_index.get(fold(cell))
                if found:
                    language = found
                else:
                    finding(
                        row.line,
                        f"language ({labels[mapping.row['language']]})",
                        "unknown_language",
                        f"{cell!r} is not a language of the survey; {default_language!r} used",
                    )

        made = 0
        for n, slot in enumerate(mapping.slots, start=1):
            values = {name: row.cell(index) for name, index in slot.items()}
            suffix = "" if n == 1 else f".{n}"

            def where(name: str, slot=slot, suffix=suffix) -> str:
                return f"{name}{suffix} ({labels[slot[name]]})"

            if not values.get("text") and not values.get("attribute"):
                continue
            too_long = False
            for name in ("text", "experience", *FIELD_MAX_CHARS):
                limit = FIELD_MAX_CHARS.get(name, TEXT_MAX_CHARS)
                if len(values.get(name, "")) > limit:
                    problem(
                        row.line,
                        where(name),
                        f"{len(values[name]):,} characters; at most {limit:,} are kept",
                    )
                    too_long = True
            if too_long:
                continue
            category_key = ""
            if values.get("category"):
                category_key = category_index.get(fold(values["category"]), "")
                if not category_key:
                    finding(
                        row.line,
                        where("category"),
                        "unknown_category",
                        f"{values['category']!r} is not a category of the survey; left blank",
                    )
            group_keys: list[str] = []
            unmatched: list[str] = []
            for part in split_choices(values.get("group_text", "")):
                if category_key:
                    key = groups_by_category.get(category_key, {}).get(fold(part))
                    options = [(category_key, key)] if key else []
                else:
                    options = all_groups.get(fold(part), [])
                if len({c for c, _ in options}) == 1:
                    group_keys.append(options[0][1])
                    category_key = category_key or options[0][0]
                else:
                    unmatched.append(part)
            group_text = ", ".join(unmatched)
            exposure = {kind: False for kind in EXPOSURE_KINDS}
            if values.get("exposure"):
                exposure = exposure_read(values["exposure"], words)
            for kind in EXPOSURE_KINDS:
                if kind in values:
                    exposure[kind] = exposure[kind] or yes(values[kind])
            plan.answers.append(
                PlannedAnswer(
                    import_key=_sha(row_key, n),
                    token_hash=token_hash,
                    line=row.line,
                    values={
                        "language": language,
                        "category_key": category_key,
                        "group_keys": list(dict.fromkeys(group_keys)),
                        "group_text": group_text,
                        "text": values.get("text", ""),
                        "attribute": values.get("attribute", ""),
                        "experience": values.get("experience", ""),
                        "submitted_at": moment,
                        **exposure,
                    },
                )
            )
            made += 1
        if not made:
            finding(row.line, "text", "no_text", "no stereotype in this row, skipped")
            continue

        if token_hash not in plan.respondents:
            demographics: dict[str, str] = {}
            for key, index in mapping.demographics.items():
                cell = row.cell(index)
                if not cell:
                    continue
                if fold(cell) in prefer_not:
                    demographics[key] = PREFER_NOT
                elif not option_index[key]:
                    demographics[key] = cell  # a free-text question
                elif found := option_index[key].get(fold(cell)):
                    demographics[key] = found
                else:
                    finding(
                        row.line,
                        f"demographics.{key} ({labels[index]})",
                        "unknown_option",
                        f"{cell!r} is not an option of {key!r}; left out",
                    )
            plan.respondents[token_hash] = {"language": language, "demographics": demographics}
    return plan


def _result(
    *,
    survey: Survey,
    export_format: SurveyFormat,
    table: ExportTable,
    plan: Plan,
    write: bool = False,
) -> ImportResult:
    """Count what is new, and (write) create it."""
    # The survey's keys in one query each (not thousands of keys sent as parameters): a
    # survey holds at most a few hundred thousand answers.
    present = set(
        Answer.objects.filter(survey=survey, import_key__isnull=False).values_list(
            "import_key", flat=True
        )
    )
    new = [a for a in plan.answers if a.import_key not in present]
    respondents = dict(
        Respondent.objects.filter(survey=survey).values_list("token_hash", "id").iterator(5000)
    )
    missing = list(dict.fromkeys(a.token_hash for a in new if a.token_hash not in respondents))
    skipped_lines = {f.line for f in plan.findings if f.kind in ("empty_row", "partial", "no_text")}
    result = ImportResult(
        format=export_format.name,
        filename=table.filename,
        rows_read=plan.rows_read,
        answers_created=len(new),
        already_present=len(plan.answers) - len(new),
        respondents_created=len(missing),
        rows_skipped=len(skipped_lines),
        findings=plan.findings,
    )
    if not write or not new:
        return result
    version = survey.current_version
    _insert(
        Respondent,
        [
            {
                "survey_id": survey.pk,
                "source": export_format.name,
                "token_hash": token,
                "deletion_code_hash": "",
                "language": plan.respondents[token]["language"],
                "demographics": plan.respondents[token]["demographics"],
                "demographics_version_id": (
                    version.pk if plan.respondents[token]["demographics"] else None
                ),
                "demographics_asked": plan.demographics_asked,
                "created_at": timezone.now(),
            }
            for token in missing
        ],
    )
    if missing:
        respondents = dict(
            Respondent.objects.filter(survey=survey).values_list("token_hash", "id").iterator(5000)
        )
    _insert(
        Answer,
        [
            {
                "survey_id": survey.pk,
                "version_id": version.pk,
                "respondent_id": respondents[a.token_hash],
                "source": export_format.name,
                "import_key": a.import_key,
                "status": Answer.Status.PENDING,
                "invalid_reason": "",
                "coded_by_id": None,
                "coded_at": None,
                **a.values,
            }
            for a in new
        ],
    )
    return result


def _insert(model: type[models.Model], rows: list[dict[str, Any]]) -> int:
    """Insert rows (attname -> value). On PostgreSQL by COPY (10,000 answers: Django's
    bulk_create spends seconds quoting parameters), when the rows name every column of the
    table; otherwise (SQLite, or a column added since that these rows do not know) by
    bulk_create, which fills in the defaults."""
    if not rows:
        return 0
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    columns = [f.attname for f in fields]
    if connection.vendor != "postgresql" or set(columns) != set(rows[0]):
        model.objects.bulk_create([model(**row) for row in rows], batch_size=1000)
        return len(rows)
    json_columns = {f.attname for f in fields if isinstance(f, models.JSONField)}
    names = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    statement = f"COPY {connection.ops.quote_name(model._meta.db_table)} ({names}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row(
                [
                    json.dumps(row[c], ensure_ascii=False) if c in json_columns else row[c]
                    for c in columns
                ]
            )
    return len(rows)


# --------------------------------------------------------------------------- the upload store
#
# The import page keeps the uploaded file on the server between the preview and the confirm,
# under MEDIA_ROOT/survey-imports/<random id>/, and puts only the id in the researcher's session.
# Why not send the file back to the browser (base64 in a hidden field, HMAC-signed)? A
# 10,000-row export is megabytes: every "preview again" would carry it up and down and the page
# would hold it (slow on a phone); a signature proves integrity but the id-in-session does too,
# and more: another person cannot use an id that is not in their session, and the stored copy
# is checked against the user and the survey it was uploaded for. MEDIA_ROOT is already shared
# by the web processes (release files, import uploads).

UPLOADS_DIR = "survey-imports"
UPLOAD_MAX_AGE_SECONDS = 24 * 3600
_UPLOAD_ID = re.compile(r"^[A-Za-z0-9_-]{22,64}$")


@dataclass(frozen=True)
class StoredUpload:
    upload_id: str
    survey_id: int
    user_id: int | None
    format: str
    filename: str
    data: bytes
    created: float


def _uploads_root() -> Path:
    return Path(settings.MEDIA_ROOT) / UPLOADS_DIR


def survey_import_upload_save(
    *, survey: Survey, format: str, data: bytes, filename: str, user: Any
) -> str:
    """Keep an uploaded export until it is imported (or a day has passed); returns its id."""
    survey_format_get(name=format)
    if len(data) > MAX_BYTES:
        table_read(data, filename)  # raises ImportRejected naming the limit
    survey_import_uploads_expire()
    upload_id = secrets.token_urlsafe(24)
    folder = _uploads_root() / upload_id
    folder.mkdir(parents=True)
    (folder / "data").write_bytes(data)
    meta = {
        "survey_id": survey.pk,
        "user_id": getattr(user, "pk", None),
        "format": format,
        "filename": nfc(Path(filename).name)[:200],
        "created": time.time(),
    }
    (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return upload_id


def survey_import_upload_get(*, upload_id: str, survey: Survey, user: Any) -> StoredUpload:
    """The stored upload, if it exists, is younger than a day, and was uploaded by `user` for
    `survey`; otherwise KasautiError (the page says to upload the file again)."""
    gone = KasautiError("this upload has expired or is not yours: upload the file again")
    if not _UPLOAD_ID.match(upload_id or ""):
        raise gone
    folder = _uploads_root() / upload_id
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        data = (folder / "data").read_bytes()
    except (OSError, ValueError):
        raise gone from None
    if (
        meta.get("survey_id") != survey.pk
        or meta.get("user_id") != getattr(user, "pk", None)
        or time.time() - meta.get("created", 0) > UPLOAD_MAX_AGE_SECONDS
    ):
        raise gone
    return StoredUpload(
        upload_id=upload_id,
        survey_id=meta["survey_id"],
        user_id=meta["user_id"],
        format=meta["format"],
        filename=meta["filename"],
        data=data,
        created=meta["created"],
    )


def survey_import_upload_discard(*, upload_id: str) -> None:
    if _UPLOAD_ID.match(upload_id or ""):
        shutil.rmtree(_uploads_root() / upload_id, ignore_errors=True)


def survey_import_uploads_expire(*, now: float | None = None) -> int:
    """Remove uploads older than a day (called on every upload). Returns how many."""
    root = _uploads_root()
    if not root.is_dir():
        return 0
    now = now or time.time()
    removed = 0
    for folder in root.iterdir():
        try:
            age = now - folder.stat().st_mtime
        except OSError:
            continue
        if age > UPLOAD_MAX_AGE_SECONDS:
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    return removed


def survey_import_fields(*, content: dict) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """(row fields, answer fields, demographic fields) -> labels, for the mapping form."""
    first = content["languages"][0]
    demographics = {}
    for question in content.get("demographics") or []:
        labels = question.get("labels") or {}
        label = labels.get(first) or next((text for text in labels.values() if text), "")
        key = question["key"]
        demographics[f"demographics.{key}"] = f"{label} ({key})" if label else key
    return dict(ROW_FIELDS), dict(ANSWER_FIELDS), demographics
