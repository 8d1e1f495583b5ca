"""BBQ (nyu-mll/BBQ): its template CSVs (templates.py), its generator's sampled names and
pairing rules (generator.py, draws.py), and its published data/*.jsonl (instances.py)."""

from apps.catalog.generators import generator_register
from apps.catalog.importers.formats import INSTANCES, TEMPLATES, Format, format_register

from .generator import BbqGenerator
from .instances import BbqInstancesReader, bbq_instances_detect
from .templates import BbqReader

GENERATOR = BbqGenerator()


def register() -> None:
    format_register(format=Format("bbq", "BBQ templates", TEMPLATES, BbqReader))
    format_register(
        format=Format(
            "bbq-instances",
            "BBQ published instances",
            INSTANCES,
            BbqInstancesReader,
            detect=bbq_instances_detect,
        )
    )
    generator_register(name="bbq", generator=GENERATOR)
