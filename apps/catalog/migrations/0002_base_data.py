"""Loads the base data (categories, unknown expressions) from fixtures/base/*.json: the
data lives in files a researcher can read and change, not in code."""

import json
from pathlib import Path

from django.db import migrations

BASE = Path(__file__).resolve().parents[3] / "fixtures" / "base"


def load(apps, schema_editor):
    Category = apps.get_model("catalog", "Category")
    UnknownExpression = apps.get_model("catalog", "UnknownExpression")
    categories = json.loads((BASE / "categories.json").read_text(encoding="utf-8"))["categories"]
    by_name = {}
    for item in categories:
        by_name[item["name"]], _ = Category.objects.get_or_create(
            name=item["name"], defaults={"description": item.get("description", "")}
        )
    for item in categories:
        for component in item.get("components", []):
            by_name[item["name"]].components.add(by_name[component])
    expressions = json.loads((BASE / "unknown_expressions.json").read_text(encoding="utf-8"))
    for language, texts in expressions.items():
        if language.startswith("_"):
            continue
        for position, text in enumerate(texts):
            UnknownExpression.objects.get_or_create(
                language=language, text=text, defaults={"position": position}
            )


class Migration(migrations.Migration):
    dependencies = [("catalog", "0001_initial")]
    operations = [migrations.RunPython(load, migrations.RunPython.noop)]
