"""What the translation app tells a release's instance provenance
(apps/releases/registry.py, issue 22): for a translated instance, the English instance it was
made from, the models and their versions, every string's translation, back-translation and
cosine, the threshold and verdict it carries, and the human corrections (pseudonymised)."""

from __future__ import annotations

from typing import Any

from apps.catalog.models import Instance
from apps.releases.registry import ProvenanceStep, provenance_step_register

from .selectors_release import (
    MODEL_NAMES,
    instance_corrections,
    instance_source,
    instance_strings,
)


def collect(instance: Instance) -> dict[str, Any] | None:
    """The translation link of `instance`'s chain; None for an original (untranslated) one.
    A handful of indexed lookups: the source row, its ambiguous sibling, the strings by the
    cache's unique key, the correction items and their revisions."""
    if not instance.source_instance_id:
        return None
    source = instance_source(instance=instance)
    # Copies: the list is kept on the instance for the validation step, unannotated.
    strings = [dict(s) for s in instance_strings(instance=instance, source=source)]
    review = instance.review or {}
    threshold = review.get("threshold")
    for string in strings:
        cosine = string["cosine"]
        string["passed"] = (
            None if cosine is None or threshold is None else bool(cosine >= threshold)
        )
    return {
        "source": None if source is None else {"id": source["id"], "language": source["language"]},
        "language": instance.language,
        "models": [
            {"role": role, "name": MODEL_NAMES[role], "version": review.get(key, "")}
            for role, key in (
                ("forward", "forward_model_version"),
                ("backward", "backward_model_version"),
                ("embedder", "embedder_version"),
            )
        ],
        "threshold": threshold,
        "status": review.get("status", ""),
        "lowest_cosine": review.get("similarity"),
        "revision": review.get("revision", 1),
        "replaces": review.get("replaces"),
        "strings": strings,
        "corrections": instance_corrections(instance=instance, strings=strings),
    }


STEP = ProvenanceStep(
    name="translation",
    title="Translation",
    order=40,
    collect=collect,
    template="translation/_provenance.html",
)


def register() -> None:
    """Called from the app's ready()."""
    provenance_step_register(STEP)
