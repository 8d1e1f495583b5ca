"""python manage.py export_lm_eval RELEASE_ID --output DIR [--task NAME]
[--prompt-template NAME | --shots 0|2 [--instruction-language en|target]]

Write a release's BBQ-style instances as an lm-evaluation-harness task (DIR/NAME.yaml and
DIR/NAME.jsonl; apps/evaluation/formats/lm_eval.py), so that anyone can run
`lm_eval --include_path DIR --tasks NAME ...` on it. With --prompt-template (zero- or
two-shot) or --shots / --instruction-language, the harness scores the same text a Kasauti run
with those settings scores (two-shot: the same two solved examples per item; the whole prompt
of each item is in its doc, apps/evaluation/services/exports.py)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from apps.evaluation.formats.lm_eval import ExportError
from apps.evaluation.models import InstructionLanguage, PromptTemplate
from apps.evaluation.services.exports import lm_eval_export
from apps.releases.selectors import release_get


class Command(BaseCommand):
    help = "Export a release as an lm-evaluation-harness multiple-choice task (YAML + JSONL)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("release_id", type=int)
        parser.add_argument("--output", required=True, help="Directory to write into.")
        parser.add_argument(
            "--task", default="", help="Task name (default kasauti_<dataset>_r<N>)."
        )
        parser.add_argument(
            "--prompt-template", default="", help="A prompt template name (zero- or two-shot)."
        )
        parser.add_argument(
            "--shots",
            type=int,
            choices=(0, 2),
            default=None,
            help="Prompts as a run with this many solved examples scores them.",
        )
        parser.add_argument(
            "--instruction-language",
            choices=InstructionLanguage.values,
            default=None,
            help="With --shots: the instruction in English (en) or the item's language.",
        )

    def handle(self, *args, release_id: int, output: str, task: str, **options) -> None:
        release = release_get(release_id=release_id)
        if release is None:
            raise CommandError(f"no release with id {release_id}")
        template = None
        if options["prompt_template"]:
            template = PromptTemplate.objects.filter(name=options["prompt_template"]).first()
            if template is None:
                raise CommandError(f"no prompt template named {options['prompt_template']!r}")
        task = task or f"kasauti_{release.dataset.name}_r{release.number}"
        task = "".join(c if c.isalnum() else "_" for c in task)
        try:
            yaml_file, data_file = lm_eval_export(
                release=release,
                output=output,
                task=task,
                prompt_template=template,
                shots=options["shots"],
                instruction_language=options["instruction_language"],
            )
        except ExportError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"{yaml_file}\n{data_file}")
