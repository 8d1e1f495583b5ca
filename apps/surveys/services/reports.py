"""Reports on a survey, all pure reads: the funnel (EsBBQ §3.2.1: answers -> valid stereotypes
-> unique concepts -> kept), responses over time, demographics as counts with small cells
suppressed, and the answers as CSV rows. docs/surveys/reports.md defines every figure.

The funnel:
* answers: every submitted answer of the survey, whatever its status;
* valid: the answer-to-concept links (AnswerConcept) of answers not marked invalid: an answer
  coded into two concepts counts twice (EsBBQ: 705 answers gave 752 valid stereotypes);
* unique: the distinct concepts among those links;
* kept: those of the unique concepts that pass their dataset's inclusion rule
  (StereotypeConcept.objects.usable(), the query form of inclusion.concept_verdict).

By category, a concept counts under its catalog category. A coded answer counts under the
category of each of its concepts (once per category), so the categories' answers may add up to
more than the total. An answer with no valid link (pending, invalid, or coded into nothing)
counts under the catalog category its questionnaire maps the picked category to, or under
UNCATEGORISED when it maps to none.

Demographics: k-suppression (K = settings.KASAUTI_SURVEY_MIN_CELL, 5 by default). A question's
cells (each option, "prefer not to say", "not answered") partition the survey's respondents,
whose number is public, so the cells always add up to a known total. A cell under K is hidden
and shown as "< K" (primary); then, while any hidden cell could be worked out exactly from the
total, the shown cells and what the hidden ones are known to be (a primary one 0..K-1, a
complementary one K or more), the smallest shown cell is hidden too (complementary, shown as
"hidden"). A suppressed count never leaves this module: its cell carries no number.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta

from django.conf import settings
from django.db import connection
from django.db.models import Count, Exists, Min, OuterRef, Q
from django.db.models.functions import TruncDate
from django.utils import timezone

from apps.catalog.models import StereotypeConcept
from apps.core.text import nfc
from apps.releases.csv_safety import csv_cell_neutralise

from ..models import Answer, AnswerConcept, Respondent, Survey, SurveyVersion
from ..questionnaire import PREFER_NOT, Questionnaire

K = 5  # the smallest count shown; settings.KASAUTI_SURVEY_MIN_CELL overrides it
UNCATEGORISED = "(uncategorised)"
NOT_ANSWERED = "_not_answered"  # the cell of respondents who gave no answer to a question
OTHER_VALUES = "_other"  # free-text questions: every value given by fewer than K respondents


def report_min_cell() -> int:
    """K: counts under it are never shown."""
    return int(getattr(settings, "KASAUTI_SURVEY_MIN_CELL", K))


# -- the funnel -------------------------------------------------------------------------------


@dataclass
class FunnelRow:
    name: str
    answers: int = 0
    valid: int = 0
    unique: int = 0
    kept: int = 0

    @property
    def kept_share(self) -> float | None:
        """kept / unique (EsBBQ: "only 63% of them were further considered"); None when no
        concept."""
        return self.kept / self.unique if self.unique else None

    def as_dict(self) -> dict[str, int]:
        return {
            "answers": self.answers,
            "valid": self.valid,
            "unique": self.unique,
            "kept": self.kept,
        }


@dataclass
class Funnel:
    overall: FunnelRow
    by_category: list[FunnelRow]

    def as_dict(self) -> dict:
        """The shape `survey_funnel --json` prints."""
        return {
            **self.overall.as_dict(),
            "by_category": {row.name: row.as_dict() for row in self.by_category},
        }


def _category_names(survey: Survey) -> dict[int, dict[str, str]]:
    """version id -> {questionnaire category key: catalog category name} (names left blank
    are left out)."""
    names: dict[int, dict[str, str]] = {}
    for pk, content in SurveyVersion.objects.filter(survey=survey).values_list("id", "content"):
        names[pk] = {
            item["key"]: (item.get("category") or "").strip()
            for item in (content or {}).get("categories") or []
            if (item.get("category") or "").strip()
        }
    return names


def report_funnel(*, survey: Survey) -> Funnel:
    """The funnel overall and by category (module docstring; docs/surveys/reports.md).

    Aggregates in SQL: the links per category, the kept concepts, the answers without a valid
    link per picked category, the total. The kept test gets the unique concepts as a list of
    ids, not a subquery: on a table without planner statistics (right after a bulk import) the
    subquery was probed once per concept and took a second on 10,000 answers."""
    live_links = AnswerConcept.objects.filter(answer__survey=survey).exclude(
        answer__status=Answer.Status.INVALID
    )
    rows: dict[str, FunnelRow] = {}

    def row(name: str) -> FunnelRow:
        return rows.setdefault(name, FunnelRow(name=name))

    for name, answers, valid, unique in (
        live_links.values("concept__category__name")
        .annotate(
            answers=Count("answer_id", distinct=True),
            valid=Count("id"),
            unique=Count("concept_id", distinct=True),
        )
        .order_by()
        .values_list("concept__category__name", "answers", "valid", "unique")
    ):
        target = row(name)
        target.answers, target.valid, target.unique = answers, valid, unique
    concept_ids = list(live_links.order_by().values_list("concept_id", flat=True).distinct())
    kept = StereotypeConcept.objects.usable().filter(pk__in=concept_ids).order_by()
    for name in kept.values_list("category__name", flat=True):
        row(name).kept += 1
    # Answers with no valid link go by the category their respondent picked.
    has_link = Exists(AnswerConcept.objects.filter(answer=OuterRef("pk")))
    names = _category_names(survey)
    for version_id, category_key, n in (
        Answer.objects.filter(survey=survey)
        .filter(Q(status=Answer.Status.INVALID) | ~has_link)
        .values("version_id", "category_key")
        .annotate(n=Count("id"))
        .order_by()
        .values_list("version_id", "category_key", "n")
    ):
        name = names.get(version_id, {}).get(category_key) or UNCATEGORISED
        row(name).answers += n
    by_category = sorted(rows.values(), key=lambda r: (r.name == UNCATEGORISED, r.name.casefold()))
    overall = FunnelRow(
        name="overall",
        answers=Answer.objects.filter(survey=survey).count(),
        valid=sum(r.valid for r in by_category),
        unique=len(concept_ids),
        kept=sum(r.kept for r in by_category),
    )
    return Funnel(overall=overall, by_category=by_category)


# -- responses over time ----------------------------------------------------------------------


@dataclass
class DayRow:
    day: date
    answers: int
    new_respondents: int


def report_responses_over_time(*, survey: Survey) -> list[DayRow]:
    """Per day (in settings.TIME_ZONE) from the first answer to the last, days without any
    included: the answers submitted, and the respondents whose first answer it was."""
    tz = timezone.get_current_timezone()
    answers = dict(
        Answer.objects.filter(survey=survey)
        .annotate(day=TruncDate("submitted_at", tzinfo=tz))
        .values("day")
        .annotate(n=Count("id"))
        .values_list("day", "n")
    )
    if not answers:
        return []
    # Each respondent's first answer, counted per day in the database (one row a day).
    firsts = (
        Answer.objects.filter(survey=survey)
        .values("respondent_id")
        .annotate(first=Min("submitted_at"))
        .values("first")
    )
    sql, params = firsts.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT (f.first AT TIME ZONE %s)::date, count(*) FROM ({sql}) f GROUP BY 1",
            [str(tz), *params],
        )
        newcomers = Counter(dict(cursor.fetchall()))
    day, last = min(answers), max(answers)
    days = []
    while day <= last:
        days.append(DayRow(day=day, answers=answers.get(day, 0), new_respondents=newcomers[day]))
        day += timedelta(days=1)
    return days


# -- demographics -----------------------------------------------------------------------------


@dataclass
class DemographicCell:
    key: str
    label: str
    # The count, or None when suppressed: a hidden count is never handed on.
    count: int | None
    # "" shown; "small" under K (shown as "< K"); "complementary" hidden so that a small cell
    # cannot be worked out from the total.
    suppressed: str = ""

    def display(self, k: int) -> str:
        if self.suppressed == "small":
            return f"< {k}"
        if self.suppressed == "complementary":
            return "hidden"
        return str(self.count)


@dataclass
class DemographicQuestion:
    key: str
    label: str
    free_text: bool
    cells: list[DemographicCell]
    total: int | None  # respondents; None when under K
    k: int = K
    shown_max: int = field(default=0)


def _determined(counts: list[int], small: set[int], extra: set[int], k: int) -> bool:
    """Whether some hidden cell's count follows exactly from the total S of the hidden cells
    (total minus the shown ones), knowing each small cell is 0..k-1 and each complementary
    cell k or more. One hidden cell is always determined."""
    hidden = small | extra
    if not hidden:
        return False
    if len(hidden) == 1:
        return True
    s = sum(counts[i] for i in hidden)
    n_small, n_extra = len(small), len(extra)
    # A small cell ranges over [0, k-1] within what the others leave.
    if small:
        if n_extra:
            low, high = 0, min(k - 1, s - k * n_extra)
        else:
            low, high = max(0, s - (k - 1) * (n_small - 1)), min(k - 1, s)
        if low >= high:
            return True
    if extra:
        if n_extra > 1:
            low, high = k, s - k * (n_extra - 1)
        else:
            low, high = max(k, s - (k - 1) * n_small), s
        if low >= high:
            return True
    return False


def report_suppress(*, counts: list[int], k: int) -> list[str]:
    """For each count: "" (shown), "small" (< k) or "complementary" (hidden so that no hidden
    count can be worked out from the known total). Pure; the rule is in the module
    docstring."""
    small = {i for i, n in enumerate(counts) if n < k}
    extra: set[int] = set()
    while _determined(counts, small, extra, k):
        shown = [i for i in range(len(counts)) if i not in small and i not in extra]
        if not shown:
            break  # every cell hidden: only the total is known
        extra.add(min(shown, key=lambda i: (counts[i], i)))
    return [
        "small" if i in small else "complementary" if i in extra else "" for i in range(len(counts))
    ]


_SPACES = re.compile(r"\s+")


def _normalise_value(value: str) -> str:
    return _SPACES.sub(" ", nfc(value)).strip().casefold()


def _demographic_counts(survey: Survey) -> tuple[int, dict[str, Counter], dict[str, Counter]]:
    """(respondents, {question: Counter(value -> respondents)}, {question: Counter of the
    spellings of free-text values, keyed (normalised, spelling)}). One aggregate query."""
    respondents = Respondent.objects.filter(survey=survey).count()
    table = Respondent._meta.db_table  # ours, not input: safe in the SQL text
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT kv.key, kv.value, count(*) FROM {table} r, "
            "jsonb_each_text(CASE WHEN jsonb_typeof(r.demographics) = 'object' "
            "THEN r.demographics ELSE '{}'::jsonb END) kv "
            "WHERE r.survey_id = %s AND kv.value IS NOT NULL AND kv.value <> '' "
            "GROUP BY kv.key, kv.value",
            [survey.pk],
        )
        rows = cursor.fetchall()
    values: dict[str, Counter] = defaultdict(Counter)
    spellings: dict[str, Counter] = defaultdict(Counter)
    for key, value, n in rows:
        values[key][value] += n
        spellings[key][(_normalise_value(value), value)] += n
    return respondents, values, spellings


def _questionnaires(survey: Survey, language: str | None) -> list[Questionnaire]:
    """The survey's versions, newest first (labels come from the newest version that has the
    question), read in `language`."""
    versions = list(SurveyVersion.objects.filter(survey=survey).order_by("-number"))
    current = [v for v in versions if v.pk == survey.current_version_id]
    ordered = current + [v for v in versions if v.pk != survey.current_version_id]
    return [Questionnaire(v.content, language) for v in ordered]


def report_languages(*, survey: Survey) -> list[str]:
    """The languages the report can label demographics in: the current version's."""
    version = survey.current_version or survey.versions.order_by("-number").first()
    return list(version.content.get("languages") or []) if version else []


