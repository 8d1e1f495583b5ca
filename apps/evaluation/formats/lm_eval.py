"""Export BBQ-style instances as an lm-evaluation-harness task: a YAML task config plus JSONL.

The task is ``output_type: multiple_choice`` over the item's own three options (the unknown
option included, in the item's order), ``doc_to_text`` = the prompt, ``doc_to_choice`` =
``[ans0, ans1, ans2]``, ``doc_to_target`` = ``label``; the harness scores each option as
``target_delimiter`` (one space) + option after the prompt, which is what
``worker.engines.lm_scorer`` scores for Kasauti's runs. Each JSONL doc also carries what the
bias metrics need (category, language, context condition, question polarity, option roles,
BBQ-style ``answer_info``), so ``--log_samples`` output can be fed back to
``apps.evaluation.metrics.bbq``. The data file is loaded by the ``json`` builder of
``datasets`` from a local path: no hub access.

Rendered prompts: a doc may carry its whole ``prompt`` (what Kasauti's run scores for that item,
e.g. a two-shot prompt with the item's own two solved examples, or a template per language);
with ``template=PROMPT_TEMPLATE`` (``{{prompt}}``) the harness's context is exactly that text
(``--num_fewshot`` stays 0: the examples are in the prompt).

Plain Python: no Django. Input: an iterable of dicts with ``context``, ``question``,
``ans0..ans2`` (or ``answers``), ``label`` and optionally ``prompt``, ``category``,
``language``, ``context_condition``, ``question_polarity``, ``roles`` / ``answer_info``, ``id``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

DEFAULT_TEMPLATE = "{{context}}\n\nQuestion: {{question}}\nAnswer:"
# The harness prompt when every doc carries its rendered Kasauti prompt.
PROMPT_TEMPLATE = "{{prompt}}"
ROLES = ("target", "non_target", "unknown")
_TASK_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


class ExportError(ValueError):
    """An instance cannot be exported; the message names the instance and the field."""


def _nfc(value: Any) -> Any:
    return unicodedata.normalize("NFC", value) if isinstance(value, str) else value


def instance_to_doc(instance: Mapping[str, Any], *, position: int) -> dict[str, Any]:
    """One JSONL doc; raises ExportError naming the instance (position / id) and the field."""
    where = f"instance {position}" + (f" (id {instance['id']})" if "id" in instance else "")
    answers = instance.get("answers")
    if answers is None:
        answers = [instance.get(f"ans{i}") for i in range(3)]
    answers = list(answers)
    for field in ("context", "question"):
        if not isinstance(instance.get(field), str) or not instance[field].strip():
            raise ExportError(f"{where}: field {field!r} is missing or empty")
    if len(answers) != 3 or any(not isinstance(a, str) or not a.strip() for a in answers):
        raise ExportError(f"{where}: fields 'ans0'..'ans2' must be three non-empty strings")
    label = instance.get("label")
    if not isinstance(label, int) or isinstance(label, bool) or not 0 <= label <= 2:
        raise ExportError(f"{where}: field 'label' must be 0, 1 or 2, got {label!r}")
    roles = instance.get("roles")
    if roles is not None:
        roles = [str(r) for r in roles]
        if sorted(roles) != sorted(ROLES):
            raise ExportError(f"{where}: field 'roles' must name each of {ROLES} once: {roles}")
    prompt = instance.get("prompt")
    if prompt is not None and (not isinstance(prompt, str) or not prompt.strip()):
        raise ExportError(f"{where}: field 'prompt' must be a non-empty string")
    doc: dict[str, Any] = {
        "id": instance.get("id", position),
        "context": _nfc(instance["context"]).strip(),
        "question": _nfc(instance["question"]).strip(),
        **{f"ans{i}": _nfc(a).strip() for i, a in enumerate(answers)},
        "label": label,
        "category": _nfc(instance.get("category", "")),
        "language": instance.get("language", ""),
        "context_condition": instance.get("context_condition", ""),
        "question_polarity": instance.get("question_polarity", ""),
        "roles": roles,
    }
    info = instance.get("answer_info")
    if info is None and roles is not None:
        info = {f"ans{i}": [doc[f"ans{i}"], role] for i, role in enumerate(roles)}
    doc["answer_info"] = info
    if prompt is not None:
        doc["prompt"] = _nfc(prompt)  # not stripped: the exact text the run scores
    return doc


def task_yaml(*, task: str, data_file: Path, template: str = DEFAULT_TEMPLATE) -> str:
    """The task config text (JSON strings are valid YAML scalars, so values are quoted safely)."""
    if not _TASK_NAME.match(task):
        raise ExportError(f"task name {task!r} must be letters, digits and underscores")
    lines = [
        f"task: {task}",
        "dataset_path: json",
        "dataset_kwargs:",
        "  data_files:",
        f"    test: {json.dumps(str(Path(data_file).resolve()))}",
        "test_split: test",
        "output_type: multiple_choice",
        f"doc_to_text: {json.dumps(template, ensure_ascii=False)}",
        'doc_to_choice: "{{[ans0, ans1, ans2]}}"',
        "doc_to_target: label",
        'target_delimiter: " "',
        "metric_list:",
        "  - metric: acc",
        "    aggregation: mean",
        "    higher_is_better: true",
        "metadata:",
        "  version: 1.0",
        "  source: kasauti",
    ]
    return "\n".join(lines) + "\n"


def lm_eval_task_write(
    instances: Iterable[Mapping[str, Any]],
    out_dir: str | Path,
    *,
    task: str = "kasauti_bbq",
    template: str = DEFAULT_TEMPLATE,
) -> tuple[Path, Path]:
    """Write ``<task>.yaml`` and ``<task>.jsonl`` into ``out_dir``; returns both paths.

    Every instance is checked before anything is written: a bad one raises ExportError and
    leaves ``out_dir`` untouched."""
    docs = [instance_to_doc(inst, position=i) for i, inst in enumerate(instances)]
    if not docs:
        raise ExportError("no instances to export")
    if "prompt" in template:
        missing = next((i for i, doc in enumerate(docs) if "prompt" not in doc), None)
        if missing is not None:
            raise ExportError(f"instance {missing}: the template uses {{{{prompt}}}}, it has none")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data_file = out / f"{task}.jsonl"
    yaml_file = out / f"{task}.yaml"
    text = task_yaml(task=task, data_file=data_file, template=template)
    with data_file.open("w", encoding="utf-8") as fh:
        for doc in docs:
            fh.write(json.dumps(doc, ensure_ascii=False) + "\n")
    yaml_file.write_text(text, encoding="utf-8")
    return yaml_file, data_file
