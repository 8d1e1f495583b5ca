"""Campaign kinds: what differs between a template validation, a translation scoring, a tuple
vote... is said once, by one registered object per kind, and the services, selectors, pages and
templates ask that object instead of switching on the kind's name.

A kind says:

* what is judged: the CampaignItem field it targets, and how items are sampled (`targets`);
* what a judgement looks like: its fields with their labels (for agreement), the form that
  collects it (`work_template`, `form_fields`, `keys_hint`, `guidelines_template`) and how
  it is validated (`clean`);
* what the judgements of an item add up to (`outcome`), and what that changes in the catalog
  (`on_outcome`), and what an adjudicator's verdict does (`decide`);
* which reports read it (`feeds_calibration`, `feeds_table3`, `shows_tuple_votes`).

Kinds are registered from AnnotationConfig.ready(); an unknown kind is an error, never a
silent fallback. The model keeps its TextChoices (`models.CampaignKind`) as the database's list
of values; ready() checks that each of them is registered.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from apps.core.errors import KasautiError

from ..models import Decision, ItemStatus
from ..rules import InvalidJudgement, Outcome, form_text

if TYPE_CHECKING:
    from apps.catalog.models import Dataset, TemplateVersion

    from ..models import Campaign, CampaignItem


class Kind:
    """The base of every campaign kind. A subclass sets the attributes and implements
    `clean`, `outcome` and `targets`; the hooks default to doing nothing."""

    name: str = ""
    label: str = ""
    # The CampaignItem foreign key an item of this kind sets (template_version, ...).
    target: str = ""
    default_annotators: int = 2
    # The judged fields: name -> (every label it can take, whether the labels are ordinal).
    # Agreement is computed per field over the full label set.
    fields: dict[str, tuple[Sequence[Any], bool]] = {}
    # Fields pooled into one "overall" agreement (BharatBBQ §3.7 pools its criteria); empty:
    # no overall figure.
    pooled_fields: tuple[str, ...] = ()
    # How pages name a judged field (agreement tables); a field without one shows its code.
    field_labels: dict[str, str] = {}
    # The names the work form posts, read by answers_from_form.
    form_fields: tuple[str, ...] = ()
    # The item and its form on the work page; the guidelines beside it; the keys under it.
    work_template: str = ""
    guidelines_template: str = ""
    keys_hint: str = ""
    # Reports: the threshold calibration reads its adequacy scores; Table 3 (and the dashboard's
    # link to it) is made of its campaigns; the dashboard lists its tuples' votes.
    feeds_calibration: bool = False
    feeds_table3: bool = False
    shows_tuple_votes: bool = False

    def __repr__(self) -> str:
        return f"<campaign kind {self.name}>"

    # --- judgements ---

    def answers_clean(self, answers: Any) -> dict[str, Any]:
        """Validate one judgement's answers; return the stored form. Raises InvalidJudgement
        naming the field."""
        if not isinstance(answers, dict):
            raise InvalidJudgement("answers: expected an object")
        return self.clean(answers)

    def clean(self, answers: dict[str, Any]) -> dict[str, Any]:
        """Validate one judgement's answers (a dict); return the stored form. Raises
        rules.InvalidJudgement naming the field."""
        raise NotImplementedError

    def answers_from_form(self, data: Any) -> dict[str, Any]:
        """The answers of an HTML form post (QueryDict), in the shape `clean` expects."""
        return {name: form_text(data, name) for name in self.form_fields}

    def work_context(self) -> dict[str, Any]:
        """What `work_template` needs besides the item (scales, criteria)."""
        return {}

    def field_label(self, field: str) -> str:
        return self.field_labels.get(field, field)

    def outcome(self, *, item: CampaignItem, answers: Sequence[dict[str, Any]]) -> Outcome:
        """What the complete set of an item's judgements (one per annotator) decides."""
        raise NotImplementedError

    def on_outcome(self, *, item: CampaignItem, campaign: Campaign, outcome: Outcome) -> None:
        """What a decided item changes outside the campaign (caller holds the item's lock)."""

    # --- campaigns ---

    def targets(
        self, *, dataset: Dataset, language: str, sample_size: int, seed: int, tier: str
    ) -> tuple[list[dict[str, Any]], str]:
        """The things to judge, as CampaignItem field values plus "language" (which annotators
        can judge it), and why there are none when there are none. Raises KasautiError for
        parameters the kind refuses."""
        raise NotImplementedError

    def on_created(self, *, targets: list[dict[str, Any]]) -> None:
        """What creating the campaign changes outside it (inside its transaction)."""

    # --- adjudication ---

    def decide(
        self, *, item: CampaignItem, verdict: str, changes: dict[str, Any], note: str, decided_by
    ) -> TemplateVersion | None:
        """An adjudicator's verdict on an item (caller holds its lock and saves its status and
        outcome); returns the new template version an edit made, if any."""
        if verdict == Decision.Verdict.EDIT:
            raise KasautiError("verdict: only templates and sentences can be edited here")
        item.status = (
            ItemStatus.APPROVED if verdict == Decision.Verdict.APPROVE else ItemStatus.REJECTED
        )
        return None

    def judgement_columns(self) -> list[tuple[str, str]]:
        """The adjudication page's columns of an annotator's answers: (heading, CSS class)."""
        return [("Answers", "")]

    def judgement_cells(self, answers: dict[str, Any]) -> list[dict[str, str]]:
        """One annotator's answers under judgement_columns: {"value", "comment"} per column."""
        return [{"value": "; ".join(f"{k}: {v}" for k, v in answers.items()), "comment": ""}]


_KINDS: dict[str, Kind] = {}


def campaign_kind_register(kind: Kind) -> Kind:
    existing = _KINDS.get(kind.name)
    if existing is not None and existing is not kind:
        raise ValueError(f"campaign kind {kind.name!r} is already registered")
    _KINDS[kind.name] = kind
    return kind


def campaign_kind_unregister(kind: Kind) -> None:
    if _KINDS.get(kind.name) is kind:
        del _KINDS[kind.name]


@contextmanager
def campaign_kind_registered(kind: Kind) -> Iterator[Kind]:
    """Register a kind for the duration of a block (a test's throwaway kind)."""
    campaign_kind_register(kind)
    try:
        yield kind
    finally:
        campaign_kind_unregister(kind)


def campaign_kind_get(name: str) -> Kind:
    try:
        return _KINDS[name]
    except KeyError:
        raise KasautiError(
            f"kind: unknown campaign kind {name!r}; one of {', '.join(_KINDS) or 'none'}"
        ) from None


def campaign_kinds() -> list[Kind]:
    """Every registered kind, in the order registered (the order forms list them)."""
    return list(_KINDS.values())
