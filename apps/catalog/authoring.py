"""The authoring studio's live preview of a template content (docs/studio/authoring.md).

`template_preview` reads a content dict (TemplateVersion's content fields, placeholders as lists
or vocabulary references) and writes nothing: the exact number of instances (the generator's
own `count`, never an enumeration), the first instances drawn lazily from the generator (only
what is shown), and the findings by field. The findings are defined elsewhere, once:

* errors: `services.template_problems` (the generator's checks and a missing unknown answer),
  which is what refuses approval of a saved version;
* warnings: what the importers report that is not an error for the template's generator: the
  checks of Kasauti's rules (instantiation.validate_template) that a benchmark's own generator
  tolerates (BharatBBQ's unused placeholder, no disambiguation, ...: its reader's findings);
  braced tokens that are no placeholder (importers.values.unknown_placeholders, as
  importers.templates.finish_template reports them); and answers whose roles a reader of the
  written instances could not tell from answer_info and the stereotyped groups
  (importers.layouts.roles_from_answer_info, ROLES_UNCLEAR).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from apps.core.errors import KasautiError
from apps.core.text import nfc_deep

from . import generators, instantiation, selectors
from .importers.layouts import ROLES_UNCLEAR, roles_from_answer_info
from .importers.values import unknown_placeholders
from .models import TemplateVersion, UnknownExpression
from .services.templates import (
    TEMPLATE_CONTENT_FIELDS,
    template_problems,
    template_vocabulary_resolve,
)

# How many instances the preview shows (issue 21: "the first dozen").
PREVIEW_INSTANCES = 12
ERROR, WARNING = "error", "warning"
# Shown as the unknown option when the language has none yet (an error finding says so).
NO_UNKNOWN = "[no unknown answer defined for this language]"


@dataclass
class Preview:
    count: int | None  # exact number of instances the content produces; None if it cannot
    axes: list[dict[str, Any]]  # [{"name": "NAME1", "size": 100}, ...] (the cross product)
    per_combination: int  # instances per combination of values (4, or 12 with permutations)
    instances: list[dict[str, Any]]
    findings: list[dict[str, str]] = field(default_factory=list)  # {"field","level","message"}
    language: str = "en"

    @property
    def errors(self) -> list[dict[str, str]]:
        return [f for f in self.findings if f["level"] == ERROR]

    def as_dict(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "axes": self.axes,
            "per_combination": self.per_combination,
            "language": self.language,
            "instances": self.instances,
            "findings": self.findings,
            "error_count": len(self.errors),
            "warning_count": len(self.findings) - len(self.errors),
        }


def content_resolved(content: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """The content with its vocabulary references resolved; a reference that cannot be (no
    such vocabulary, no entries of those groups) is an error finding on its placeholder, and
    that placeholder is left out. The content given is not changed."""
    content = dict(content)
    placeholders = dict(content.get("placeholders") or {})
    findings: list[dict[str, str]] = []
    for name, spec in list(placeholders.items()):
        if not isinstance(spec, dict):
            continue
        try:
            one = template_vocabulary_resolve(
                content={"language": content.get("language", "en"), "placeholders": {name: spec}}
            )
        except KasautiError as error:
            findings.append({"field": name, "level": ERROR, "message": str(error)})
            del placeholders[name]
            continue
        placeholders[name] = one["placeholders"][name]
        content["placeholder_groups"] = {
            **(content.get("placeholder_groups") or {}),
            name: one["placeholder_groups"][name],
        }
    return {**content, "placeholders": placeholders}, findings


def _spec(content: dict[str, Any], template_id: str) -> instantiation.TemplateSpec:
    version = TemplateVersion(**{k: v for k, v in content.items() if k in TEMPLATE_CONTENT_FIELDS})
    return selectors.template_version_spec(version=version, template_id=template_id)


def _warnings(content: dict[str, Any], spec: instantiation.TemplateSpec) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    if spec.generator != "kasauti":
        # Kasauti's rules that this benchmark's generator tolerates: its reader's findings.
        tolerated = {(p.field, p.message) for p in instantiation.validate_template(spec)}
        tolerated -= {(p.field, p.message) for p in generators.validate(spec)}
        out += [{"field": f, "level": WARNING, "message": m} for f, m in sorted(tolerated)]
    for name in TemplateVersion.TEXT_FIELDS:
        for token in unknown_placeholders(content.get(name) or ""):
            out.append(
                {
                    "field": name,
                    "level": WARNING,
                    "message": f"unknown placeholder {token}: use NAMEn or WORDn",
                }
            )
    return out


def _roles_warning(
    combination: instantiation.Combination, stereotyped: list[str], *, generator: str
) -> dict[str, str] | None:
    """ROLES_UNCLEAR when the written answer_info and the stereotyped groups do not single out
    the stereotyped option, as the instance readers judge a published row; a clear reading
    that names another option than the template's target is a warning too."""
    # EsBBQ's answer_info groups read "F, árabe": its reader takes the group after the comma.
    roles, clear = roles_from_answer_info(
        combination.answer_info, stereotyped, group_after_comma=generator == "esbbq"
    )
    if not clear:
        _, message = ROLES_UNCLEAR
        return {
            "field": "stereotyped_groups",
            "level": WARNING,
            "message": f"{message}: list the target group's label (or value) here",
        }
    if tuple(roles) != tuple(combination.option_roles):
        return {
            "field": "stereotyped_groups",
            "level": WARNING,
            "message": "the stereotyped groups name the other NAME's answer than the target "
            "placeholder: a reader of the written instances would swap the roles",
        }
    return None


