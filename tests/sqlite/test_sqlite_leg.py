"""The SQLite leg: the `make run` default (SQLite file) through import, re-import, instantiate,
release and export. The suite's own database is PostgreSQL, so the steps run in a separate
process (tests/sqlite/leg.py) on a fresh SQLite file, once per module; each test checks one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def leg(tmp_path_factory) -> dict:
    var_dir = tmp_path_factory.mktemp("sqlite-leg")
    done = subprocess.run(
        [sys.executable, "-m", "tests.sqlite.leg", str(var_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={
            k: v
            for k, v in __import__("os").environ.items()
            if k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE"}
        },
    )
    assert done.returncode == 0, done.stderr[-3000:]
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["vendor"] == "sqlite"
    return outcome


def _ok(leg: dict, step: str) -> dict:
    result = leg[step]
    assert result["ok"], result.get("traceback") or result.get("error")
    return result


def test_import(leg):
    result = _ok(leg, "import")
    assert result["templates"] > 0 and result["versions"] == result["templates"]


def test_reimport_of_the_same_files_changes_nothing(leg):
    first = _ok(leg, "import")
    again = _ok(leg, "reimport")
    assert again == first  # no duplicate templates, no new versions


def test_instantiate_as_a_job(leg):
    result = _ok(leg, "instantiate")
    assert result["status"] == "succeeded", result["error"]
    assert result["created"] == result["planned"] == result["instances"] > 0
    assert result["progress"] == [result["planned"], result["planned"]]
    assert result["created_again"] == 0  # idempotent


def test_release_and_an_identical_one(leg):
    instances = _ok(leg, "instantiate")["instances"]
    result = _ok(leg, "release")
    assert result["number"] == 1 and result["total"] == instances
    assert "instances.jsonl" in result["files"] and "instances.parquet" in result["files"]
    assert result["identical_returns_latest"] and result["releases"] == 1


def test_export(leg):
    result = _ok(leg, "export")
    assert result["lines"] == _ok(leg, "instantiate")["instances"]
    assert result["sha256_matches"]
    assert result["first"]["context"]


def test_reviewed_release(leg):
    result = _ok(leg, "reviewed")
    assert result["content"] == "reviewed" and result["number"] == 2
    # The approved template's 16 instances and the passed translation, not the draft
    # template's 16 nor the flagged translation.
    assert result["approved_instances"] == 18 and result["live_instances"] == 34
    assert result["total"] == 17 and result["languages"] == ["en", "mr"]
    assert result["review_status"] == ["approved"]
    excluded = result["excluded"]
    assert excluded["instances"] == {"template_not_approved": 16, "translation_flagged": 1}
    assert result["tuples"] == ["Marwari"]
    assert excluded["tuples"] == {"not_voted": 1, "voted_not_stereotypical": 1}
    # No sentence pair passed review: the release has no sentence-pair file at all.
    assert result["sentence_pairs"] is None and excluded["sentence_pairs"] == {"not_reviewed": 1}
    assert [
        (s["external_id"], s["stereotypes"], s["anti_stereotypes"]) for s in result["context_sets"]
    ] == [("s1", ["kept"], ["fixed ✓"])]
    assert excluded["context_sets"]["no_stereotype_left"] == 1
    assert excluded["context_sentences"] == {
        "not_reviewed": 0,
        "awaiting_social_science_review": 1,
        "dropped_in_language_review": 0,
        "dropped_in_social_science_review": 1,
        "set_left_out": 1,
    }
    assert result["identical_returns_latest"]


def test_a_job_holding_the_write_lock_is_not_requeued(leg):
    """SQLite has one writer: while a job's own transaction holds the lock its heartbeat
    cannot reach the Job row, yet a watchdog running beside it must not re-queue it."""
    result = _ok(leg, "locked_heartbeat")
    # The watchdog decided while the lock was held (it did not wait for the lock).
    assert result["passes_while_stale_and_locked"] > 0
    assert result["requeued"] == [] and result["recoveries"] == 0
    assert result["status"] == "running" and result["progress_done"] == 1
    assert result["file_alive_while_locked"] and result["file_removed_after"]
