"""The dataset card of a release (issue 22): README.md in the Hugging Face Hub's format (YAML
front matter and a datasheet body), card.json (the figures it was written from) and
CITATION.cff.

FIRST CUT, to be completed (issue 22): front matter with the hub configs; the datasheet body
and CITATION.cff are not written yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import yaml

from .hub import hub_configs, hub_dataset_info
from .models import TABLE_KINDS, Release


@dataclass(frozen=True)
class CardDocuments:
    readme: str
    facts: dict[str, Any]
    citation: str


def release_layout(*, directory: Path) -> dict[str, dict[str, dict[str, int]]]:
    """{kind: {category: {language: rows}}} of the table files written in `directory`."""
    layout: dict[str, dict[str, dict[str, int]]] = {}
    for kind in TABLE_KINDS:
        path = directory / f"{kind}.parquet"
        if not path.exists():
            continue
        table = pq.read_table(path, columns=["category", "language"])
        grouped = table.group_by(["category", "language"]).aggregate([([], "count_all")])
        by_category: dict[str, dict[str, int]] = {}
        for row in grouped.to_pylist():
            by_category.setdefault(row["category"], {})[row["language"]] = row["count_all"]
        layout[kind] = by_category
    return layout


def release_card(
    *, release: Release, previous: Release | None, changelog: dict[str, Any], directory: Path
) -> CardDocuments:
    layout = release_layout(directory=directory)
    configs = hub_configs(layout)
    dataset = release.dataset
    front = {
        "pretty_name": dataset.pretty_name or dataset.name,
        "license": dataset.license or "unknown",
        "configs": [config.front_matter() for config in configs],
        "dataset_info": hub_dataset_info(configs),
    }
    readme = (
        "---\n"
        + yaml.safe_dump(front, sort_keys=False, allow_unicode=True)
        + "---\n\n"
        + f"# {dataset.pretty_name or dataset.name}\n"
    )
    facts = {
        "layout": layout,
        "hub_configs": [
            {
                "name": c.name,
                "kind": c.kind,
                "category": c.category,
                "splits": c.splits,
                "default": c.default,
            }
            for c in configs
        ],
    }
    return CardDocuments(readme=readme, facts=facts, citation="")
