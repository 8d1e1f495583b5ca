"""Tuples a tuple-vote campaign already decided: their votes are the campaign's
(votes_source "campaign") and the votes they were imported with were overwritten before
Kasauti kept both, so they are not known (imported_votes None)."""

from django.db import migrations


def mark_campaign_votes(apps, schema_editor):
    CampaignItem = apps.get_model("annotation", "CampaignItem")
    StereotypeTuple = apps.get_model("catalog", "StereotypeTuple")
    decided = CampaignItem.objects.filter(
        campaign__kind="tuple_vote", stereotype_tuple__isnull=False, status="complete"
    ).values("stereotype_tuple_id")
    StereotypeTuple.objects.filter(pk__in=decided).update(
        votes_source="campaign", imported_votes=None
    )


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0003_sentence_review_facts"),
        ("catalog", "0009_tuple_imported_votes"),
    ]

    operations = [migrations.RunPython(mark_campaign_votes, migrations.RunPython.noop)]
