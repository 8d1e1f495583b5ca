"""python manage.py run_metrics RUN_ID [--json]

Recompute a BBQ-style run's metrics from its stored predictions (and store them). `--json`
prints {"overall": {...}, "by_category": {...}} with n_amb, n_dis, acc_a, acc_d, bs_a, bs_d,
sbs_a, sbs_d (BharatBBQ eqs. 1-6), s_dis, s_amb (BBQ) and the difference-of-accuracies bias
scores; null where a figure is undefined (the reasons are under "undefined")."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from apps.evaluation.models import RunKind
from apps.evaluation.selectors import METRICS, run_get
from apps.evaluation.services.metrics import run_metrics


class Command(BaseCommand):
    help = "Recompute and print a BBQ-style run's metrics."

    def add_arguments(self, parser) -> None:
        parser.add_argument("run_id", type=int)
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, run_id: int, **options) -> None:
        run = run_get(run_id=run_id)
        if run is None:
            raise CommandError(f"no evaluation run with id {run_id}")
        if run.kind not in (RunKind.BBQ_MC, RunKind.IMPORTED):
            raise CommandError(
                f"run {run_id} is a {run.get_kind_display()} run; its results are on its page"
            )
        results = run_metrics(run=run)
        if options["json"]:
            self.stdout.write(
                json.dumps(
                    {"overall": results["overall"], "by_category": results["by_category"]},
                    ensure_ascii=False,
                )
            )
            return
        overall = results["overall"]
        self.stdout.write(
            f"run {run.pk} ({run.model_label}, {run.status}): "
            f"{overall.get('n_amb', 0)} ambiguous, {overall.get('n_dis', 0)} disambiguated"
        )
        for key, label in METRICS:
            value = overall.get(key)
            shown = "undefined" if value is None else f"{value:.4f}"
            self.stdout.write(f"  {label:<12} {shown}")
