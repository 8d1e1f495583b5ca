import json

from django.core.management.base import BaseCommand, CommandError

from apps.catalog.models import Dataset
from apps.catalog.services import dataset_instantiate, instantiation_plan
from apps.core.errors import KasautiError


class Command(BaseCommand):
    help = (
        "Instantiate every current template of a dataset. --dry-run writes nothing and prints "
        "the exact counts."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--dataset", required=True, help="Dataset name.")
        parser.add_argument("--dry-run", action="store_true", help="Only count; write nothing.")
        parser.add_argument("--json", action="store_true", help="Print machine-readable JSON.")

    def handle(self, *args, **options) -> None:
        try:
            dataset = Dataset.objects.get(name=options["dataset"])
        except Dataset.DoesNotExist:
            raise CommandError(f"no dataset named {options['dataset']!r}") from None
        try:
            if options["dry_run"]:
                plan = instantiation_plan(dataset=dataset)
                result = {"total": plan.total, "by_category": plan.by_category}
                details = plan.as_dict()
            else:
                details = dataset_instantiate(dataset=dataset)
                result = {
                    "total": details["total"],
                    "by_category": details["by_category"],
                    "created": details["created"],
                    "retired": details["retired"],
                }
        except KasautiError as exc:
            raise CommandError(str(exc)) from exc

        if options["json"]:
            self.stdout.write(json.dumps(result, ensure_ascii=False))
            return
        verb = "would produce" if options["dry_run"] else "has"
        self.stdout.write(f"Dataset {dataset.name!r} {verb} {result['total']} instances:")
        for category, count in result["by_category"].items():
            self.stdout.write(f"  {category:<30} {count:>8}")
        if options["dry_run"]:
            for template in details["templates"]:
                done = "  (instantiated)" if template["instantiated"] else ""
                self.stdout.write(
                    f"    {template['external_id']:<28} v{template['version']:<3} "
                    f"{template['count']:>7}{done}"
                )
        else:
            self.stdout.write(f"Created {result['created']}, retired {result['retired']}.")