def _instance_rows(combinations) -> Iterator[tuple[instantiation.Combination, dict[str, Any]]]:
    """Each instance of the combinations, lazily, with the combination it belongs to."""
    for combo in combinations:
        for order, condition, polarity, pairing, context, question, label in combo.variants:
            yield (
                combo,
                {
                    "combination": combo.index,
                    "name_order": order,
                    "context_condition": condition,
                    "question_polarity": polarity,
                    "pairing": pairing,
                    "context": context,
                    "question": question,
                    "answers": list(combo.answers),
                    "option_roles": list(combo.option_roles),
                    "label": label,
                },
            )


def template_preview(
    *,
    content: dict[str, Any],
    permutations: bool = False,
    template_id: str = "preview",
    limit: int = PREVIEW_INSTANCES,
) -> Preview:
    """The preview of a content (see the module docstring). Reads vocabularies and unknown
    expressions; writes nothing."""
    content = nfc_deep(dict(content))
    content.pop("problems", None)
    unknown = set(content) - set(TEMPLATE_CONTENT_FIELDS)
    if unknown:
        raise KasautiError(f"unknown template field(s): {', '.join(sorted(unknown))}")
    content, findings = content_resolved(content)
    spec = _spec(content, template_id)
    findings += [{**p, "level": ERROR} for p in template_problems(content=content)]
    findings += _warnings(content, spec)
    language = spec.language
    axes = [
        {"name": axis, "size": len(spec.placeholders.get(axis) or [])}
        for axis in instantiation.template_axes(spec.placeholders)
    ]
    per_combination = 12 if permutations else 4
    try:
        count: int | None = generators.count(spec, permutations=permutations)
    except (KeyError, ValueError, TypeError, IndexError):
        count = None
    instances: list[dict[str, Any]] = []
    unknowns = list(
        UnknownExpression.objects.filter(language=language).values_list("text", flat=True)
    ) or [NO_UNKNOWN]
    try:
        combinations = generators.combinations(spec, unknowns, permutations=permutations)
        # Only what is shown is drawn: the generator is lazy, islice stops it.
        shown = list(islice(_instance_rows(combinations), limit))
    except (KeyError, ValueError, TypeError, IndexError, AttributeError):
        shown = []  # an error finding says why (an undefined placeholder, no NAME values)
    if shown:
        instances = [row for _, row in shown]
        stereotyped = [str(group) for group in content.get("stereotyped_groups") or []]
        warning = _roles_warning(shown[0][0], stereotyped, generator=spec.generator)
        if warning:
            findings.append(warning)
    return Preview(
        count=count,
        axes=axes,
        per_combination=per_combination,
        instances=instances,
        findings=findings,
        language=language,
    )
