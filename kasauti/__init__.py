"""Kasauti: a workbench for culturally adapted, multilingual social-bias benchmarks."""

# Importing the Celery app here makes @shared_task bind to it whenever Django starts.
from worker.celery_app import app as celery_app

__all__ = ["celery_app"]
