"""Reads for the workbench: an annotator's next item, campaign progress, agreement inputs."""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any, NamedTuple

from django.db.models import Count, Max, Min, Q, QuerySet

from apps.accounts.roles import is_annotator, is_researcher
from apps.catalog import generators
from apps.catalog.models import Finding, Instance, TemplateVersion, UnknownExpression
from apps.catalog.selectors import template_version_spec
from apps.core.errors import KasautiError

from . import agreement
from .models import (
    AnnotatorProfile,
    Assignment,
    Campaign,
    CampaignItem,
    Decision,
    ItemStatus,
    Judgement,
    SentenceRevision,
)


def annotator_languages(*, user) -> list[str]:
    """The language codes an annotator covers (none without a profile)."""
    profile = AnnotatorProfile.objects.filter(user=user).first()
    return list(profile.languages) if profile else []


def annotator_manageable(*, user) -> bool:
    """People management changes only annotators who hold no higher role: a researcher, an
    admin or a superuser who also annotates is managed by an administrator (Django admin)."""
    return is_annotator(user) and not is_researcher(user) and not user.is_superuser


def campaign_list_for(*, user) -> QuerySet[Campaign]:
    qs = Campaign.objects.select_related("dataset").order_by("-created_at", "-id")
    if is_researcher(user):
        return qs
    return qs.filter(annotators=user)


def assignment_next(*, campaign_id: int, annotator) -> Assignment | None:
    """The annotator's first pending assignment in the campaign. One index range scan on the
    partial index assignment_pending (annotator, campaign, position WHERE done_at IS NULL)."""
    return (
        Assignment.objects.filter(
            annotator=annotator, campaign_id=campaign_id, done_at__isnull=True
        )
        .order_by("position")
        .first()
    )


# Everything the work screen shows about an item, fetched with the assignment in one query.
PAGE_RELATED = (
    "campaign",
    "current",
    "item__category",
    "item__template_version__template",
    "item__template_version__concept",
    "item__translated_string",
    "item__stereotype_tuple",
    "item__context_sentence__context_set",
)


def assignment_next_for_page(*, campaign_id: int, annotator) -> Assignment | None:
    """assignment_next with the item and its target joined in (same index scan)."""
    return (
        Assignment.objects.filter(
            annotator=annotator, campaign_id=campaign_id, done_at__isnull=True
        )
        .select_related(*PAGE_RELATED)
        .order_by("position")
        .first()
    )


def assignment_at(*, campaign_id: int, annotator, position: int) -> Assignment | None:
    return (
        Assignment.objects.filter(annotator=annotator, campaign_id=campaign_id, position=position)
        .select_related(*PAGE_RELATED)
        .first()
    )


def assignment_undoable(*, campaign_id: int, annotator) -> Assignment | None:
    """The assignment whose submission `u` takes back, wherever the annotator is: the one
    holding the annotator's latest judgement in the campaign, when that judgement is a
    submission or edit that is still current and its item can still change. One level: after
    an undo there is nothing to undo until the next submission."""
    latest = (
        Judgement.objects.filter(annotator=annotator, assignment__campaign_id=campaign_id)
        .select_related("assignment__item")
        .order_by("-created_at", "-id")
        .first()
    )
    if latest is None or latest.action == Judgement.Action.UNDO:
        return None
    assignment = latest.assignment
    if assignment.current_id != latest.pk or assignment.item.status not in (
        ItemStatus.PENDING,
        ItemStatus.ADJUDICATION,
    ):
        return None
    return assignment


def assignment_position_summary(*, assignment: Assignment) -> dict[str, int | None]:
    """Done / total of the annotator's items in the campaign and the positions before and after
    this one (j/k), in one aggregate over the annotator's rows."""
    return Assignment.objects.filter(
        annotator_id=assignment.annotator_id, campaign_id=assignment.campaign_id
    ).aggregate(
        done=Count("pk", filter=Q(done_at__isnull=False)),
        total=Count("pk"),
        prev=Max("position", filter=Q(position__lt=assignment.position)),
        next=Min("position", filter=Q(position__gt=assignment.position)),
    )


