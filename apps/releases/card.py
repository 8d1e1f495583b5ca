"""The dataset card of a release (issue 22): README.md in the Hugging Face Hub's format (YAML
front matter and a datasheet body), card.json (the figures it was written from) and
CITATION.cff.

Written once, inside release_create's transaction (apps/releases/documents.py), after the
release's membership and table files. Every figure is read from the database or from the
files just written (which were written from it in the same transaction), never typed.

The body is the registered card sections (apps/releases/registry.py) in card order: the
releases app's own (apps/releases/card_sections.py) and those of translation, annotation and
the survey app. card.json holds each section's facts under the section's name, and
`card_readme` rebuilds README.md from card.json alone (each section's render is a pure
function of its facts), so the card's figures can be checked against the data and a card can
be written again without the database.

card.json's keys: "layout" and "hub_configs" (read by the hub exporter), "front_matter" (the
YAML, as written), "sections" (the sections written, in order: name and part) and one key per
section written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import yaml
from django.utils import timezone

from apps.catalog.services.dataset_card import card_author_lines, license_spdx

from .hub import TASK_CATEGORIES, hub_configs, hub_dataset_info, size_category
from .models import TABLE_KINDS, Release
from .registry import CARD_PARTS, CardContext, card_section_get, card_sections

# card.json's own keys: a section may not be named like one of them.
RESERVED_KEYS = frozenset({"layout", "hub_configs", "front_matter", "sections"})

CFF_MESSAGE = "If you use this dataset, please cite it using the metadata from this file."


@dataclass(frozen=True)
class CardDocuments:
    readme: str
    facts: dict[str, Any]
    citation: str


def release_layout(
    *, directory: Path, kinds: tuple[str, ...] = TABLE_KINDS
) -> dict[str, dict[str, dict[str, int]]]:
    """{kind: {category: {language: rows}}} of the table files written in `directory`."""
    layout: dict[str, dict[str, dict[str, int]]] = {}
    for kind in kinds:
        path = directory / f"{kind}.parquet"
        if not path.exists():
            continue
        if kind == "instances":  # the composition's read, summed up (no second read)
            cells = [(c, lang, n) for c, lang, _cond, _noun, n in release_instance_cells(path=path)]
        else:
            table = pq.ParquetFile(path).read(columns=["category", "language"])
            cells = group_counts(table, ["category", "language"])
        by_category: dict[str, dict[str, int]] = {}
        for category, language, n in sorted(cells):
            languages = by_category.setdefault(category, {})
            languages[language] = languages.get(language, 0) + n
        layout[kind] = by_category
    return layout


def group_counts(table: pa.Table, keys: list[str]) -> list[tuple[Any, ...]]:
    """(key values..., rows) per distinct combination of `keys` in `table`, sorted.

    Each column is dictionary-encoded (one pass in C) and the codes combined into one integer
    per row, counted by numpy: no Python loop over rows. Not Table.group_by nor
    Array.to_numpy: both import pandas (through pyarrow.acero, or pyarrow's pandas shim), a
    few seconds of a worker's first release."""
    if table.num_rows == 0:
        return []
    code: np.ndarray | None = None
    dictionaries: list[list[Any]] = []
    for key in keys:
        column = table.column(key)
        encoded = pc.dictionary_encode(
            column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column,
            null_encoding="encode",
        )
        indices = encoded.indices
        dictionary = encoded.dictionary.to_pylist()
        # The indices' data buffer (int32, no nulls: nulls are a dictionary entry).
        values = np.frombuffer(indices.buffers()[1], dtype=np.int32)
        values = values[indices.offset : indices.offset + len(indices)].astype(np.int64)
        code = values if code is None else code * len(dictionary) + values
        dictionaries.append(dictionary)
    assert code is not None
    combined, counts = np.unique(code, return_counts=True)
    rows = []
    for value, n in zip(combined.tolist(), counts.tolist(), strict=True):
        parts = []
        for dictionary in reversed(dictionaries):
            value, index = divmod(value, len(dictionary))
            parts.append(dictionary[index])
        rows.append((*reversed(parts), n))
    return sorted(rows, key=lambda row: tuple(("" if v is None else str(v)) for v in row[:-1]))


# The instance columns the composition is grouped by (noun type: Instance.proper_noun).
_CELL_COLUMNS = ("category", "language", "context_condition", "additional_metadata.proper_noun")
_CELL_KEYS = ["category", "language", "context_condition", "proper_noun"]


def release_instance_cells(*, path: Path) -> list[tuple[str, str, str, bool, int]]:
    """(category, language, context condition, proper noun, rows) of an instances.parquet
    just written, sorted: four columns read and counted (group_counts), not a loop over
    instances, and not a join of the release's membership, which costs seconds at 400,000
    rows inside release_create's transaction (the planner has no statistics for the new
    rows yet and probes the instance table row by row)."""
    stat = path.stat()
    return list(_instance_cells(str(path), stat.st_mtime_ns, stat.st_size))


@lru_cache(maxsize=4)
def _instance_cells(path: str, _mtime_ns: int, _size: int) -> tuple[tuple[Any, ...], ...]:
    """Cached per file version: the layout and the composition section both ask."""
    # ParquetFile.read, not pq.read_table: the latter imports pyarrow.dataset and pandas.
    table = pq.ParquetFile(path).read(columns=list(_CELL_COLUMNS)).flatten()
    table = table.rename_columns([name.rsplit(".", 1)[-1] for name in table.column_names])
    return tuple(
        (category, language, condition, bool(proper), n)
        for category, language, condition, proper, n in group_counts(table, _CELL_KEYS)
    )


# --- front matter --------------------------------------------------------------------------

# ISO 639-2/3 codes with an ISO 639-1 form, for the languages a Kasauti dataset is likely to
# hold (a language value may be written "hin" or "hin-Deva"); any other code stays as it is.
_ISO_639_1 = {
    "asm": "as",
    "ben": "bn",
    "cat": "ca",
    "eng": "en",
    "guj": "gu",
    "hin": "hi",
    "kan": "kn",
    "mal": "ml",
    "mar": "mr",
    "nep": "ne",
    "ori": "or",
    "ory": "or",
    "pan": "pa",
    "san": "sa",
    "snd": "sd",
    "spa": "es",
    "tam": "ta",
    "tel": "te",
    "urd": "ur",
    "kas": "ks",
    "fra": "fr",
    "fre": "fr",
    "deu": "de",
    "ger": "de",
    "por": "pt",
    "ita": "it",
    "eus": "eu",
    "baq": "eu",
    "glg": "gl",
}


def iso_639_1(language: str) -> str:
    """The ISO 639-1 code of a language value: its primary subtag (pt-BR -> pt), mapped from
    ISO 639-2/3 where a 639-1 code exists (hin -> hi); a code with none stays as it is (mni)."""
    primary = re.split(r"[-_]", language.strip(), maxsplit=1)[0].lower()
    return _ISO_639_1.get(primary, primary)


def card_front_matter(
    *, release: Release, layout: dict[str, dict[str, dict[str, int]]], configs: list[Any]
) -> dict[str, Any]:
    """The README's YAML front matter (the Hub's dataset card metadata)."""
    dataset = release.dataset
    kinds = [kind for kind in TABLE_KINDS if _kind_rows(layout.get(kind, {}))]
    languages = {
        language
        for kind in kinds
        for by_language in layout[kind].values()
        for language, rows in by_language.items()
        if rows
    }
    tasks = list(dict.fromkeys(task for kind in kinds for task in TASK_CATEGORIES.get(kind, [])))
    total = sum(_kind_rows(layout.get(kind, {})) for kind in kinds)
    return {
        "pretty_name": dataset.pretty_name or dataset.name,
        "license": dataset.license or "unknown",
        "language": sorted({iso_639_1(language) for language in languages}),
        "task_categories": tasks,
        "size_categories": [size_category(total)],
        "configs": [config.front_matter() for config in configs],
        "dataset_info": hub_dataset_info(configs),
    }


def _kind_rows(by_category: dict[str, dict[str, int]]) -> int:
    return sum(n for by_language in by_category.values() for n in by_language.values())


def yaml_dump(value: dict[str, Any]) -> str:
    """yaml.safe_dump's output (keys in order, Unicode as is), through libyaml when it is
    there: the front matter's features of every config are thousands of nodes, a share of
    the card's time in pure Python."""
    return yaml.dump(
        value, Dumper=_SAFE_DUMPER, sort_keys=False, allow_unicode=True, default_flow_style=False
    )


_SAFE_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


# --- the card ------------------------------------------------------------------------------


def release_card(
    *, release: Release, previous: Release | None, changelog: dict[str, Any], directory: Path
) -> CardDocuments:
    """The card of `release`: every registered section's facts (a section whose facts are
    None or empty is left out), README.md written from them, and CITATION.cff."""
    layout = release_layout(directory=directory)
    configs = hub_configs(layout)
    context = CardContext(
        release=release, previous=previous, changelog=changelog, directory=directory
    )
    facts: dict[str, Any] = {
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
        "front_matter": card_front_matter(release=release, layout=layout, configs=configs),
        "sections": [],
    }
    for section in card_sections():
        if section.name in RESERVED_KEYS:
            raise ValueError(f"card section {section.name!r}: the name is one of card.json's")
        section_facts = section.facts(context)
        if not section_facts:
            continue
        facts[section.name] = section_facts
        facts["sections"].append({"name": section.name, "part": section.part})
    return CardDocuments(
        readme=card_readme(facts), facts=facts, citation=release_citation(release=release)
    )


def card_readme(facts: dict[str, Any]) -> str:
    """README.md from card.json alone: the front matter and the body."""
    front = yaml_dump(facts["front_matter"])
    return f"---\n{front}---\n\n{card_body(facts)}"


def card_body(facts: dict[str, Any]) -> str:
    """The datasheet: the title, then each section written (card.json's "sections"), under
    its part's heading, written once before the part's first section."""
    chunks = [f"# {md_text(facts['front_matter']['pretty_name'])}\n"]
    part = None
    for entry in facts["sections"]:
        if entry["part"] != part:
            part = entry["part"]
            chunks.append(f"## {CARD_PARTS[part]}\n")
        render = card_section_get(entry["name"]).render
        chunks.append(render(facts[entry["name"]]).strip("\n") + "\n")
    return "\n".join(chunks)


# --- CITATION.cff --------------------------------------------------------------------------


def cff_author(line: str) -> dict[str, str]:
    """One line of card_authors: "Family, Given" is a person, anything else a name (a team,
    or a person written without a comma)."""
    family, comma, given = line.partition(",")
    if comma and family.strip() and given.strip():
        return {"family-names": family.strip(), "given-names": given.strip()}
    return {"name": line.strip().strip(",").strip()}


def release_citation(*, release: Release) -> str:
    """CITATION.cff (Citation File Format 1.2.0) for the release."""
    dataset = release.dataset
    title = dataset.pretty_name or dataset.name
    authors = [cff_author(line) for line in card_author_lines(text=dataset.card_authors)]
    if not authors:
        # CFF requires one author; say plainly that none was named rather than invent one.
        authors = [{"name": f"{title} authors (not named yet)"}]
    cff: dict[str, Any] = {
        "cff-version": "1.2.0",
        "message": CFF_MESSAGE,
        "type": "dataset",
        "title": title,
        "version": f"r{release.number}",
        "date-released": timezone.localtime(release.created_at).date(),
        "authors": authors,
    }
    spdx = license_spdx(license_id=dataset.license)
    if spdx:
        cff["license"] = spdx
    if dataset.description.strip():
        cff["abstract"] = dataset.description.strip()
    return yaml_dump(cff)


# --- Markdown helpers for the sections (the other apps' card modules use them too) ---------

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


def md_text(value: Any) -> str:
    """A value shown as literal text in Markdown: its special characters escaped, its line
    breaks made spaces (a table cell or a heading is one line)."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(value).split()))


def md_number(value: int | float) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:,.3f}"


def markdown_table(
    headers: list[str], rows: list[list[Any]], *, numeric: tuple[int, ...] = ()
) -> str:
    """A GitHub-flavoured Markdown table. Cells are escaped (md_text); numbers formatted with
    thousands separators; the columns numbered in `numeric` are right-aligned."""

    def cell(value: Any) -> str:
        if isinstance(value, bool):
            return md_text(value)
        if isinstance(value, int | float):
            return md_number(value)
        return md_text(value) if value not in (None, "") else "—"

    align = ["---:" if i in numeric else "---" for i in range(len(headers))]
    lines = [
        "| " + " | ".join(md_text(h) for h in headers) + " |",
        "| " + " | ".join(align) + " |",
        *("| " + " | ".join(cell(v) for v in row) + " |" for row in rows),
    ]
    return "\n".join(lines) + "\n"
