"""python manage.py run_metrics RUN_ID [--json]

Recompute a BBQ-style run's metrics from its stored predictions (and store them). `--json`
prints {"overall": {...}, "by_category": {...}} with n_amb, n_dis, acc_a, acc_d, bs_a, bs_d,
sbs_a, sbs_d (BharatBBQ eqs. 1-6), s_dis, s_amb (BBQ) and the difference-of-accuracies bias
scores; null where a figure is undefined (the reasons are under "undefined").

`--compat bharatbbq-main-py` prints, without storing them, the figures over the rows BharatBBQ's
Metrics/main.py main() scores (it drops proper-name rows and consecutive disambiguated pairs
answered alike; not the paper's equations), with "compat" and "rows_scored" added."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from apps.evaluation.metrics.bbq import MAIN_PY_COMPAT
from apps.evaluation.selectors import METRICS, run_get
from apps.evaluation.services.metrics import run_metrics, run_metrics_compat


class Command(BaseCommand):
    help = "Recompute and print a BBQ-style run's metrics."

    def add_arguments(self, parser) -> None:
        parser.add_argument("run_id", type=int)
        parser.add_argument("--json", action="store_true")
        parser.add_argument(
            "--compat",
            choices=[MAIN_PY_COMPAT],
            help="figures as a benchmark's own script computes them where it departs from "
            "the paper (printed, not stored)",
        )

    def handle(self, *args, run_id: int, **options) -> None:
        run = run_get(run_id=run_id)
        if run is None:
            raise CommandError(f"no evaluation run with id {run_id}")
        if not run.evaluation_kind.scored_by_prediction:
            raise CommandError(
                f"run {run_id} is a {run.kind_label} run; its results are on its page"
            )
        compat = options.get("compat")
        results = run_metrics_compat(run=run, compat=compat) if compat else run_metrics(run=run)
        if options["json"]:
            shown = {"overall": results["overall"], "by_category": results["by_category"]}
            if compat:
                shown.update(compat=compat, rows_scored=results["rows_scored"])
            self.stdout.write(json.dumps(shown, ensure_ascii=False))
            return
        overall = results["overall"]
        if compat:
            self.stdout.write(f"{compat} compatibility: {results['rows_scored']} rows scored")
        self.stdout.write(
            f"run {run.pk} ({run.model_label}, {run.status}): "
            f"{overall.get('n_amb', 0)} ambiguous, {overall.get('n_dis', 0)} disambiguated"
        )
        for key, label in METRICS:
            value = overall.get(key)
            shown = "undefined" if value is None else f"{value:.4f}"
            self.stdout.write(f"  {label:<12} {shown}")
