"""Build and register tiny random-weight evaluation models so the evaluation pages can be tried
on `make run` without real checkpoints: a causal LM (GPT-2 shaped) for BBQ-style
multiple-choice runs and a masked LM (BERT shaped) for CrowS-Pairs. Their figures are noise,
and every page that shows them says "random weights, demo"."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from apps.core.errors import KasautiError
from apps.evaluation.services.demo import DEMO_MODELS, demo_models_build


class Command(BaseCommand):
    help = (
        "Build tiny RANDOM-WEIGHT causal and masked LMs under KASAUTI_MODEL_ROOT and register "
        "them (marked demo). For trying evaluation runs only: their figures mean nothing."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument(
            "--if-missing",
            action="store_true",
            help="Keep a demo model whose directory already holds a model.",
        )

    def handle(self, *args, seed: int = 0, if_missing: bool = False, **options) -> None:
        try:
            built = demo_models_build(seed=seed, rebuild=not if_missing)
        except KasautiError as exc:
            raise CommandError(str(exc)) from exc
        root = Path(settings.KASAUTI_MODEL_ROOT)
        for spec in DEMO_MODELS:
            state = "built" if spec.name in built else "kept"
            self.stdout.write(f"{state} {spec.name} ({spec.kind}) in {root / spec.path}")
        self.stdout.write(
            self.style.WARNING(
                "These evaluation models have RANDOM WEIGHTS: their accuracies and bias scores "
                "are noise. Use them to try runs, heat maps and charts; register real models on "
                "/evaluation/models/ (docs/evaluation.md, 'A first try with a tiny model')."
            )
        )
