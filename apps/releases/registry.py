"""What the apps above the releases app tell a release about (issue 22): the sections of its
dataset card, the steps of an instance's provenance and the reasons a changelog gives.

The releases app sits below annotation, translation and the survey app (docs/architecture.md)
and never imports them; they register these objects from their AppConfig.ready(), as they
register job kinds with core. The releases app registers its own (composition, the catalog's
part of provenance, the changelog) the same way. Each registry lets a test register a
throwaway object and remove it again.

* CardSection: figures read from the database at release time (`facts`, stored in the
  release's card.json) and the Markdown written from them (`render`, a pure function of the
  facts, so the card can be rebuilt from card.json alone and a test can compare figures).
* ProvenanceStep: one link of an instance's chain (`collect`: JSON-able data, or None when the
  step does not apply, e.g. translation for an original instance), shown on the provenance
  page by its own template.
* ChangeReason: why an instance of release N differs from release N-1 (`applies`: a test on
  the old and new rows of the changelog; the first registered reason that applies, by
  `order`, is the one given).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# The datasheet's parts (Gebru et al., "Datasheets for Datasets"), in card order. A section
# names the part it belongs to; the card writes a part's heading once, before its sections.
CARD_PARTS: dict[str, str] = {
    "summary": "Dataset summary",
    "composition": "Composition",
    "collection": "Collection process",
    "preprocessing": "Preprocessing",
    "annotation": "Annotation",
    "findings": "Findings still open",
    "changes": "Changes since the previous release",
    "uses": "Uses",
    "limitations": "Limitations",
    "ethics": "Ethical considerations",
    "citation": "Citation",
}


@dataclass(frozen=True)
class CardContext:
    """What a section's `facts` may look at: the release being made (its membership is
    written, its files are in `directory`), the previous release of the dataset (or None) and
    the changelog against it (the dict apps.releases.changelog writes to changelog.json)."""

    release: Any  # apps.releases.models.Release
    previous: Any | None
    changelog: dict[str, Any]
    directory: Any  # pathlib.Path of the release's files being written


@dataclass(frozen=True)
class CardSection:
    name: str  # unique; the key of its facts in card.json
    part: str  # a key of CARD_PARTS
    order: int  # within the part
    facts: Callable[[CardContext], dict[str, Any] | None]  # None or {}: the section is left out
    render: Callable[[dict[str, Any]], str]  # Markdown (no heading of the part; ### for its own)


@dataclass(frozen=True)
class ProvenanceStep:
    name: str  # unique; the key of its data in the API's answer
    title: str  # shown as the step's heading on the page
    order: int  # concept (10) -> template (20) -> vocabulary (30) -> translation (40) ->
    #             validation (50) -> releases (90)
    collect: Callable[[Any], dict[str, Any] | None]  # Instance -> data, or None: not applicable
    template: str  # renders `data` (and `instance`) on the provenance page


@dataclass(frozen=True)
class ChangeReason:
    name: str  # e.g. "correction"; the key in the changelog
    label: str  # e.g. "Correction of a flagged translation"
    order: int
    # (change, old, new) -> bool; change is "added", "removed" or "changed"; old/new are the
    # changelog's instance rows (dicts, see apps.releases.changelog), None where absent.
    applies: Callable[[str, dict[str, Any] | None, dict[str, Any] | None], bool]
    # Optional: one line about one case, e.g. "corrected by annotator-3 on 2026-11-27".
    detail: Callable[[dict[str, Any] | None, dict[str, Any] | None], str] | None = None


@dataclass
class _Registry:
    kind: str
    objects: dict[str, Any] = field(default_factory=dict)

    def register(self, obj: Any) -> Any:
        existing = self.objects.get(obj.name)
        if existing is not None and existing != obj:
            raise ValueError(f"{self.kind} {obj.name!r} is already registered")
        self.objects[obj.name] = obj
        return obj

    def unregister(self, name: str) -> None:
        self.objects.pop(name, None)

    def ordered(self) -> list[Any]:
        return sorted(self.objects.values(), key=lambda obj: (obj.order, obj.name))

    def get(self, name: str) -> Any:
        try:
            return self.objects[name]
        except KeyError:
            raise KeyError(
                f"unknown {self.kind} {name!r}; registered: {', '.join(sorted(self.objects))}"
            ) from None


_SECTIONS = _Registry("card section")
_STEPS = _Registry("provenance step")
_REASONS = _Registry("change reason")


def card_section_register(section: CardSection) -> CardSection:
    if section.part not in CARD_PARTS:
        raise ValueError(f"card section {section.name!r}: unknown part {section.part!r}")
    return _SECTIONS.register(section)


def card_section_unregister(name: str) -> None:
    _SECTIONS.unregister(name)


def card_sections() -> list[CardSection]:
    """In card order: by part (CARD_PARTS), then order within the part."""
    parts = list(CARD_PARTS)
    return sorted(_SECTIONS.objects.values(), key=lambda s: (parts.index(s.part), s.order, s.name))


def card_section_get(name: str) -> CardSection:
    return _SECTIONS.get(name)


def provenance_step_register(step: ProvenanceStep) -> ProvenanceStep:
    return _STEPS.register(step)


def provenance_step_unregister(name: str) -> None:
    _STEPS.unregister(name)


def provenance_steps() -> list[ProvenanceStep]:
    return _STEPS.ordered()


def change_reason_register(reason: ChangeReason) -> ChangeReason:
    return _REASONS.register(reason)


def change_reason_unregister(name: str) -> None:
    _REASONS.unregister(name)


def change_reasons() -> list[ChangeReason]:
    return _REASONS.ordered()


def change_reason_get(name: str) -> ChangeReason:
    return _REASONS.get(name)
