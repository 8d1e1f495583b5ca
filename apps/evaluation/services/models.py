"""The model registry: entries researchers add (a local directory or an endpoint)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

from apps.core.errors import ConflictError, KasautiError
from apps.core.text import nfc

from ..models import ModelEntry, ModelKind, endpoint_problem

FIELDS = ("name", "kind", "path", "endpoint_url", "endpoint_model", "dtype", "device", "notes")
DTYPES = ("float32", "float16", "bfloat16", "auto")


def model_path_problem(*, path: str) -> str | None:
    """Why `path` is not a model directory under KASAUTI_MODEL_ROOT (None: it is). Decided
    from the text alone, so the answer says nothing about what exists elsewhere."""
    root = os.path.normpath(str(settings.KASAUTI_MODEL_ROOT))
    rule = (
        "a local model path must be relative to KASAUTI_MODEL_ROOT, or an absolute path "
        f"inside it ({root}), without '..' or '~'"
    )
    if path.startswith("~") or ".." in Path(path).parts or "\x00" in path:
        return rule
    if os.path.isabs(path):
        normalised = os.path.normpath(path)
        if normalised != root and not normalised.startswith(root.rstrip(os.sep) + os.sep):
            return rule
    return None


def _validated(values: dict[str, Any]) -> dict[str, Any]:
    values = {k: nfc(v.strip()) if isinstance(v, str) else v for k, v in values.items()}
    kind = values.get("kind")
    if kind not in ModelKind.values:
        raise KasautiError(f"kind must be one of {', '.join(ModelKind.values)}")
    if not values.get("name"):
        raise KasautiError("a model needs a name")
    if kind == ModelKind.ENDPOINT:
        if not values.get("endpoint_url"):
            raise KasautiError("an endpoint model needs endpoint_url (…/v1)")
        problem = endpoint_problem(url=values["endpoint_url"])
        if problem:
            raise KasautiError(problem)
    elif not values.get("path"):
        raise KasautiError(
            "a local model needs a path (absolute, or relative to KASAUTI_MODEL_ROOT)"
        )
    else:
        problem = model_path_problem(path=values["path"])
        if problem:
            raise KasautiError(problem)
    if values.get("dtype", "float32") not in DTYPES:
        raise KasautiError(f"dtype must be one of {', '.join(DTYPES)}")
    return values


def model_entry_create(*, created_by=None, **values: Any) -> ModelEntry:
    values = _validated({k: v for k, v in values.items() if k in FIELDS})
    with transaction.atomic():
        if ModelEntry.objects.filter(name=values["name"]).exists():
            raise ConflictError(f"a model named {values['name']!r} already exists")
        return ModelEntry.objects.create(
            created_by=created_by if getattr(created_by, "pk", None) else None, **values
        )


def model_entry_update(*, entry: ModelEntry, **values: Any) -> ModelEntry:
    current = {field: getattr(entry, field) for field in FIELDS}
    current.update({k: v for k, v in values.items() if k in FIELDS})
    current = _validated(current)
    with transaction.atomic():
        if ModelEntry.objects.filter(name=current["name"]).exclude(pk=entry.pk).exists():
            raise ConflictError(f"a model named {current['name']!r} already exists")
        for field, value in current.items():
            setattr(entry, field, value)
        entry.save()
    return entry


def model_entry_delete(*, entry: ModelEntry) -> None:
    if entry.runs.exists():
        raise ConflictError(
            f"model {entry.name!r} has {entry.runs.count()} run(s); their results name it, "
            "so it cannot be deleted"
        )
    with transaction.atomic():
        entry.delete()
