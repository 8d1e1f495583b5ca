"""The one filter convention of every API list (docs/api.md, "Filters").

A filter that names another object (`dataset`, `category`, `template`, `job`, ...) takes its
id, or its name where names are unique. A value made of digits is an id (and, when no object
has that id, a name: a dataset may be called "2024"). A value that names nothing is a 400
that says so, never an empty 200: an empty page would look like "no data" when the request
was wrong.
"""

from __future__ import annotations

import copy

import django_filters
from django import forms
from django.db import models
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework.exceptions import ValidationError

# Ids are bigints: a longer run of digits cannot be an id (and would overflow the query).
_MAX_ID = 2**63 - 1


class ReferenceNotFound(Exception):
    """The value names no object, or (by a non-unique name) more than one."""


def reference_lookup(model: type[models.Model], value: str, *, name_field: str | None = None):
    """The object `value` refers to (id, or name when exactly one object has it)."""
    value = value.strip()
    noun = model._meta.verbose_name
    if "\x00" in value:  # PostgreSQL text cannot hold NUL; it can name nothing
        raise ReferenceNotFound(f"the {noun} reference contains a NUL character")
    if value.isascii() and value.isdigit() and int(value) <= _MAX_ID:
        found = model._default_manager.filter(pk=int(value)).first()
        if found is not None:
            return found
    if not name_field:
        raise ReferenceNotFound(f"no {noun} has the id {value!r}")
    label = name_field.replace("_", " ")
    matches = list(model._default_manager.filter(**{name_field: value})[:2])
    if not matches:
        raise ReferenceNotFound(f"no {noun} has the id or {label} {value!r}")
    if len(matches) > 1:
        raise ReferenceNotFound(
            f"several {model._meta.verbose_name_plural} have the {label} {value!r}; use the id"
        )
    return matches[0]


class ReferenceField(forms.CharField):
    def __init__(self, *, model: type[models.Model], name_field: str | None = None, **kwargs):
        self.model = model
        self.name_field = name_field
        super().__init__(**kwargs)

    def clean(self, value):
        value = super().clean(value)
        if value in self.empty_values:
            return None
        try:
            return reference_lookup(self.model, value, name_field=self.name_field)
        except ReferenceNotFound as error:
            # As a parameter: django-filter %-formats the message, and the value may hold "%".
            raise forms.ValidationError("%(reason)s", params={"reason": str(error)}) from None


@extend_schema_field(OpenApiTypes.STR)
class ReferenceFilter(django_filters.Filter):
    """`?dataset=3` or `?dataset=demo`: filters on the object; unknown -> 400."""

    field_class = ReferenceField

    def __init__(self, *, model: type[models.Model], name_field: str | None = "name", **kwargs):
        kwargs.setdefault("help_text", "Id" + (f" or {name_field}" if name_field else ""))
        super().__init__(model=model, name_field=name_field, **kwargs)

    def filter(self, qs, value):
        if value is None:
            return qs
        return qs.filter(**{self.field_name: value})


class _FilterCopies(dict):
    """A FilterSet's base_filters, copied for each FilterSet by copy.copy instead of the
    deep copy django-filter makes (every filter's arguments and choices, again, on every
    request). Each FilterSet still gets filters of its own, whose `parent` it sets; a method
    filter's FilterMethod is made anew so that it finds the method on that parent."""

    def __deepcopy__(self, memo):
        copies = {}
        for name, filter_ in self.items():
            clone = copy.copy(filter_)
            if clone.method is not None:
                clone.method = clone.method  # the setter makes a FilterMethod of the clone
            copies[name] = clone
        return copies


class _SharedFields(dict):
    """A form's base_fields that its instances use as they are: Form.__init__ deep-copies
    base_fields so that one form may change its own fields (a queryset, a label); the
    filter forms of CachedFormFilterSet never do, and only read them."""

    def __deepcopy__(self, memo):
        return dict(self)


class CachedFormFilterSet(django_filters.FilterSet):
    """A FilterSet whose form class is built once per FilterSet class, not on every request.

    django-filter builds a new Form class from the filters on each request (its fields made
    afresh from deep copies of every filter): on a hot list (the instance API, P9) that was
    a millisecond per request. A Form instance deep-copies its class's fields, so sharing the
    class is safe as long as the filters' fields do not depend on the request (no
    request-dependent querysets): only for such FilterSets."""

    @classmethod
    def get_filters(cls):
        return _FilterCopies(super().get_filters())

    @classmethod
    def _shared_form_class(cls, build):
        form = cls.__dict__.get("_shared_form")
        if form is None:
            form = build()
            # Each form still deep-copies these fields (nine fields, widgets and choices: a
            # tenth of a millisecond per request): they are read-only here, so a form
            # shares them.
            form.base_fields = _SharedFields(form.base_fields)
            cls._shared_form = form
        return form

    def get_form_class(self):
        return self._shared_form_class(super().get_form_class)


def reference_param(
    params, key: str, model: type[models.Model], *, name_field: str | None = None
) -> models.Model | None:
    """The same convention for views that read their query parameters themselves."""
    value = params.get(key, "")
    if not value:
        return None
    try:
        return reference_lookup(model, value, name_field=name_field)
    except ReferenceNotFound as error:
        raise ValidationError({key: [str(error)]}) from None


def choice_param(params, key: str, choices: list[str]) -> str:
    """An enumerated query parameter: empty, or one of `choices` (else 400)."""
    value = params.get(key, "")
    if value and value not in choices:
        raise ValidationError({key: [f"{value!r} is not one of: {', '.join(choices)}"]})
    return value
