"""Re-queue the unfinished work of translation jobs that show no progress (run from cron)."""

from __future__ import annotations

from datetime import timedelta

from django.core.management.base import BaseCommand

from apps.translation.services import translation_jobs_resume_stale


class Command(BaseCommand):
    help = "Resume translation jobs with no progress for --older-than seconds (default: setting)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--older-than", type=int, default=None, help="Seconds.")

    def handle(self, *args, older_than: int | None = None, **options) -> None:
        resumed = translation_jobs_resume_stale(
            older_than=timedelta(seconds=older_than) if older_than is not None else None
        )
        self.stdout.write(f"resumed {len(resumed)} job(s): {resumed}")
