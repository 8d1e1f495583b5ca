"""What leaves Kasauti for other tools: a release as an lm-evaluation-harness task.

Three prompt settings (`lm_eval_export`):

* no template: the harness bbq task's short layout (formats/lm_eval.py DEFAULT_TEMPLATE);
* a zero-shot template by name: its text in the harness's Jinja fields ({ctx} -> {{context}});
* a two-shot template by name, or `shots` / `instruction_language` (the templates a run with
  those settings uses, `templates_for`): every doc carries its whole rendered prompt, built by
  runs.py `item_prompt` from the run's shot pool (`run_shot_pool`), and the harness prompt is
  `{{prompt}}`: the harness scores exactly the text a Kasauti run scores, the same two solved
  examples per item included.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from apps.catalog.models import Instance
from apps.core.errors import KasautiError
from apps.releases.models import Release

from ..formats.lm_eval import DEFAULT_TEMPLATE, PROMPT_TEMPLATE, ExportError, lm_eval_task_write
from ..models import PromptTemplate
from .metrics import ROLE
from .prompts import prompt_template_check, templates_for
from .runs import item_prompt, run_items, run_shot_pool

# Kasauti template fields -> the harness's Jinja fields of formats/lm_eval.py's docs.
_JINJA = {"ctx": "context", "qn": "question", "a": "ans0", "b": "ans1", "c": "ans2"}


def lm_eval_template(*, template: PromptTemplate) -> str:
    """A zero-shot template's text in the harness's Jinja syntax ({ctx} -> {{context}}, ...)."""
    if template.shots:
        raise ExportError(
            f"prompt template {template.name!r} is {template.shots}-shot; its items' prompts "
            "are exported whole (lm_eval_export)"
        )
    text = template.text
    for field, name in _JINJA.items():
        text = text.replace("{" + field + "}", "{{" + name + "}}")
    return text


def lm_eval_doc(*, instance: Instance) -> dict[str, Any]:
    """One instance as formats/lm_eval.py takes it (no prompt)."""
    roles = [ROLE.get(role, role) for role in instance.option_roles or []]
    return {
        "id": instance.source_id or str(instance.example_id),
        "context": instance.context,
        "question": instance.question,
        "ans0": instance.ans0,
        "ans1": instance.ans1,
        "ans2": instance.ans2,
        "label": instance.label,
        "category": instance.category.name,
        "language": instance.language,
        "context_condition": instance.context_condition,
        "question_polarity": instance.question_polarity,
        "roles": roles if sorted(roles) == ["non_target", "target", "unknown"] else None,
    }


def lm_eval_prompt_docs(
    *, instances: Iterable[Instance], templates: dict[str, PromptTemplate], pool: dict[str, list]
) -> Iterator[dict[str, Any]]:
    """The instances with the whole prompt a run with `templates` and shot `pool` scores."""
    for instance in instances:
        try:
            prompt, _, _ = item_prompt(instance=instance, templates=templates, pool=pool)
        except KasautiError as exc:
            raise ExportError(str(exc)) from exc
        yield {**lm_eval_doc(instance=instance), "prompt": prompt}


def _release_instances(release: Release):
    items = run_items(dataset=release.dataset, release=release).select_related("category")
    return items.iterator(chunk_size=2000)


def lm_eval_instances(
    *, release: Release, templates: dict[str, PromptTemplate] | None = None, shots: int = 0
) -> Iterator[dict[str, Any]]:
    """The release's instances as formats/lm_eval.py takes them, in id order; with
    `templates`, each with the prompt a `shots`-shot run with those templates scores."""
    if templates is None:
        return (lm_eval_doc(instance=i) for i in _release_instances(release))
    pool = run_shot_pool(dataset=release.dataset, release=release, shots=shots)
    return lm_eval_prompt_docs(
        instances=_release_instances(release), templates=templates, pool=pool
    )


def lm_eval_export(
    *,
    release: Release,
    output: str | Path,
    task: str,
    prompt_template: PromptTemplate | None = None,
    shots: int | None = None,
    instruction_language: str | None = None,
) -> tuple[Path, Path]:
    """Write the release as the harness task `task` into `output` (see the module docstring
    for the prompt settings); returns (YAML, JSONL). Problems raise ExportError."""
    if shots not in (None, 0, 2):
        raise ExportError(f"shots must be 0 or 2, not {shots}")
    if prompt_template is not None:
        if shots is not None and shots != prompt_template.shots:
            raise ExportError(
                f"prompt template {prompt_template.name!r} is {prompt_template.shots}-shot, "
                f"not {shots}-shot"
            )
        try:
            prompt_template_check(template=prompt_template)
        except KasautiError as exc:
            raise ExportError(str(exc)) from exc
        if not prompt_template.shots:
            return lm_eval_task_write(
                lm_eval_instances(release=release),
                output,
                task=task,
                template=lm_eval_template(template=prompt_template),
            )
        languages = run_items(dataset=release.dataset, release=release).values_list(
            "language", flat=True
        )
        templates = {language: prompt_template for language in set(languages)}
        shots = prompt_template.shots
    elif shots is None and instruction_language is None:
        return lm_eval_task_write(
            lm_eval_instances(release=release), output, task=task, template=DEFAULT_TEMPLATE
        )
    else:
        shots = shots or 0
        languages = run_items(dataset=release.dataset, release=release).values_list(
            "language", flat=True
        )
        try:
            templates = templates_for(
                languages=set(languages),
                shots=shots,
                instruction_language=instruction_language or "en",
            )
        except KasautiError as exc:
            raise ExportError(str(exc)) from exc
    return lm_eval_task_write(
        lm_eval_instances(release=release, templates=templates, shots=shots),
        output,
        task=task,
        template=PROMPT_TEMPLATE,
    )
