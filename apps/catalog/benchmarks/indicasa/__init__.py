"""IndiCASA: context sets of stereotype and anti-stereotype sentences with annotator scores
(reader.py). No generator: its sets are used as published."""

from apps.catalog.importers.formats import TEMPLATES, Format, format_register


def register() -> None:
    format_register(
        format=Format(
            "indicasa", "IndiCASA context sets", TEMPLATES, f"{__name__}.reader.IndiCasaReader"
        )
    )