def item_context(*, item: CampaignItem) -> dict[str, Any]:
    """What the annotator sees for an item (never another annotator's answers)."""
    context: dict[str, Any] = {"item": item}
    if item.template_version_id:
        version = item.template_version
        context["version"] = version
        context["concept"] = version.concept
        # One or two instantiated examples: the instance identity index leads with
        # template_version, so this is an index range scan.
        context["examples"] = list(
            Instance.objects.filter(template_version=version, retired_at__isnull=True)
            .order_by("combination", "context_condition", "question_polarity")
            .only("context", "question", "ans0", "ans1", "ans2", "language")[:2]
        ) or _examples_generated(version)
        context["findings"] = list(Finding.objects.filter(template_version=version).order_by("id"))
    if item.translated_string_id:
        context["string"] = item.translated_string
    if item.stereotype_tuple_id:
        context["tuple"] = item.stereotype_tuple
    if item.context_sentence_id:
        context["sentence"] = item.context_sentence
    return context


class Example(NamedTuple):
    """An example shown with a template: what the page and the API read of an Instance."""

    context: str
    question: str
    answers: list[str]
    language: str


def _examples_generated(version: TemplateVersion) -> list[Example]:
    """The same two examples for a version that has no instances yet (the new version an
    adjudicator's edit sends back to review): generated in memory by the version's own
    generator, exactly as instantiation will write them; none when it cannot be generated."""
    unknowns = list(
        UnknownExpression.objects.filter(language=version.language).values_list("text", flat=True)
    )
    spec = template_version_spec(version=version)
    if not unknowns or generators.validate(spec):
        return []  # instantiation would refuse it too; the page says nothing rather than guess
    combination = next(iter(generators.combinations(spec, unknowns, permutations=False)), None)
    if combination is None:
        return []
    variants = sorted(
        (condition, polarity, context, question)
        for _, condition, polarity, _, context, question, _ in combination.variants
    )
    return [
        Example(context, question, list(combination.answers), version.language)
        for _, _, context, question in variants[:2]
    ]


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def campaign_progress(*, campaign: Campaign) -> dict[str, Any]:
    """Counts, percentage and median seconds per item: for the campaign, per annotator and per
    language (the item's language)."""
    rows = list(
        Assignment.objects.filter(campaign=campaign).values(
            "annotator__username",
            "done_at",
            "current__seconds",
            "item__template_version__language",
            "item__stereotype_tuple__language",
            "item__context_sentence__context_set__language",
        )
    )

    def bucket() -> dict[str, Any]:
        return {"assigned": 0, "done": 0, "seconds": []}

    total, by_annotator, by_language = bucket(), defaultdict(bucket), defaultdict(bucket)
    for row in rows:
        language = (
            campaign.language
            or row["item__template_version__language"]
            or row["item__stereotype_tuple__language"]
            or row["item__context_sentence__context_set__language"]
            or ""
        )
        for b in (total, by_annotator[row["annotator__username"]], by_language[language]):
            b["assigned"] += 1
            if row["done_at"] is not None:
                b["done"] += 1
                if row["current__seconds"] is not None:
                    b["seconds"].append(row["current__seconds"])

    def out(b: dict[str, Any]) -> dict[str, Any]:
        return {
            "assigned": b["assigned"],
            "done": b["done"],
            "percent": round(100 * b["done"] / b["assigned"], 1) if b["assigned"] else 0.0,
            "median_seconds": _median(b["seconds"]),
        }

    statuses = dict(
        CampaignItem.objects.filter(campaign=campaign)
        .values_list("status")
        .annotate(n=Count("id"))
        .values_list("status", "n")
    )
    return {
        "items": sum(statuses.values()),
        "items_by_status": statuses,
        "judgements": out(total),
        "by_annotator": {name: out(b) for name, b in sorted(by_annotator.items())},
        "by_language": {lang: out(b) for lang, b in sorted(by_language.items())},
    }


