"""The Celery application.

Plain Python on purpose: no Django import happens here. Celery's Django fix-up sets Django up
in the worker because DJANGO_SETTINGS_MODULE is set, and settings are read lazily through the
"django.conf:settings" string.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kasauti.settings.dev")

app = Celery("kasauti")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Task modules are listed explicitly so that the worker never scans packages it does not own.
app.autodiscover_tasks(
    [
        "apps.core",
        "apps.catalog",
        "apps.releases",
        "apps.translation",
        "apps.evaluation",
        "apps.surveys",
    ]
)
