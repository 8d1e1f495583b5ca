"""The SQLite leg's driver: runs import, re-import, instantiate (as a job), release (twice) and
export against a fresh SQLite file with the `make run` settings, in its own process (the rest of
the suite runs on PostgreSQL), and prints what each step did as JSON.

    python -m tests.sqlite.leg VAR_DIR
"""

from __future__ import annotations

import io
import json
import os
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "import" / "bbq"


def main(var_dir: Path) -> dict:
    os.environ["DJANGO_SETTINGS_MODULE"] = "kasauti.settings.dev"
    os.environ["KASAUTI_VAR_DIR"] = str(var_dir)
    os.environ["DATABASE_URL"] = f"sqlite:///{var_dir / 'kasauti.sqlite3'}"
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    outcome: dict = {"vendor": connection.vendor}

    def step(name, function):
        try:
            outcome[name] = {"ok": True, **function()}
        except Exception as exc:
            outcome[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            outcome[name]["traceback"] = traceback.format_exc()

    call_command("migrate", verbosity=0)
    files = [str(DATA / "new_templates - Religion.csv"), str(DATA / "vocabulary.csv")]

    def import_files():
        from apps.catalog.models import Dataset, Template, TemplateVersion

        out = io.StringIO()
        call_command(
            "import_benchmark", "--format", "bbq", "--dataset", "bbq-sqlite", *files, stdout=out
        )
        dataset = Dataset.objects.get(name="bbq-sqlite")
        return {
            "templates": Template.objects.filter(dataset=dataset).count(),
            "versions": TemplateVersion.objects.filter(template__dataset=dataset).count(),
        }

    step("import", import_files)
    step("reimport", import_files)

    def instantiate():
        from apps.catalog.models import Dataset, Instance
        from apps.catalog.services import dataset_instantiate, instantiation_plan
        from apps.core.models import Job
        from apps.core.services import job_create, job_run

        dataset = Dataset.objects.get(name="bbq-sqlite")
        job = job_create(kind="instantiate", params={"dataset_id": dataset.pk}, unit="instances")
        job_run(
            job_id=job.pk,
            work=lambda job, report: dataset_instantiate(dataset=dataset, progress=report),
        )
        job = Job.objects.get(pk=job.pk)
        again = dataset_instantiate(dataset=dataset)
        return {
            "status": job.status,
            "error": job.error,
            "progress": [job.progress_done, job.progress_total],
            "created": job.result.get("created"),
            "planned": instantiation_plan(dataset=dataset).total,
            "instances": Instance.objects.filter(dataset=dataset).count(),
            "created_again": again["created"],
        }

    step("instantiate", instantiate)

    def release():
        from apps.catalog.models import Dataset
        from apps.releases.models import Release
        from apps.releases.services import release_create

        dataset = Dataset.objects.get(name="bbq-sqlite")
        first = release_create(dataset=dataset, content="as_published")
        second = release_create(dataset=dataset, content="as_published")
        return {
            "number": first.number,
            "total": first.counts["total"],
            "files": sorted(f"{f.kind}.{f.format}" for f in first.files.all()),
            "identical_returns_latest": second.pk == first.pk,
            "releases": Release.objects.filter(dataset=dataset).count(),
        }

    step("release", release)

    def export():
        import hashlib

        from apps.releases.models import Release

        release = Release.objects.get(dataset__name="bbq-sqlite")
        output = var_dir / "export.jsonl"
        call_command(
            "export_release", str(release.pk), "--format", "jsonl", "--output", str(output)
        )
        recorded = release.files.get(kind="instances", format="jsonl")
        lines = output.read_text(encoding="utf-8").splitlines()
        return {
            "lines": len(lines),
            "sha256_matches": hashlib.sha256(output.read_bytes()).hexdigest() == recorded.sha256,
            "first": json.loads(lines[0]) if lines else None,
        }

    step("export", export)
    step("reviewed", _reviewed_release)
    step("locked_heartbeat", _locked_heartbeat)
    return outcome


def _reviewed_release() -> dict:
    """A reviewed release of the same dataset on SQLite: half of the templates approved, and
    tuples, context sets and a pair in several review states; returns what was taken."""
    from apps.catalog.models import (
        Category,
        ContextSentence,
        ContextSet,
        Dataset,
        Instance,
        SentencePair,
        StereotypeTuple,
        Template,
        TemplateVersion,
    )
    from apps.catalog.services import dataset_instantiate
    from apps.releases.services import release_create, release_file_path

    dataset = Dataset.objects.get(name="bbq-sqlite")
    # A second template, left in draft, next to the imported one, which is approved.
    version = TemplateVersion.objects.get(template__dataset=dataset)
    approved = [version.pk]
    TemplateVersion.objects.filter(pk=version.pk).update(status="approved")
    draft = TemplateVersion.objects.get(pk=version.pk)
    draft.pk, draft.status = None, "draft"
    draft.template = Template.objects.create(
        dataset=dataset, external_id="draft-copy", category=version.template.category
    )
    draft.save()
    dataset_instantiate(dataset=dataset)
    # Two Marathi translations of approved instances: one passed, one flagged.
    for status, original in zip(
        ("passed", "flagged"),
        Instance.objects.filter(template_version=version).order_by("id")[:2],
        strict=True,
    ):
        original.pk, original.language = None, "mr"
        original.source_instance_id = Instance.objects.filter(template_version=version).first().pk
        original.review = {"status": status, "similarity": 0.9, "revision": 1}
        original.save()
    category, _ = Category.objects.get_or_create(name="Religion")
    for term, votes in (("Marwari", [1, 1, 0]), ("Bengali", [1, 0, 0]), ("Tamil", [])):
        StereotypeTuple.objects.create(
            dataset=dataset, category=category, identity_term=term, attribute="x", votes=votes
        )
    SentencePair.objects.create(
        dataset=dataset,
        external_id="p1",
        category=category,
        sent_more="a",
        sent_less="b",
        direction="stereo",
    )
    passed = ContextSet.objects.create(dataset=dataset, external_id="s1", category=category)
    half = ContextSet.objects.create(dataset=dataset, external_id="s2", category=category)
    for context_set, kind, text, tier, decision in (
        (passed, "stereotype", "kept", "social_science", "keep"),
        (passed, "stereotype", "dropped", "social_science", "drop"),
        (passed, "anti_stereotype", "fixed ✓", "social_science", "fix"),
        (half, "stereotype", "waiting", "language", "keep"),
        (half, "anti_stereotype", "kept too", "social_science", "keep"),
    ):
        ContextSentence.objects.create(
            context_set=context_set,
            kind=kind,
            text=text,
            review_tier=tier,
            review_decision=decision,
        )
    release = release_create(dataset=dataset)
    again = release_create(dataset=dataset)

    def rows(kind):
        """The kind's JSONL rows, or None when the release has no file for it (a kind with no
        rows gets none)."""
        release_file = release.files.filter(kind=kind, format="jsonl").first()
        if release_file is None:
            return None
        with release_file_path(release_file=release_file).open(encoding="utf-8") as lines:
            return [json.loads(line) for line in lines]

    return {
        "content": release.content,
        "number": release.number,
        "total": release.counts["total"],
        "approved_instances": Instance.objects.filter(
            template_version_id__in=approved, retired_at__isnull=True
        ).count(),
        "languages": sorted({r["language"] for r in rows("instances")}),
        "live_instances": Instance.objects.filter(dataset=dataset, retired_at__isnull=True).count(),
        "excluded": release.counts["excluded"],
        "review_status": sorted(
            {r["additional_metadata"]["review_status"] for r in rows("instances")}
        ),
        "tuples": [r["identity_term"] for r in rows("tuples")],
        "sentence_pairs": rows("sentence_pairs"),
        "context_sets": rows("context_sets"),
        "identical_returns_latest": again.pk == release.pk,
    }


def _wait_for(condition, *, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


def _locked_heartbeat() -> dict:
    """A job whose work holds SQLite's write lock for 4x the stale limit, with a watchdog
    running beside it: its heartbeat cannot reach the Job row meanwhile (its heartbeat file
    can), and the watchdog must neither re-queue it nor wait for the lock to decide."""
    import threading
    from datetime import timedelta

    from django.db import connections, transaction
    from django.utils import timezone

    from apps.catalog.models import Dataset
    from apps.core.heartbeat import Heartbeat, heartbeat_file
    from apps.core.models import Job
    from apps.core.services import job_create, job_start
    from apps.core.watchdog import jobs_recover

    dataset = Dataset.objects.get(name="bbq-sqlite")
    job = job_create(kind="instantiate", params={"dataset_id": dataset.pk}, unit="instances")
    job_start(job_id=job.pk)
    passes: list[tuple[float, dict]] = []  # (when the pass ended, its outcome)
    stop = threading.Event()

    def watchdog() -> None:  # a second worker's watchdog: stale after 1 s
        try:
            while not stop.is_set():
                outcome = jobs_recover(stale_after=timedelta(seconds=1))
                passes.append((time.monotonic(), outcome))
                stop.wait(0.1)
        finally:
            connections.close_all()

    watcher = threading.Thread(target=watchdog)
    path = heartbeat_file(job_id=job.pk)
    with Heartbeat(job_id=job.pk, interval=0.2) as beat:
        with transaction.atomic():  # the work: one long transaction holding the write lock
            Job.objects.filter(pk=job.pk).update(title="locked heartbeat")
            watcher.start()
            locked_at = time.monotonic()
            while time.monotonic() - locked_at < 4:
                beat.report(1, 2)
                time.sleep(0.1)
            file_alive = path is not None and path.exists()
            unlocked_at = time.monotonic()
        released = timezone.now()
        _wait_for(
            lambda: Job.objects.get(pk=job.pk).heartbeat_at > released,
            what="the heartbeat to reach the Job row after the lock",
        )
        seen = len(passes)
        _wait_for(lambda: len(passes) >= seen + 2, what="two more watchdog passes")
    stop.set()
    watcher.join()
    job = Job.objects.get(pk=job.pk)
    return {
        # Passes that ended while the job was stale in the database and still held the lock.
        "passes_while_stale_and_locked": sum(
            1 for ended, _ in passes if locked_at + 2 < ended < unlocked_at
        ),
        "requeued": sorted({i for _, p in passes for i in p["requeued"] + p["failed"]}),
        "recoveries": job.recoveries,
        "status": job.status,
        "progress_done": job.progress_done,
        "file_alive_while_locked": file_alive,
        "file_removed_after": path is not None and not path.exists(),
    }


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1])), ensure_ascii=False))
