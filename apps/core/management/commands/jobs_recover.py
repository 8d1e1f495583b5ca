from datetime import timedelta

from django.core.management.base import BaseCommand

from apps.core.watchdog import jobs_recover


class Command(BaseCommand):
    help = (
        "Re-queue jobs whose worker died (no heartbeat for --stale seconds), or fail them with "
        "the reason after too many recoveries. Workers do this themselves every few seconds; "
        "the command is for cron or after restarting all workers."
    )

    def add_arguments(self, parser):
        parser.add_argument("--stale", type=int, default=None, help="seconds without heartbeat")
        parser.add_argument(
            "--queued", action="store_true", help="also re-queue jobs queued for that long"
        )

    def handle(self, *args, stale, queued, **options):
        outcome = jobs_recover(
            stale_after=timedelta(seconds=stale) if stale is not None else None,
            include_queued=queued,
        )
        self.stdout.write(
            f"re-queued: {outcome['requeued'] or 'none'}; failed: {outcome['failed'] or 'none'}"
        )
