"""BBQ (nyu-mll/BBQ): its template CSVs (templates.py, findings.py), its generator's sampled
names and pairing rules (generator.py, draws.py, draws_intersectional.py), and its published
data/*.jsonl (instances.py)."""

from apps.catalog.exporters import Exporter, exporter_register
from apps.catalog.generators import generator_register
from apps.catalog.importers.formats import INSTANCES, TEMPLATES, Format, format_register

# The generator's name, as a template version records it (TemplateVersion.generator).
GENERATOR = "bbq"


def register() -> None:
    # Readers and generators are named by path: they load when first used, not at start-up.
    format_register(
        format=Format("bbq", "BBQ templates", TEMPLATES, f"{__name__}.templates.BbqReader")
    )
    format_register(
        format=Format(
            "bbq-instances",
            "BBQ published instances",
            INSTANCES,
            f"{__name__}.instances.BbqInstancesReader",
            detect_path=f"{__name__}.instances.bbq_instances_detect",
        )
    )
    generator_register(name=GENERATOR, generator_path=f"{__name__}.generator.BbqGenerator")
    exporter_register(
        exporter=Exporter(
            "bbq",
            "BBQ templates",
            "BBQ's templates/ folder: new_templates - <Category>.csv per category, "
            "vocabulary.csv and vocabulary_proper_names.csv, as BBQ's generator scripts read "
            "them (with a Kasauti_seed column so that a re-import draws the same names).",
            f"{__name__}.export.write",
        )
    )
