"""EsBBQ and CaBBQ (langtech-bsc/EsBBQ-CaBBQ; Spanish and Catalan): their template and
vocabulary sheets (templates.py, vocabulary.py), their generator (generator.py, text.py, and the
published column layout in published.py), and their published data_*/*.full.csv or .jsonl
(instances.py)."""

from apps.catalog.generators import generator_register
from apps.catalog.importers.formats import INSTANCES, TEMPLATES, Format, format_register

from .generator import EsBbqGenerator
from .instances import CaBbqInstancesReader, EsBbqInstancesReader, esbbq_instances_detect
from .script import GENERATOR as GENERATOR_NAME
from .templates import CaBbqReader, EsBbqReader

GENERATOR = EsBbqGenerator()


def register() -> None:
    format_register(format=Format("esbbq", "EsBBQ templates", TEMPLATES, EsBbqReader))
    format_register(format=Format("cabbq", "CaBBQ templates", TEMPLATES, CaBbqReader))
    format_register(
        format=Format(
            "esbbq-instances",
            "EsBBQ published instances",
            INSTANCES,
            EsBbqInstancesReader,
            detect=esbbq_instances_detect,  # CaBBQ files look the same: this is the guess
        )
    )
    format_register(
        format=Format(
            "cabbq-instances", "CaBBQ published instances", INSTANCES, CaBbqInstancesReader
        )
    )
    generator_register(name=GENERATOR_NAME, generator=GENERATOR)
