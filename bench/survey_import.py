"""Survey import: is a 10,000-row Google Forms export fast enough to import inside the request
(one transaction), or does it need a background Job?

Measured, in one run (PostgreSQL, median of RUNS runs each, a fresh survey per run):
  * preview: `survey_import_preview` of the export (read, guess the mapping, plan every row,
    look up which keys are present): what each render of the preview page costs;
  * import: `survey_import` into an empty survey (every answer new);
  * re-import: the same file again (every answer already present, nothing written);
  * Typeform: `survey_import` of a 10,000-row Typeform export;
  * baseline, "plain ORM": `csv.reader` over the same bytes and Django's `bulk_create` of as
    many bare Answer rows (one respondent, no mapping, no keys, no checks): the
    straightforward way of writing them (the import itself writes by COPY).
Prints the medians and the ratios to the baseline.

The export is generated here: 10,000 rows, a third with a second stereotype section (repeated
question titles), Hindi and Spanish text with quoted line breaks, checkbox answers joined with
", ", demographic columns, Google Forms timestamps with a zone (2024/03/05 4:12:33 PM GMT+5:30).

Run: python bench/survey_import.py   (needs PostgreSQL on 127.0.0.1, trust auth)
"""

from __future__ import annotations

import csv
import io
import logging
import random
import statistics
import sys
import time

from _db import bench_database

RUNS = 5
ROWS = 10_000

HINDI = ["मुसलमान बहुत कट्टर होते हैं", "बिहारी लोग मेहनती होते हैं", "पारसी बहुत अमीर होते हैं"]
SPANISH = ["Los andaluces son vagos", "Los catalanes son tacaños", "Los gitanos roban"]
EXPOSURE = ["I have heard it", "I have heard it, I have been affected by it",
            "I have seen it cause harm to someone", ""]  # fmt: skip


