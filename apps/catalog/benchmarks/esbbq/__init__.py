"""EsBBQ and CaBBQ (langtech-bsc/EsBBQ-CaBBQ; Spanish and Catalan): their template and
vocabulary sheets (templates.py, vocabulary.py), their generator (script.py with filling.py and
text.py reproduce the published script; generator.py is Kasauti's interface to it; published.py
writes the published CSV row), and their published data_*/*.full.csv or .jsonl (instances.py)."""

from apps.catalog.exporters import Exporter, exporter_register
from apps.catalog.generators import generator_register
from apps.catalog.importers.formats import INSTANCES, TEMPLATES, Format, format_register

# The generator's name, as a template version records it (TemplateVersion.generator).
GENERATOR = "esbbq"


def register() -> None:
    # Readers and generators are named by path: they load when first used, not at start-up.
    templates, instances = f"{__name__}.templates", f"{__name__}.instances"
    format_register(
        format=Format("esbbq", "EsBBQ templates", TEMPLATES, f"{templates}.EsBbqReader")
    )
    format_register(
        format=Format("cabbq", "CaBBQ templates", TEMPLATES, f"{templates}.CaBbqReader")
    )
    format_register(
        format=Format(
            "esbbq-instances",
            "EsBBQ published instances",
            INSTANCES,
            f"{instances}.EsBbqInstancesReader",
            # CaBBQ's files look the same: esbbq-instances is the guess for both.
            detect_path=f"{instances}.esbbq_instances_detect",
        )
    )
    format_register(
        format=Format(
            "cabbq-instances",
            "CaBBQ published instances",
            INSTANCES,
            f"{instances}.CaBbqInstancesReader",
        )
    )
    generator_register(name=GENERATOR, generator_path=f"{__name__}.generator.EsBbqGenerator")
    exporter_register(
        exporter=Exporter(
            "esbbq",
            "EsBBQ / CaBBQ templates",
            "EsBBQ's templates/ folder: one <Category>.xlsx per category with the _es or _ca "
            "columns of the templates' language, vocabulary.xlsx and "
            "vocabulary_proper_names.xlsx, as EsBBQ's generate_instances.py reads them.",
            f"{__name__}.export.write",
            import_formats=(("es", "esbbq"), ("ca", "cabbq")),
        )
    )
