"""BharatBBQ (sahoonihar/BharatBBQ): its template sheets (templates.py), its notebook's
generator (generator.py), and its published Examples/*_examples.csv (instances.py)."""

from apps.catalog.exporters import Exporter, exporter_register
from apps.catalog.generators import generator_register
from apps.catalog.importers.formats import INSTANCES, TEMPLATES, Format, format_register

# The generator's name, as a template version records it (TemplateVersion.generator).
GENERATOR = "bharatbbq"


def register() -> None:
    # Readers and generators are named by path: they load when first used, not at start-up.
    format_register(
        format=Format(
            "bharatbbq", "BharatBBQ templates", TEMPLATES, f"{__name__}.templates.BharatBbqReader"
        )
    )
    format_register(
        format=Format(
            "bharatbbq-instances",
            "BharatBBQ published instances",
            INSTANCES,
            f"{__name__}.instances.BharatBbqInstancesReader",
            detect_path=f"{__name__}.instances.bharatbbq_instances_detect",
        )
    )
    generator_register(name=GENERATOR, generator_path=f"{__name__}.generator.BharatBbqGenerator")
    exporter_register(
        exporter=Exporter(
            "bharatbbq",
            "BharatBBQ templates",
            "BharatBBQ's BharatBBQ_Dataset/Templates/ folder: one <Category>.csv per category "
            "(Names and Lexical_diversity as KEY: [...] lists, Pairing, Proper Nouns, ...), as "
            "its create_examples.ipynb reads them.",
            f"{__name__}.export.write",
        )
    )