def campaign_units(*, campaign: Campaign) -> list[dict[str, Any]]:
    """Per item (not superseded): its category, segment and the current answers keyed by slot
    and by annotator name. Only submitted judgements count (an undone one does not)."""
    rows = (
        Assignment.objects.filter(campaign=campaign, done_at__isnull=False)
        .exclude(item__status=ItemStatus.SUPERSEDED)
        .values(
            "item_id",
            "slot",
            "annotator__username",
            "current__answers",
            "item__category__name",
            "item__segment",
        )
        .order_by("item__position", "slot")
    )
    units: dict[int, dict[str, Any]] = {}
    for row in rows:
        unit = units.setdefault(
            row["item_id"],
            {
                "category": row["item__category__name"] or "",
                "segment": row["item__segment"],
                "by_slot": {},
                "by_annotator": {},
            },
        )
        unit["by_slot"][row["slot"]] = row["current__answers"]
        unit["by_annotator"][row["annotator__username"]] = row["current__answers"]
    return list(units.values())


def _field_units(units, field: str, key: str) -> list[dict[Any, Any]]:
    return [{who: answers[field] for who, answers in u[key].items()} for u in units]


def campaign_agreement(*, campaign: Campaign) -> dict[str, Any]:
    """Agreement per judged field (criterion / score), overall, per category, and Cohen's kappa
    for each annotator pair. Ordinal scores use quadratic weights over the full 1-5 scale."""
    units = campaign_units(campaign=campaign)
    kind = campaign.kind_spec
    fields = kind.fields
    result: dict[str, Any] = {"fields": {}, "by_category": {}, "pairs": {}}
    for field, (labels, ordinal) in fields.items():
        result["fields"][field] = agreement.overall(
            _field_units(units, field, "by_slot"), labels=labels, ordinal=ordinal
        ).as_dict()
        pairs = agreement.pairwise_cohen(
            _field_units(units, field, "by_annotator"),
            labels=labels,
            weights="quadratic" if ordinal else None,
        )
        for (a, b), value in pairs.items():
            result["pairs"].setdefault(f"{a} × {b}", {})[field] = value.as_dict()
    if kind.pooled_fields:
        # Overall: every (item, field) judgement pooled, as BharatBBQ §3.7 reports its criteria.
        pooled_labels = fields[kind.pooled_fields[0]][0]
        pooled = [
            {slot: answers[key] for slot, answers in u["by_slot"].items()}
            for u in units
            for key in kind.pooled_fields
        ]
        result["overall"] = agreement.overall(pooled, labels=pooled_labels).as_dict()
        pooled_pairs = defaultdict(list)
        for u in units:
            for key in kind.pooled_fields:
                pooled_pairs["all"].append(
                    {who: answers[key] for who, answers in u["by_annotator"].items()}
                )
        for (a, b), value in agreement.pairwise_cohen(
            pooled_pairs["all"], labels=pooled_labels
        ).items():
            result["pairs"].setdefault(f"{a} × {b}", {})["overall"] = value.as_dict()
    categories = sorted({u["category"] for u in units})
    for category in categories:
        subset = [u for u in units if u["category"] == category]
        result["by_category"][category] = {
            field: agreement.overall(
                _field_units(subset, field, "by_slot"), labels=labels, ordinal=ordinal
            ).as_dict()
            for field, (labels, ordinal) in fields.items()
        }
    result["items_compared"] = len([u for u in units if len(u["by_slot"]) >= 2])
    # What the pages show for each judged field: its question or name, not its code.
    for cells in (
        [result["fields"]],
        list(result["pairs"].values()),
        list(result["by_category"].values()),
    ):
        for fields_of in cells:
            for field, cell in fields_of.items():
                cell["field_label"] = kind.field_label(field)
    if "overall" in result:
        result["overall"]["field_label"] = kind.field_label("overall")
    return result


