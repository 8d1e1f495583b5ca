from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("evaluation", "0002_prompt_templates")]

    operations = [
        migrations.AddField(
            model_name="modelentry",
            name="demo",
            field=models.BooleanField(default=False),
        ),
    ]
