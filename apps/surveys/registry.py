"""What the survey app registers at start-up: its kinds of background job and its import
formats (Google Forms and Typeform CSV exports). Called from SurveysConfig.ready()."""

from __future__ import annotations


def register() -> None:
    from apps.core.registry import job_kind_register

    from .importers import register as importers_register
    from .jobs import JOB_KINDS

    for kind in JOB_KINDS:
        job_kind_register(kind)
    importers_register()
