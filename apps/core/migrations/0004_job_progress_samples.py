from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0003_job_system"),
    ]

    operations = [
        migrations.AddField(
            model_name="job",
            name="progress_samples",
            field=models.JSONField(blank=True, default=list),
        ),
    ]