def adjudication_queue(*, campaign: Campaign | None = None) -> QuerySet[CampaignItem]:
    qs = CampaignItem.objects.filter(status=ItemStatus.ADJUDICATION).select_related(
        "campaign", "template_version__template", "category"
    )
    if campaign is not None:
        qs = qs.filter(campaign=campaign)
    return qs.order_by("campaign_id", "position")


def item_judgements(*, item: CampaignItem) -> list[Assignment]:
    """All annotators' current answers, side by side (researchers only)."""
    return list(
        Assignment.objects.filter(item=item).select_related("annotator", "current").order_by("slot")
    )


def judgement_history(*, assignment: Assignment) -> QuerySet[Judgement]:
    return Judgement.objects.filter(assignment=assignment).order_by("created_at", "id")


def annotator_open_counts(*, annotator) -> dict[int, int]:
    return dict(
        Assignment.objects.filter(annotator=annotator, done_at__isnull=True)
        .values_list("campaign_id")
        .annotate(n=Count("id"))
        .values_list("campaign_id", "n")
    )


def items_with_open_findings(*, campaign: Campaign) -> int:
    return (
        CampaignItem.objects.filter(campaign=campaign)
        .filter(Q(template_version__findings__status=Finding.Status.OPEN))
        .distinct()
        .count()
    )


def sentence_history(*, context_sentence_id: int) -> list[SentenceRevision]:
    """Every change of a context-set sentence's text by review, oldest first."""
    return list(
        SentenceRevision.objects.filter(context_sentence_id=context_sentence_id)
        .select_related("decided_by", "item__campaign")
        .order_by("created_at", "id")
    )


def template_decisions(*, template_id: int) -> dict[int, list[Decision]]:
    """Adjudication decisions on a template's versions, by version id, oldest first."""
    by_version: dict[int, list[Decision]] = defaultdict(list)
    for decision in (
        Decision.objects.filter(item__template_version__template_id=template_id)
        .select_related("decided_by", "item")
        .order_by("created_at", "id")
    ):
        by_version[decision.item.template_version_id].append(decision)
    return dict(by_version)


def campaign_tuple_votes(*, campaign: Campaign) -> list[dict[str, Any]]:
    """A tuple-vote campaign's tuples: the votes each was imported with, the votes it had
    before this campaign decided it, this campaign's votes, and which votes decide now."""
    if not campaign.kind_spec.shows_tuple_votes:
        return []
    rows = []
    for item in (
        CampaignItem.objects.filter(campaign=campaign, stereotype_tuple__isnull=False)
        .select_related("stereotype_tuple")
        .order_by("position")
    ):
        tup = item.stereotype_tuple
        outcome = item.outcome or {}
        decided = item.status == ItemStatus.COMPLETE
        rows.append(
            {
                "item": item,
                "tuple": tup,
                "imported_votes": tup.imported_votes,
                "votes_before": outcome.get("votes_before"),
                "campaign_votes": outcome.get("votes") if decided else None,
                "deciding": tup.votes,
                "decides": tup.get_votes_source_display(),
            }
        )
    return rows


def campaign_targets_named(*, kind: str, ids: list[str]) -> list[str]:
    """How the new-campaign page names targets chosen elsewhere (`?only=<id>`): each as its
    model says (a template version: "dataset:T-12 v3"); ids that are not whole numbers or of
    no such row are left out (campaign_create names them when it refuses)."""
    from .kinds import campaign_kind_get

    try:
        spec = campaign_kind_get(kind)
    except KasautiError:
        return []
    wanted = [int(pk) for pk in ids if pk.isdigit()]
    model = CampaignItem._meta.get_field(spec.target).related_model
    return [str(row) for row in model.objects.filter(pk__in=wanted).order_by("pk")]
