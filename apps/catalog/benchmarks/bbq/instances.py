"""BBQ's published instances: nyu-mll/BBQ `data/<Category>.jsonl` (format "bbq-instances")."""

from __future__ import annotations

from apps.catalog.importers.layout_jsonl import JsonlFormat
from apps.catalog.importers.layouts import InstanceFileReader


class BbqJsonlFormat(JsonlFormat):
    format = "bbq-instances"
    language = "en"
    id_key = "example_id"
    index_key = "question_index"
    stereotyped_key = ("additional_metadata", "stereotyped_groups")


class BbqInstancesReader(InstanceFileReader):
    format = "bbq-instances"
    language = "en"
    layouts = {"jsonl": BbqJsonlFormat}


def bbq_instances_detect(file_name: str, first_line: str) -> bool:
    return (
        file_name.lower().endswith(".jsonl")
        and '"instance_id"' not in first_line  # EsBBQ's rows have both ids
        and '"example_id"' in first_line
    )
