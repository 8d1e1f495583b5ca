"""IndiBias: sentence pairs (CrowS-Pairs style, English and Hindi) and stereotype tuples
(reader.py). No generator: its rows are used as published."""

from apps.catalog.importers.formats import TEMPLATES, Format, format_register


def register() -> None:
    format_register(
        format=Format(
            "indibias", "IndiBias pairs and tuples", TEMPLATES, f"{__name__}.reader.IndiBiasReader"
        )
    )
