"""python manage.py export_lm_eval RELEASE_ID --output DIR [--task NAME]
[--prompt-template NAME]

Write a release's BBQ-style instances as an lm-evaluation-harness task (DIR/NAME.yaml and
DIR/NAME.jsonl; apps/evaluation/formats/lm_eval.py), so that anyone can run
`lm_eval --include_path DIR --tasks NAME ...` on it. With --prompt-template, the harness
prompt is that zero-shot Kasauti template (the same text Kasauti's own runs score)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from apps.evaluation.formats.lm_eval import ExportError, lm_eval_task_write
from apps.evaluation.models import PromptTemplate
from apps.evaluation.services.exports import lm_eval_instances, lm_eval_template
from apps.releases.selectors import release_get


class Command(BaseCommand):
    help = "Export a release as an lm-evaluation-harness multiple-choice task (YAML + JSONL)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("release_id", type=int)
        parser.add_argument("--output", required=True, help="Directory to write into.")
        parser.add_argument(
            "--task", default="", help="Task name (default kasauti_<dataset>_r<N>)."
        )
        parser.add_argument("--prompt-template", default="", help="A zero-shot template name.")

    def handle(self, *args, release_id: int, output: str, task: str, **options) -> None:
        release = release_get(release_id=release_id)
        if release is None:
            raise CommandError(f"no release with id {release_id}")
        kwargs = {}
        if options["prompt_template"]:
            template = PromptTemplate.objects.filter(name=options["prompt_template"]).first()
            if template is None:
                raise CommandError(f"no prompt template named {options['prompt_template']!r}")
            try:
                kwargs["template"] = lm_eval_template(template=template)
            except ExportError as exc:
                raise CommandError(str(exc)) from exc
        task = task or f"kasauti_{release.dataset.name}_r{release.number}"
        task = "".join(c if c.isalnum() else "_" for c in task)
        try:
            yaml_file, data_file = lm_eval_task_write(
                lm_eval_instances(release=release), output, task=task, **kwargs
            )
        except ExportError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"{yaml_file}\n{data_file}")