def google_export(rows: int, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(
        [
            "Timestamp",
            "Email Address",
            "Which social category is it about?",
            "Which group or groups does it target?",
            "What is the stereotype?",
            "How do you know this stereotype?",
            "Describe the experience (optional)",
            "Which group or groups does it target?",
            "What is the stereotype?",
            "How do you know this stereotype?",
            "Age",
            "Gender",
            "Score",
        ]  # fmt: skip
    )
    for n in range(rows):
        minute = n % 60
        hour = 1 + (n // 60) % 12
        day = 1 + (n // 720) % 28
        text = rng.choice(HINDI + SPANISH) + f" ({n})"
        second = rng.choice(HINDI + SPANISH) + f" [{n}]" if n % 3 == 0 else ""
        writer.writerow(
            [
                f"2024/03/{day:02d} {hour}:{minute:02d}:{n % 60:02d} PM GMT+5:30",
                f"person{n // 2}@example.org",
                rng.choice(["धर्म", "Región", ""]),
                rng.choice(["मुसलमान", "Musulmanes, Hindúes", "Andalucía", "Parsis"]),
                text,
                rng.choice(EXPOSURE),
                "मेरे पड़ोसी ने कहा,\nफिर सबने माना।" if n % 5 == 0 else "",
                "हिंदू" if second else "",
                second,
                "I have heard it" if second else "",
                rng.choice(["18-24", "25-34", "45-54", "Prefer not to say"]),
                rng.choice(["Woman", "Man", ""]),
                "",
            ]
        )
    return out.getvalue().encode("utf-8")


def typeform_export(rows: int, seed: int = 11) -> bytes:
    rng = random.Random(seed)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [
            "#",
            "What is the stereotype?",
            "Which group does it target?",
            "I have heard it",
            "I have witnessed it",
            "I have been affected by it",
            "Describe the experience",
            "lang",
            "Response Type",
            "Start Date (UTC)",
            "Stage Date (UTC)",
            "Submit Date (UTC)",
            "Network ID",
            "Tags",
        ]  # fmt: skip
    )
    for n in range(rows):
        lang = "hi" if n % 2 else "es"
        writer.writerow(
            [
                f"{n:032x}",
                rng.choice(HINDI if lang == "hi" else SPANISH) + f" ({n})",
                rng.choice(["मुसलमान", "gitanos", "catalanes"]),
                rng.choice(["I have heard it", ""]),
                rng.choice(["I have witnessed it", ""]),
                rng.choice(["I have been affected by it", ""]),
                "Me lo dijeron.\nDos veces." if n % 4 == 0 else "",
                lang,
                "completed",
                f"2024-03-05 10:{n % 60:02d}:00",
                "",
                f"2024-03-05 10:{n % 60:02d}:{n % 60:02d}",
                f"{n:010x}",
                "",
            ]
        )
    return out.getvalue().encode("utf-8")


def main() -> None:
    sys.path.insert(0, ".")
    with bench_database("kasauti_bench_survey_import"):
        logging.getLogger("apps.surveys").setLevel(logging.WARNING)
        from django.utils import timezone

        from apps.catalog.models import Dataset
        from apps.surveys.models import Answer, Respondent
        from apps.surveys.services.imports import survey_import, survey_import_preview
        from apps.surveys.services.surveys import survey_create
        from tests.surveys.conftest import complete_content

        dataset = Dataset.objects.create(name="bench-surveys", inclusion_rule="esbbq")
        google = google_export(ROWS)
        typeform = typeform_export(ROWS)
        print(f"Google Forms export: {ROWS:,} rows, {len(google) / 1e6:.2f} MB")
        print(f"Typeform export:     {ROWS:,} rows, {len(typeform) / 1e6:.2f} MB")
        counter = iter(range(10_000))

        def fresh_survey():
            return survey_create(
                dataset=dataset,
                slug=f"bench-{next(counter)}",
                languages=["hi", "es"],
                content=complete_content(["hi", "es"]),
            )

        times: dict[str, list[float]] = {
            k: [] for k in ("baseline", "preview", "import", "reimport", "typeform")
        }
        created = reimported = typeform_created = None
        for run in range(RUNS):
            # Baseline: parse the bytes and bulk-insert as many bare answers.
            survey = fresh_survey()
            started = time.perf_counter()
            rows = list(csv.reader(io.StringIO(google.decode("utf-8"), newline="")))[1:]
            respondent = Respondent.objects.create(survey=survey, token_hash=f"raw{run}")
            now = timezone.now()
            Answer.objects.bulk_create(
                [
                    Answer(
                        survey=survey,
                        version=survey.current_version,
                        respondent=respondent,
                        language="hi",
                        text=row[4],
                        submitted_at=now,
                    )
                    for row in rows
                    for _ in range(1 + bool(row[8]))
                ],
                batch_size=1000,
            )
            times["baseline"].append(time.perf_counter() - started)

            survey = fresh_survey()
            started = time.perf_counter()
            preview = survey_import_preview(
                survey=survey, format="google-forms", data=google, filename="g.csv"
            )
            times["preview"].append(time.perf_counter() - started)
            assert not preview.problems, preview.problems[:3]

            started = time.perf_counter()
            created = survey_import(
                survey=survey, format="google-forms", data=google, filename="g.csv", mapping=None
            )
            times["import"].append(time.perf_counter() - started)

            started = time.perf_counter()
            reimported = survey_import(
                survey=survey, format="google-forms", data=google, filename="g.csv", mapping=None
            )
            times["reimport"].append(time.perf_counter() - started)
            assert reimported.answers_created == 0

            survey = fresh_survey()
            started = time.perf_counter()
            typeform_created = survey_import(
                survey=survey, format="typeform", data=typeform, filename="t.csv", mapping=None
            )
            times["typeform"].append(time.perf_counter() - started)
            print(
                f"run {run + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times.items()),
                flush=True,
            )

        print()
        print(
            f"Google Forms import: {created.rows_read:,} rows -> {created.answers_created:,} "
            f"answers, {created.respondents_created:,} respondents; re-import: "
            f"{reimported.answers_created} new, {reimported.already_present:,} already present"
        )
        print(
            f"Typeform import: {typeform_created.rows_read:,} rows -> "
            f"{typeform_created.answers_created:,} answers"
        )
        base = statistics.median(times["baseline"])
        print(
            f"\nmedians of {RUNS} runs "
            "(baseline: plain ORM, csv.reader + bulk_create of bare rows):"
        )
        for key, values in times.items():
            median = statistics.median(values)
            print(
                f"  {key:<9} {median:6.2f} s   x{median / base:4.2f} of the baseline   "
                f"(min {min(values):.2f}, max {max(values):.2f})"
            )


if __name__ == "__main__":
    main()