def report_demographics(
    *, survey: Survey, language: str | None = None, k: int | None = None
) -> list[DemographicQuestion]:
    """Per demographic question, the respondents per option (plus "prefer not to say" and
    "not answered"), small cells suppressed. Free-text questions count identical values after
    normalising (NFC, spaces, case); values given by fewer than K respondents are pooled into
    one cell, since their very text could single someone out. Labels in `language` (else the
    survey's first language), from the newest version that asks the question."""
    k = report_min_cell() if k is None else k
    respondents, values, spellings = _demographic_counts(survey)
    questionnaires = _questionnaires(survey, language)
    questions: dict[str, tuple[dict, Questionnaire]] = {}
    for questionnaire in questionnaires:
        for question in questionnaire.demographics:
            questions.setdefault(question["key"], (question, questionnaire))
    result = []
    for key, (question, questionnaire) in questions.items():
        given = values.get(key, Counter())
        options = question.get("options") or []
        cells: list[tuple[str, str, int]] = []
        if options:
            for option in options:
                label = questionnaire.demographic_option_label(key, option["key"])
                cells.append((option["key"], label, given.get(option["key"], 0)))
            known = {option["key"] for option in options} | {PREFER_NOT}
            # A value no version offers now (an option since removed): its key is its label.
            for value, n in sorted(given.items()):
                if value not in known:
                    cells.append((value, value, n))
        else:
            by_value: dict[str, int] = Counter()
            spelling: dict[str, tuple[int, str]] = {}
            for (normal, text), n in spellings.get(key, Counter()).items():
                if text == PREFER_NOT:
                    continue
                by_value[normal] += n
                best = spelling.get(normal)
                if best is None or (-n, text) < (-best[0], best[1]):
                    spelling[normal] = (n, text)
            pooled = 0
            for normal, n in sorted(by_value.items(), key=lambda item: (-item[1], item[0])):
                if n >= k:
                    cells.append((normal, spelling[normal][1], n))
                else:
                    pooled += n
            # Always there, so that its presence says nothing.
            cells.append((OTHER_VALUES, f"Other values (each given by fewer than {k})", pooled))
        cells.append(
            (
                PREFER_NOT,
                questionnaire.text("prefer_not_to_say") or "Prefer not to say",
                given.get(PREFER_NOT, 0),
            )
        )
        answered = sum(n for value, n in given.items())
        cells.append((NOT_ANSWERED, "Not answered", max(respondents - answered, 0)))
        marks = report_suppress(counts=[n for _, _, n in cells], k=k)
        shown_cells = [
            DemographicCell(key=ck, label=label, count=None if mark else n, suppressed=mark)
            for (ck, label, n), mark in zip(cells, marks, strict=True)
        ]
        result.append(
            DemographicQuestion(
                key=key,
                label=questionnaire.label(question) or key,
                free_text=not options,
                cells=shown_cells,
                total=respondents if respondents >= k else None,
                k=k,
                shown_max=max((c.count or 0 for c in shown_cells), default=0),
            )
        )
    return result


