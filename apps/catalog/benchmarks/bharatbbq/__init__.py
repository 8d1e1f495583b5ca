"""BharatBBQ (sahoonihar/BharatBBQ): its template sheets (templates.py), its notebook's
generator (generator.py), and its published Examples/*_examples.csv (instances.py)."""

from apps.catalog.generators import generator_register
from apps.catalog.importers.formats import INSTANCES, TEMPLATES, Format, format_register

from .generator import BharatBbqGenerator
from .instances import BharatBbqInstancesReader, bharatbbq_instances_detect
from .templates import BharatBbqReader

GENERATOR = BharatBbqGenerator()


def register() -> None:
    format_register(format=Format("bharatbbq", "BharatBBQ templates", TEMPLATES, BharatBbqReader))
    format_register(
        format=Format(
            "bharatbbq-instances",
            "BharatBBQ published instances",
            INSTANCES,
            BharatBbqInstancesReader,
            detect=bharatbbq_instances_detect,
        )
    )
    generator_register(name="bharatbbq", generator=GENERATOR)
