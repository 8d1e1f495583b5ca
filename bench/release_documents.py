"""Release documents benchmark (issue 22): what the changelog and the dataset card add to
release creation at 400,000 instances (goal: <= 10 %).

Run (PostgreSQL on 127.0.0.1:5432, trust auth, user postgres):

    .venv/bin/python bench/release_documents.py                    # 400k instances, 3 repeats
    .venv/bin/python bench/release_documents.py --size 50000 --repeats 1   # quicker

It makes its own database (dropped at the end, --keep to keep it) and a dataset of synthetic
instances in 8 languages (native scripts; 25 templates per language, unique placeholder values
per combination, COPY through apps.catalog.bulk as in bench/p2_export.py), then:

  release 1   `release_create` (as published): no changelog to compute, the card only;
  changes     realistic edits between the releases: two templates get a version 2 (their live
              rows retired, the new version's rows written: half of them with new text, the
              rest the same), a third template's version 2 replaces one NAME1 value by another
              (a vocabulary change: rows removed and added): a few thousand instances;
  release 2   `release_create` again, 3 times (the previous release 2 removed in between, raw
              SQL, so that each run writes a release instead of returning the identical one).

Each release's total wall time and the time of its documents step
(apps.releases.documents.release_documents_write: changelog + card + CITATION.cff, timed by
wrapping the function release_create calls), and inside it the changelog alone, are reported:
medians over the repeats, and the ratio documents / total (goal <= 10 %). Whatever the card
writer does at the time is timed with it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from p2_export import CATEGORIES, LANGUAGES, _admin_sql, _setup_django  # noqa: E402

TEMPLATES_PER_LANGUAGE = 25


def _rows(*, dataset_id, version_id, category_id, language, template_index, combos, first_example,
          now, sentence=None, rename=None):  # fmt: skip
    """The rows of one template version: `combos` placeholder combinations x 4 (ambiguous /
    disambiguated x negative / non-negative question). `rename` maps a NAME1 value to another
    (a vocabulary change)."""
    from apps.catalog.bulk import instance_row

    base, unknown = LANGUAGES[language]
    sentence = sentence or base
    example = first_example
    for combination in range(combos):
        a, b = f"व्यक्ति{template_index}-{combination}", f"अन्य{template_index}-{combination}"
        if rename:
            a = rename.get(a, a)
        for variant in range(4):
            condition = "ambig" if variant < 2 else "disambig"
            polarity = "neg" if variant % 2 == 0 else "nonneg"
            context = sentence.format(a, b)
            if condition == "disambig":
                context += f" {a} ✓"
            yield instance_row(
                {
                    "dataset_id": dataset_id,
                    "template_version_id": version_id,
                    "category_id": category_id,
                    "language": language,
                    "example_id": example,
                    "question_index": str(template_index),
                    "combination": combination,
                    "name_order": "12",
                    "context_condition": condition,
                    "question_polarity": polarity,
                    "pairing": "stereotypical",
                    "proper_noun": False,
                    "placeholder_values": {"NAME1": a, "NAME2": b},
                    "context": context,
                    "question": f"{polarity}: {sentence[:24]}?",
                    "ans0": unknown,
                    "ans1": a,
                    "ans2": b,
                    "option_roles": ["unknown", "stereotyped", "non_stereotyped"],
                    "answer_info": {
                        "ans0": [unknown, "unknown"],
                        "ans1": [a, "old"],
                        "ans2": [b, "young"],
                    },  # fmt: skip
                    "label": 0 if condition == "ambig" else 1 + (variant % 2),
                    "source_instance_id": None,
                    "retired_at": None,
                    "created_at": now,
                }
            )
            example += 1


def _make_dataset(size: int) -> tuple[int, list[dict], int]:
    from django.db import transaction
    from django.utils import timezone

    from apps.catalog.bulk import instances_insert
    from apps.catalog.models import Category, Dataset, Template, TemplateVersion

    combos = max(1, size // (len(LANGUAGES) * TEMPLATES_PER_LANGUAGE * 4))
    categories = {n: Category.objects.get_or_create(name=n)[0].pk for n in CATEGORIES}
    templates = []
    now = timezone.now()
    with transaction.atomic():
        dataset = Dataset.objects.create(name=f"bench-documents-{size}")

        def rows():
            example = 0
            for index, language in enumerate(LANGUAGES):
                for number in range(TEMPLATES_PER_LANGUAGE):
                    position = index * TEMPLATES_PER_LANGUAGE + number
                    category_id = categories[CATEGORIES[position % len(CATEGORIES)]]
                    template = Template.objects.create(
                        dataset=dataset, external_id=f"T{position}", question_index=str(position),
                        category_id=category_id, position=position,
                    )  # fmt: skip
                    version = TemplateVersion.objects.create(
                        template=template, number=1, language=language, ambiguous_context="x",
                        disambiguating_context="y", question_negative="q",
                        question_non_negative="q", placeholders={"NAME1": ["a"], "NAME2": ["b"]},
                        source="bench", status="approved",
                    )  # fmt: skip
                    templates.append(
                        {"template": template, "version": version, "language": language,
                         "category_id": category_id, "index": position, "first": example}
                    )  # fmt: skip
                    yield from _rows(
                        dataset_id=dataset.pk, version_id=version.pk, category_id=category_id,
                        language=language, template_index=position, combos=combos,
                        first_example=example, now=now,
                    )  # fmt: skip
                    example += combos * 4

        # Templates are created while the rows are generated: build the rows first (COPY owns
        # the connection while it runs).
        instances_insert(list(rows()))
    return dataset.pk, templates, combos


def _change(dataset_id: int, templates: list[dict], combos: int) -> int:
    """Two new template versions (half of each one's instances with new text) and a
    vocabulary change in a third: live rows retired, the new versions' rows written."""
    from django.db import transaction
    from django.utils import timezone

    from apps.catalog.bulk import instances_insert
    from apps.catalog.models import Instance, TemplateVersion

    now = timezone.now()
    written = 0
    with transaction.atomic():
        rows = []
        for position, spec in enumerate((templates[3], templates[60], templates[130])):
            old = spec["version"]
            new = TemplateVersion.objects.create(
                template=spec["template"], number=2, language=spec["language"],
                ambiguous_context="x2", disambiguating_context="y", question_negative="q",
                question_non_negative="q", placeholders={"NAME1": ["a"], "NAME2": ["b"]},
                source="bench", status="approved",
            )  # fmt: skip
            Instance.objects.filter(template_version=old, retired_at__isnull=True).update(
                retired_at=now
            )
            base, _ = LANGUAGES[spec["language"]]
            options = {}
            if position < 2:
                options["sentence"] = base.replace("{1}", "{1} (v2)")  # new text, every row
            else:  # vocabulary: a tenth of the NAME1 values replaced by new ones
                options["rename"] = {
                    f"व्यक्ति{spec['index']}-{c}": f"नया{spec['index']}-{c}"
                    for c in range(0, combos, 10)
                }
            rows += list(
                _rows(dataset_id=dataset_id, version_id=new.pk, category_id=spec["category_id"],
                      language=spec["language"], template_index=spec["index"], combos=combos,
                      first_example=10**7 + position * combos * 4, now=now, **options)
            )  # fmt: skip
        written = instances_insert(rows)
    return written


class _Timer:
    """Wraps a function to add its wall time to `seconds` (the function still runs)."""

    def __init__(self, module, name: str) -> None:
        self.module, self.name = module, name
        self.real = getattr(module, name)
        self.seconds = 0.0

    def __enter__(self):
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return self.real(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start

        setattr(self.module, self.name, timed)
        return self

    def __exit__(self, *exc) -> None:
        setattr(self.module, self.name, self.real)


def _release(dataset_id: int) -> dict:
    from apps.catalog.models import Dataset
    from apps.releases import documents
    from apps.releases.services import creation

    with (
        _Timer(creation, "release_documents_write") as docs,
        _Timer(documents, "release_changelog") as changelog,
    ):
        start = time.perf_counter()
        release = creation.release_create(
            dataset=Dataset.objects.get(pk=dataset_id), content="as_published"
        )
        total = time.perf_counter() - start
    if getattr(release, "reused", False):
        raise SystemExit("release_create returned the existing release: nothing was measured")
    return {
        "release": release,
        "total": total,
        "documents": docs.seconds,
        "changelog": changelog.seconds,
    }


def _release_remove(release) -> None:
    """Remove a release's rows (raw SQL: release rows refuse deletion through the ORM) and
    files, so that the next release_create writes it again."""
    from django.conf import settings
    from django.db import connection

    from apps.releases.services.files import release_dir

    directory = Path(settings.MEDIA_ROOT) / release_dir(release=release)
    with connection.cursor() as cursor:
        for table in ("releases_releasefile", "releases_releaseinstance"):
            cursor.execute(f"DELETE FROM {table} WHERE release_id = %s", [release.pk])  # noqa: S608
        cursor.execute("DELETE FROM releases_release WHERE id = %s", [release.pk])
    shutil.rmtree(directory, ignore_errors=True)


def _line(label: str, runs: list[dict]) -> str:
    total = statistics.median(r["total"] for r in runs)
    docs = statistics.median(r["documents"] for r in runs)
    changelog = statistics.median(r["changelog"] for r in runs)
    ratio = statistics.median(r["documents"] / r["total"] for r in runs)
    return (
        f"{label}: release_create {total:.2f} s, documents {docs:.3f} s (changelog "
        f"{changelog:.3f} s), documents / total {ratio:.1%} (runs: "
        + ", ".join(f"{r['total']:.2f}/{r['documents']:.3f} s" for r in runs)
        + ")"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", default="kasauti_bench_documents")
    parser.add_argument("--size", type=int, default=400_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()

    var_dir = tempfile.mkdtemp(prefix="kasauti-bench-documents-")
    _admin_sql(f'DROP DATABASE IF EXISTS "{args.db}" WITH (FORCE)')
    _admin_sql(f'CREATE DATABASE "{args.db}"')
    try:
        _setup_django(args.db, var_dir)
        from django.core.management import call_command
        from django.db import connection

        call_command("migrate", verbosity=0)
        start = time.perf_counter()
        dataset_id, templates, combos = _make_dataset(args.size)
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
        made = time.perf_counter() - start
        print(f"database {args.db}: {len(templates)} templates, "
              f"{len(templates) * combos * 4:,} instances in {made:.1f} s")  # fmt: skip

        firsts = [_release(dataset_id)]
        for _ in range(args.repeats - 1):  # release 1 again: the card only, no changelog
            _release_remove(firsts[-1]["release"])
            firsts.append(_release(dataset_id))
        written = _change(dataset_id, templates, combos)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE catalog_instance")
        seconds = []
        for _ in range(args.repeats):
            if seconds:
                _release_remove(seconds[-1]["release"])
            seconds.append(_release(dataset_id))
        from apps.releases.selectors import release_document_json

        changelog = release_document_json(release=seconds[-1]["release"], kind="changelog")
        reasons = ", ".join(f"{e['change']} {e['reason']} {e['n']:,}" for e in changelog["reasons"])
        print(f"changes: {written:,} instance rows written (new versions); changelog totals "
              f"{json.dumps(changelog['totals'])}; reasons {reasons}")  # fmt: skip
        print(_line("release 1 (no previous release)", firsts))
        print(_line("release 2 (changelog against 1)", seconds))
        ratio = statistics.median(r["documents"] / r["total"] for r in seconds)
        print(f"goal (documents <= 10 % of release_create at {args.size:,} instances): "
              f"{'met' if ratio <= 0.10 else 'NOT met'} ({ratio:.1%})")  # fmt: skip
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            _admin_sql(f'DROP DATABASE IF EXISTS "{args.db}" WITH (FORCE)')
            shutil.rmtree(var_dir, ignore_errors=True)
        else:
            print(f"kept database {args.db} and media under {var_dir}")


if __name__ == "__main__":
    main()