def report_demographics_csv_rows(*, questions: list[DemographicQuestion]) -> Iterator[list[str]]:
    """The demographics as CSV rows (header first): counts only, suppressed cells as "< K" or
    "hidden", every cell neutralised against spreadsheet formulas."""
    yield ["question_key", "question", "value_key", "value", "respondents"]
    for question in questions:
        for cell in question.cells:
            yield [
                csv_cell_neutralise(question.key),
                csv_cell_neutralise(question.label),
                csv_cell_neutralise(cell.key),
                csv_cell_neutralise(cell.label),
                csv_cell_neutralise(cell.display(question.k)),
            ]
        total = str(question.total) if question.total is not None else f"< {question.k}"
        yield [
            csv_cell_neutralise(question.key),
            csv_cell_neutralise(question.label),
            "_total",
            "All respondents",
            total,
        ]


# -- answers CSV ------------------------------------------------------------------------------

ANSWER_COLUMNS = [
    "id",
    "submitted_at",
    "language",
    "category",
    "groups",
    "text",
    "attribute",
    "heard",
    "witnessed",
    "affected",
    "experience",
    "status",
    "invalid_reason",
    "concept_ids",
    "concept_statements",
]


def report_answers_csv_rows(*, survey: Survey) -> Iterator[list[str]]:
    """Every answer of the survey as CSV rows (header first), without demographics or anything
    that links answers to a respondent; every cell neutralised against spreadsheet formulas
    (apps.releases.csv_safety). Groups are the picked keys, then the typed-in group, joined by
    "; "; concept statements are joined by " | " in the order of their ids."""
    yield list(ANSWER_COLUMNS)
    links: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for answer_id, concept_id, statement in (
        AnswerConcept.objects.filter(answer__survey=survey)
        .order_by("answer_id", "concept_id")
        .values_list("answer_id", "concept_id", "concept__statement")
    ):
        links[answer_id].append((concept_id, statement))
    fields = (
        "id",
        "submitted_at",
        "language",
        "category_key",
        "group_keys",
        "group_text",
        "text",
        "attribute",
        "heard",
        "witnessed",
        "affected",
        "experience",
        "status",
        "invalid_reason",
    )
    answers = Answer.objects.filter(survey=survey).order_by("submitted_at", "id").values(*fields)
    for a in answers.iterator(chunk_size=2000):
        groups = [str(g) for g in (a["group_keys"] or [])]
        if a["group_text"]:
            groups.append(a["group_text"])
        concepts = links.get(a["id"], [])
        cells = [
            str(a["id"]),
            timezone.localtime(a["submitted_at"]).isoformat(),
            a["language"],
            a["category_key"],
            "; ".join(groups),
            a["text"],
            a["attribute"],
            "yes" if a["heard"] else "no",
            "yes" if a["witnessed"] else "no",
            "yes" if a["affected"] else "no",
            a["experience"],
            a["status"],
            a["invalid_reason"],
            "; ".join(str(pk) for pk, _ in concepts),
            " | ".join(statement for _, statement in concepts),
        ]
        yield [csv_cell_neutralise(cell) for cell in cells]
