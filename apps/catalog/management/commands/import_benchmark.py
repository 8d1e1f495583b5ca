"""python manage.py import_benchmark --format FORMAT --dataset NAME [--adapted-from SOURCE]
[--strict] [--json] FILE..."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand

from apps.catalog.importers import ImportFile, benchmark_import, format_names, parse_import
from apps.core.commands import command_import_rejected
from apps.core.errors import ImportProblem, ImportRejected


class Command(BaseCommand):
    help = (
        "Import published benchmark files into a dataset (created if needed). All-or-nothing: "
        "every problem is reported and nothing is written unless the whole input is valid. "
        "Defects of the published data are kept as findings (listed by kind); --strict "
        "rejects them instead."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--format", required=True, choices=format_names(), dest="fmt")
        parser.add_argument("--dataset", required=True, help="Dataset name.")
        parser.add_argument(
            "--language",
            default="en",
            help="Language of template texts (bbq/bharatbbq; default en). esbbq/cabbq are "
            "always es/ca.",
        )
        parser.add_argument(
            "--category",
            default="",
            help="indicasa: category when the file is not named 'IndiCASA_dataset - <cat>.csv'.",
        )
        parser.add_argument(
            "--seed",
            type=int,
            default=0,
            help="bbq: seed of the name and word draws BBQ's generator makes (recorded with "
            "each template; the same seed reproduces the same instances). Default 0.",
        )
        parser.add_argument(
            "--adapted-from",
            default="",
            dest="adapted_from",
            metavar="SOURCE",
            help="esbbq/cabbq: the dataset these templates adapt (e.g. a BBQ import): its "
            "source is set, each template is linked to the source template its row names "
            "(bbq_category + bbq_template_id; a missing one is a finding), and every source "
            "template no row adapts is Sample-Removed. An unknown SOURCE rejects the import.",
        )
        parser.add_argument(
            "--strict",
            action="store_true",
            help="Reject the import if there is any finding (for authoring pipelines).",
        )
        parser.add_argument(
            "--json",
            action="store_true",
            dest="as_json",
            help="Print the report (or the problems) as JSON.",
        )
        parser.add_argument("files", nargs="+", metavar="FILE")

    def handle(
        self,
        *args,
        fmt: str,
        dataset: str,
        language: str,
        category: str,
        seed: int,
        strict: bool,
        adapted_from: str,
        as_json: bool,
        files,
        **kw,
    ):
        uploads: list[ImportFile] = []
        missing: list[ImportProblem] = []
        for name in files:
            path = Path(name)
            try:
                uploads.append(ImportFile(name=path.name, data=path.read_bytes()))
            except OSError as error:
                missing.append(ImportProblem(name, None, "file", f"cannot read: {error.strerror}"))
        try:
            if missing:
                # Still check the readable files, so one run reports every problem.
                parsed = (
                    parse_import(
                        fmt=fmt, files=uploads, language=language, category=category, seed=seed
                    )
                    if uploads
                    else None
                )
                raise ImportRejected(missing + (parsed.problems if parsed else []))
            # Template sets, or published instance files (BBQ data/*.jsonl, ...): the format's
            # kind decides, and which report comes back.
            report = benchmark_import(
                dataset_name=dataset,
                fmt=fmt,
                files=uploads,
                language=language,
                category=category,
                seed=seed,
                strict=strict,
                adapted_from=adapted_from,
            )
        except ImportRejected as rejected:
            command_import_rejected(command=self, rejected=rejected, as_json=as_json)
        if as_json:
            self.stdout.write(json.dumps(report.as_dict(), ensure_ascii=False, indent=2))
            return
        for line in report.summary():
            self.stdout.write(line)
