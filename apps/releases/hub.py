"""The Hugging Face Hub's view of a release (issue 22): its configs, splits and features.

One definition shared by the card (README.md's YAML front matter, written at release time) and
the hub folder (`export_release --kind hub`, written later from the release's frozen files):
both take the configs from `hub_configs`, so every config the card lists has its files.

Layout: for the release's first table kind with rows (instances, else sentence pairs, tuples,
context sets), the full set is the config `all` (the default) and each category is a config of
its own; every other kind with rows is a config named for the kind, and `<kind>-<category>`
per category. Each config has one split per language, at data/<config>/<split>.parquet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import yaml

from .models import TABLE_KINDS
from .schemas import SCHEMAS

# Layout: {kind: {category: {language: rows}}}, as card.json's composition holds it.
Layout = dict[str, dict[str, dict[str, int]]]

DEFAULT_CONFIG = "all"
# The Hub's task categories per kind of table (huggingface.co/tasks).
TASK_CATEGORIES = {
    "instances": ["question-answering", "multiple-choice"],
    "sentence_pairs": ["fill-mask", "text-classification"],
    "tuples": ["text-classification"],
    "context_sets": ["text-classification"],
}


@dataclass(frozen=True)
class HubConfig:
    name: str
    kind: str
    category: str | None  # None: every category
    splits: dict[str, str] = field(default_factory=dict)  # split name -> language
    default: bool = False

    def as_json(self) -> dict[str, Any]:
        """The config as card.json's `hub_configs` lists it."""
        return {
            "name": self.name,
            "kind": self.kind,
            "category": self.category,
            "splits": dict(self.splits),
            "default": self.default,
        }

    @classmethod
    def from_json(cls, entry: dict[str, Any]) -> HubConfig:
        return cls(
            name=entry["name"],
            kind=entry["kind"],
            category=entry.get("category"),
            splits=dict(entry.get("splits") or {}),
            default=bool(entry.get("default")),
        )

    def path(self, split: str) -> str:
        return f"data/{self.name}/{split}.parquet"

    def front_matter(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"config_name": self.name}
        if self.default:
            entry["default"] = True
        entry["data_files"] = [{"split": split, "path": self.path(split)} for split in self.splits]
        return entry


def _name(text: str) -> str:
    """A config or split name the Hub and `datasets` take: word characters, dots and dashes
    (a split name must match \\w+(\\.\\w+)*: dashes become underscores there)."""
    return re.sub(r"[^\w.-]+", "_", text.strip(), flags=re.ASCII).strip("_.-") or "x"


def split_name(language: str) -> str:
    return re.sub(r"\W+", "_", language, flags=re.ASCII).strip("_") or "x"


def hub_configs(layout: Layout) -> list[HubConfig]:
    """The configs of a release, from its rows per kind, category and language."""
    configs: list[HubConfig] = []
    taken: set[str] = set()

    def unique(name: str) -> str:
        candidate, n = name, 2
        while candidate.lower() in taken:  # the Hub compares names case-insensitively
            candidate, n = f"{name}_{n}", n + 1
        taken.add(candidate.lower())
        return candidate

    def splits(by_language: dict[str, int]) -> dict[str, str]:
        out: dict[str, str] = {}
        for language in sorted(by_language):
            if by_language[language]:
                out[unique_split(out, split_name(language))] = language
        return out

    kinds = [kind for kind in TABLE_KINDS if any(_rows(layout.get(kind, {})).values())]
    for position, kind in enumerate(kinds):
        by_category = layout[kind]
        languages: dict[str, int] = {}
        for by_language in by_category.values():
            for language, n in by_language.items():
                languages[language] = languages.get(language, 0) + n
        primary = position == 0
        configs.append(
            HubConfig(
                name=unique(DEFAULT_CONFIG if primary else kind),
                kind=kind,
                category=None,
                splits=splits(languages),
                default=primary,
            )
        )
        for category in sorted(by_category):
            if not any(by_category[category].values()):
                continue
            name = _name(category) if primary else f"{kind}-{_name(category)}"
            configs.append(
                HubConfig(
                    name=unique(name),
                    kind=kind,
                    category=category,
                    splits=splits(by_category[category]),
                )
            )
    return configs


def unique_split(taken: dict[str, str], name: str) -> str:
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}_{n}", n + 1
    return candidate


def _rows(by_category: dict[str, dict[str, int]]) -> dict[str, int]:
    return {category: sum(by_language.values()) for category, by_language in by_category.items()}


def hub_features(schema: pa.Schema) -> list[dict[str, Any]]:
    """A table kind's columns as the YAML `features` of a config (datasets' own notation)."""
    return [{"name": f.name, **_feature(f.type)} for f in schema]


def _feature(arrow_type: pa.DataType) -> dict[str, Any]:
    if pa.types.is_struct(arrow_type):
        return {"struct": [{"name": f.name, **_feature(f.type)} for f in arrow_type]}
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        inner = _feature(arrow_type.value_type)
        key = "list" if pa.types.is_list(arrow_type) else "large_list"
        return {key: inner["dtype"] if set(inner) == {"dtype"} else inner}
    if str(arrow_type) not in _DTYPES:
        raise ValueError(f"no Hub feature for the Arrow type {arrow_type}")
    return {"dtype": _DTYPES[str(arrow_type)]}


# Arrow's type names -> datasets' Value dtypes (a column of another type is refused by name,
# rather than written into a card that `datasets` could not read).
_DTYPES = {
    "string": "string",
    "large_string": "large_string",
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "uint8": "uint8",
    "uint16": "uint16",
    "uint32": "uint32",
    "uint64": "uint64",
    "float": "float32",
    "double": "float64",
    "bool": "bool",
}


def hub_dataset_info(configs: list[HubConfig]) -> list[dict[str, Any]]:
    """The front matter's `dataset_info`: each config's features (its kind's schema)."""
    return [
        {"config_name": config.name, "features": hub_features(SCHEMAS[config.kind])}
        for config in configs
    ]


FRONT_MATTER_RE = re.compile(r"\A---\r?\n(.*?)\r?\n---\r?\n", re.DOTALL)


def hub_front_matter(readme: str) -> dict[str, Any]:
    """A card's YAML front matter (the block between the first two `---` lines), as the Hub
    and huggingface_hub read it; {} when there is none."""
    match = FRONT_MATTER_RE.match(readme)
    if match is None:
        return {}
    data = yaml.safe_load(match.group(1))
    return data if isinstance(data, dict) else {}


def size_category(rows: int) -> str:
    """The Hub's size category for a number of rows."""
    for limit, label in (
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
        (10_000_000, "1M<n<10M"),
    ):
        if rows < limit:
            return label
    return "10M<n<100M"
