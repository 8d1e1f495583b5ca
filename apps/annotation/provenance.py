"""What the annotation app tells a release's instance provenance
(apps/releases/registry.py, issue 22): the validation judgements on the instance's template
version and its adjudication, and the adequacy/fluency judgements on its translated strings,
annotators pseudonymised."""

from __future__ import annotations

from typing import Any

from apps.catalog.models import Instance
from apps.releases.registry import ProvenanceStep, provenance_step_register

from .selectors_release import instance_annotation


def collect(instance: Instance) -> dict[str, Any] | None:
    return instance_annotation(instance=instance)


STEP = ProvenanceStep(
    name="validation",
    title="Validation and adjudication",
    order=50,
    collect=collect,
    template="annotation/_provenance.html",
)


def register() -> None:
    """Called from the app's ready()."""
    provenance_step_register(STEP)
