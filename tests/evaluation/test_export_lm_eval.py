"""`export_lm_eval`: a release as an lm-evaluation-harness task, with Kasauti's prompt."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

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


def test_two_shot_templates_and_unknown_releases_are_refused(tmp_path):
    release = bbq_release(languages=("en",))
    with pytest.raises(CommandError, match="2-shot"):
        call_command(
            "export_lm_eval",
            str(release.pk),
            "--output",
            str(tmp_path),
            "--prompt-template",
            "bharatbbq-en-2shot",
        )
    with pytest.raises(CommandError, match="no release with id"):
        call_command("export_lm_eval", "987654", "--output", str(tmp_path))
    assert not any(tmp_path.iterdir())
