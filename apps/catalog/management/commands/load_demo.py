from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from apps.catalog.demo import demo_load
from apps.catalog.services import dataset_instantiate, instantiation_plan
from apps.core.errors import KasautiError


class Command(BaseCommand):
    help = (
        "Load the demo catalog from fixtures/demo/ (idempotent: a second run adds nothing). "
        "With --instantiate, also generate its instances in this process (no worker needed)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--instantiate",
            action="store_true",
            help="Generate the demo dataset's instances right away.",
        )

    def handle(self, *args, instantiate: bool = False, **options) -> None:
        try:
            report = demo_load()
        except KasautiError as exc:
            raise CommandError(str(exc)) from exc
        out = self.stdout.write
        out(f"Demo dataset {report.dataset!r}:")
        for label, value in (
            ("categories", report.categories),
            ("unknown expressions", report.unknown_expressions),
            ("stereotype concepts", report.concepts),
            ("evidence references", report.evidence),
            ("vocabularies", report.vocabularies),
            ("vocabulary entries", report.vocabulary_entries),
            ("templates", report.templates),
            ("template versions", report.template_versions),
            ("sentence pairs", report.sentence_pairs),
            ("stereotype tuples", report.stereotype_tuples),
            ("context sets", report.context_sets),
            ("context sentences", report.context_sentences),
        ):
            out(f"  created {value:>4} {label}")
        if report.templates_existing:
            out(f"  skipped {report.templates_existing:>4} templates that already exist")
        if not report.created_anything:
            out("  nothing new: the demo was already loaded")

        from apps.catalog.models import Dataset

        dataset = Dataset.objects.get(name=report.dataset)
        plan = instantiation_plan(dataset=dataset)
        out(
            f"Instantiation plan: {plan.total} instances from {len(plan.templates)} templates "
            f"({len(plan.skipped)} rejected template(s) skipped)"
        )
        for category, count in plan.by_category.items():
            templates = report.templates_by_category.get(category, 0)
            out(f"  {category:<24} {templates:>2} templates {count:>5} instances")
        if instantiate:
            try:
                result = dataset_instantiate(dataset=dataset)
            except KasautiError as exc:
                raise CommandError(str(exc)) from exc
            out(f"Instantiated: {result['created']} created, {result['retired']} retired")
