"""Copy the sentence-review decisions made before the catalog recorded them onto the catalog
sentences (ContextSentence.review_tier / review_decision / reviewed_at), the last decided item
of each sentence winning, as annotation now does when an item is decided. Only the new review
fields change: texts (already fixed with their revisions) and everything as_published releases
read stay as they are, and existing releases are never touched."""

from django.db import migrations
from django.db.models import Max

DECIDED = ("complete", "approved", "rejected")
TIERS = ("language", "social_science")
DECISIONS = ("keep", "fix", "drop")


def record_sentence_reviews(apps, schema_editor):
    CampaignItem = apps.get_model("annotation", "CampaignItem")
    ContextSentence = apps.get_model("catalog", "ContextSentence")
    items = (
        CampaignItem.objects.filter(
            campaign__kind="sentence_review",
            context_sentence__isnull=False,
            status__in=DECIDED,
        )
        .annotate(submitted=Max("assignments__done_at"), decided=Max("decisions__created_at"))
        .select_related("campaign")
    )
    latest = {}
    for item in items.iterator(chunk_size=2000):
        decision = (item.outcome or {}).get("decision")
        if decision not in DECISIONS:
            continue
        when = max(t for t in (item.submitted, item.decided, item.created_at) if t is not None)
        tier = (item.campaign.params or {}).get("tier") or "language"
        if tier not in TIERS:
            continue
        known = latest.get(item.context_sentence_id)
        if known is None or (when, item.pk) > (known[0], known[1]):
            latest[item.context_sentence_id] = (when, item.pk, tier, decision)
    for sentence_id, (when, _, tier, decision) in latest.items():
        ContextSentence.objects.filter(pk=sentence_id).update(
            review_tier=tier, review_decision=decision, reviewed_at=when
        )


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0002_sentence_revision"),
        ("catalog", "0008_context_sentence_review"),
    ]

    operations = [migrations.RunPython(record_sentence_reviews, migrations.RunPython.noop)]
