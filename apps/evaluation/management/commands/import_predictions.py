"""python manage.py import_predictions --dataset NAME --model LABEL [--id-column example_id]
[--prediction-column prediction] [--index-base {0,1}] [--json] FILE

Import per-item predictions made elsewhere (CSV or JSON Lines) against a dataset and score them
like a run. `--json` prints {"run": ID, "matched": N, "unmatched": N, "unparseable": N}."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.catalog.models import Dataset
from apps.core.errors import KasautiError
from apps.evaluation.predictions.readers import Columns
from apps.evaluation.services.imports import predictions_import
from apps.releases.models import Release


class Command(BaseCommand):
    help = "Import a CSV or JSONL file of per-item predictions and compute its metrics."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file")
        parser.add_argument("--dataset", required=True, help="Dataset name.")
        parser.add_argument("--model", required=True, help="What the predictions are from.")
        parser.add_argument("--release", type=int, help="Release number (default: live items).")
        parser.add_argument("--id-column", default="example_id")
        parser.add_argument("--prediction-column", default="prediction")
        parser.add_argument("--logprobs-column", default="logprobs")
        parser.add_argument("--category-column", default="category")
        parser.add_argument("--language-column", default="language")
        parser.add_argument("--index-base", type=int, choices=(0, 1), default=0)
        parser.add_argument("--format", choices=("csv", "jsonl"), help="Default: the suffix.")
        parser.add_argument("--json", action="store_true", help="Print the counts as JSON.")

    def handle(self, *args, **options) -> None:
        dataset = Dataset.objects.filter(name=options["dataset"]).first()
        if dataset is None:
            raise CommandError(f"no dataset named {options['dataset']!r}")
        release = None
        if options["release"] is not None:
            release = Release.objects.filter(dataset=dataset, number=options["release"]).first()
            if release is None:
                raise CommandError(f"{dataset.name!r} has no release {options['release']}")
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(f"no such file: {path}")
        columns = Columns(
            id=options["id_column"],
            prediction=options["prediction_column"],
            logprobs=options["logprobs_column"],
            category=options["category_column"],
            language=options["language_column"],
        )
        try:
            with path.open("rb") as stream:
                run = predictions_import(
                    dataset=dataset,
                    model_label=options["model"],
                    stream=stream,
                    name=str(path),
                    file_format=options["format"] or "",
                    columns=columns,
                    index_base=options["index_base"],
                    release=release,
                )
        except KasautiError as exc:
            raise CommandError(str(exc)) from exc
        report = run.report
        counts = {key: report[key] for key in ("matched", "unmatched", "unparseable")}
        if options["json"]:
            self.stdout.write(json.dumps({"run": run.pk, **counts}))
            return
        self.stdout.write(
            f"run {run.pk}: {counts['matched']} matched, {counts['unmatched']} unmatched, "
            f"{counts['unparseable']} unparseable"
        )
        for entry in report.get("unmatched_ids", [])[:20]:
            self.stdout.write(f"  line {entry['line']}: id {entry['id']!r}: {entry['reason']}")
        for entry in report.get("unparseable_answers", [])[:20]:
            self.stdout.write(
                f"  line {entry['line']}: id {entry['id']!r}: answer {entry['answer']!r} "
                "matches no option"
            )
