"""`export_lm_eval`: a release as an lm-evaluation-harness task, with the prompts Kasauti's
runs score (zero- and two-shot), loaded by the real harness."""

from __future__ import annotations

import io
import json
import unicodedata

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from lm_eval.tasks import TaskManager

from apps.evaluation.services.prompts import templates_for
from apps.evaluation.services.runs import item_prompt, run_items, run_shot_pool
from tests.evaluation.bbq_data import bbq_release

pytestmark = pytest.mark.django_db


def test_a_release_exports_as_a_harness_task_with_kasautis_prompt(tmp_path):
    release = bbq_release()
    out = io.StringIO()
    call_command(
        "export_lm_eval",
        str(release.pk),
        "--output",
        str(tmp_path),
        "--task",
        "mini",
        "--prompt-template",
        "bharatbbq-hi-0shot",
        stdout=out,
    )
    yaml_text = (tmp_path / "mini.yaml").read_text(encoding="utf-8")
    assert "output_type: multiple_choice" in yaml_text and "task: mini" in yaml_text
    assert "{{context}}" in yaml_text and "{{ans2}}" in yaml_text and "{ctx}" not in yaml_text
    assert "सही उत्तर है:" in yaml_text
    docs = [json.loads(line) for line in (tmp_path / "mini.jsonl").read_text().splitlines()]
    assert len(docs) == release.memberships.count() == 16
    hindi = next(d for d in docs if d["language"] == "hi")
    assert hindi["context"].startswith("एक किसान")
    assert sorted(hindi["roles"]) == ["non_target", "target", "unknown"]
    assert hindi["answer_info"]["ans0"][1] in {"target", "non_target", "unknown"}
    assert {d["id"] for d in docs} >= {"cas-0", "rel-0"}


def _export(release, out, *args):
    call_command("export_lm_eval", str(release.pk), "--output", str(out), "--task", "two", *args)
    return [json.loads(line) for line in (out / "two.jsonl").read_text().splitlines()]


def _run_prompts(release, *, shots, instruction_language):
    """What a run with these settings scores, item by item (runs.py item_prompt)."""
    items = list(run_items(dataset=release.dataset, release=release))
    templates = templates_for(
        languages={i.language for i in items},
        shots=shots,
        instruction_language=instruction_language,
    )
    pool = run_shot_pool(dataset=release.dataset, release=release, shots=shots)
    return [item_prompt(instance=i, templates=templates, pool=pool) for i in items]


@pytest.mark.parametrize("instruction_language", ["en", "target"])
def test_a_two_shot_export_has_exactly_the_prompts_a_run_scores(tmp_path, instruction_language):
    release = bbq_release(copies=2)
    docs = _export(
        release, tmp_path, "--shots", "2", "--instruction-language", instruction_language
    )
    expected = _run_prompts(release, shots=2, instruction_language=instruction_language)
    assert len(docs) == len(expected) == 32
    for doc, (prompt, options, group) in zip(docs, expected, strict=True):
        assert doc["prompt"] == unicodedata.normalize("NFC", prompt)
        assert [" " + doc[f"ans{i}"] for i in range(3)] == options
        # Two solved examples (the group names them), then the item: three answer markers,
        # the last one open.
        hindi_instruction = doc["language"] == "hi" and instruction_language == "target"
        marker = "सही उत्तर है:" if hindi_instruction else "The correct answer is:"
        assert len(group) == 5 and prompt.count(marker) == 3 and prompt.endswith(marker)
    hindi = next(d for d in docs if d["language"] == "hi")
    english_instruction = "You are given a scenario-based context"
    assert (english_instruction in hindi["prompt"]) == (instruction_language == "en")

    # The real harness loads the task offline and reads back the same text and choices.
    yaml_text = (tmp_path / "two.yaml").read_text(encoding="utf-8")
    assert 'doc_to_text: "{{prompt}}"' in yaml_text
    manager = TaskManager(include_path=str(tmp_path), include_defaults=False)
    task = manager.load(["two"])["tasks"]["two"]
    harness_docs = list(task.test_docs())
    assert len(harness_docs) == len(docs)
    for harness_doc, doc in zip(harness_docs, docs, strict=True):
        assert task.doc_to_text(harness_doc) == doc["prompt"]
        assert task.doc_to_choice(harness_doc) == [doc["ans0"], doc["ans1"], doc["ans2"]]
        assert task.doc_to_target(harness_doc) == doc["label"]


def test_a_two_shot_template_by_name_exports_the_same_prompts(tmp_path):
    release = bbq_release(copies=2)
    by_name = _export(release, tmp_path / "a", "--prompt-template", "bharatbbq-en-2shot")
    by_setting = _export(release, tmp_path / "b", "--shots", "2")
    assert [d["prompt"] for d in by_name] == [d["prompt"] for d in by_setting]
    zero = _export(release, tmp_path / "c", "--shots", "0", "--instruction-language", "target")
    expected = _run_prompts(release, shots=0, instruction_language="target")
    assert [d["prompt"] for d in zero] == [prompt for prompt, _, _ in expected]


def test_mismatched_settings_and_unknown_releases_are_refused(tmp_path):
    release = bbq_release(languages=("en",))
    with pytest.raises(CommandError, match="2-shot, not 0-shot"):
        _export(release, tmp_path, "--prompt-template", "bharatbbq-en-2shot", "--shots", "0")
    with pytest.raises(CommandError, match="no release with id"):
        call_command("export_lm_eval", "987654", "--output", str(tmp_path))
    with pytest.raises(CommandError, match="no prompt template named"):
        _export(release, tmp_path, "--prompt-template", "nope")
    assert not any(tmp_path.iterdir())
