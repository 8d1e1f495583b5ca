"""Keep a tuple's imported votes beside the votes that decide (issue 18, 4.5): the imported
votes so far are the current votes of every tuple (apps.annotation's migration
0004_tuple_votes_source then marks the tuples a campaign already decided, whose imported
votes were overwritten before this and are not known)."""

from django.db import migrations, models
from django.db.models import F


def copy_votes(apps, schema_editor):
    StereotypeTuple = apps.get_model("catalog", "StereotypeTuple")
    StereotypeTuple.objects.update(imported_votes=F("votes"))


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0008_context_sentence_review"),
    ]

    operations = [
        migrations.AddField(
            model_name="stereotypetuple",
            name="imported_votes",
            field=models.JSONField(blank=True, default=list, null=True),
        ),
        migrations.AddField(
            model_name="stereotypetuple",
            name="votes_source",
            field=models.CharField(
                choices=[("imported", "imported file"), ("campaign", "tuple-vote campaign")],
                db_default="imported",
                default="imported",
                max_length=8,
            ),
        ),
        migrations.RunPython(copy_votes, migrations.RunPython.noop),
    ]
