"""The dataset card's own fields (issue 22): the licence, the pretty name, the authors and the
researcher's four texts (uses, limitations, ethics, citation), kept on the dataset and copied
into the card of every later release (a release's card is frozen with it).

HUB_LICENSES is the one list of licences a dataset can choose: the Hugging Face Hub's licence
identifiers (what the card's front matter says), each with its label and, where it has one,
its SPDX identifier (what CITATION.cff says; CFF accepts SPDX identifiers only).
"""

from __future__ import annotations

from typing import NamedTuple

from django.db import transaction

from apps.core.errors import KasautiError
from apps.core.text import nfc

from ..models import Dataset


class HubLicense(NamedTuple):
    label: str
    spdx: str | None  # None: no SPDX identifier (CITATION.cff leaves the licence out)


# The Hub's licence identifiers (huggingface.co/docs/hub/repositories-licenses) that a
# benchmark dataset is likely to carry, in the order the form lists them.
HUB_LICENSES: dict[str, HubLicense] = {
    "unknown": HubLicense("Unknown (not chosen yet)", None),
    "cc-by-4.0": HubLicense("Creative Commons Attribution 4.0", "CC-BY-4.0"),
    "cc-by-sa-4.0": HubLicense("Creative Commons Attribution-ShareAlike 4.0", "CC-BY-SA-4.0"),
    "cc-by-nc-4.0": HubLicense("Creative Commons Attribution-NonCommercial 4.0", "CC-BY-NC-4.0"),
    "cc-by-nc-sa-4.0": HubLicense(
        "Creative Commons Attribution-NonCommercial-ShareAlike 4.0", "CC-BY-NC-SA-4.0"
    ),
    "cc-by-nc-nd-4.0": HubLicense(
        "Creative Commons Attribution-NonCommercial-NoDerivatives 4.0", "CC-BY-NC-ND-4.0"
    ),
    "cc-by-nd-4.0": HubLicense("Creative Commons Attribution-NoDerivatives 4.0", "CC-BY-ND-4.0"),
    "cc-by-3.0": HubLicense("Creative Commons Attribution 3.0", "CC-BY-3.0"),
    "cc-by-sa-3.0": HubLicense("Creative Commons Attribution-ShareAlike 3.0", "CC-BY-SA-3.0"),
    "cc0-1.0": HubLicense("Creative Commons Zero 1.0 (public domain)", "CC0-1.0"),
    "odc-by": HubLicense("Open Data Commons Attribution License", "ODC-By-1.0"),
    "odbl": HubLicense("Open Database License", "ODbL-1.0"),
    "pddl": HubLicense("Open Data Commons Public Domain Dedication", "PDDL-1.0"),
    "cdla-permissive-2.0": HubLicense(
        "Community Data License Agreement Permissive 2.0", "CDLA-Permissive-2.0"
    ),
    "cdla-sharing-1.0": HubLicense(
        "Community Data License Agreement Sharing 1.0", "CDLA-Sharing-1.0"
    ),
    "apache-2.0": HubLicense("Apache License 2.0", "Apache-2.0"),
    "mit": HubLicense("MIT License", "MIT"),
    "bsd-3-clause": HubLicense("BSD 3-Clause License", "BSD-3-Clause"),
    "gpl-3.0": HubLicense("GNU General Public License v3.0", "GPL-3.0-only"),
    "openrail": HubLicense("Open RAIL License", None),
    "other": HubLicense("Other (say which in the card's texts)", None),
}
UNKNOWN_LICENSE = "unknown"

# What dataset_card_update may change, in the form's order.
CARD_FIELDS = ("license", "pretty_name", "card_authors", *Dataset.CARD_TEXT_FIELDS)
# Texts kept as written (line breaks, indentation: Markdown and BibTeX), only NFC-normalised
# and trimmed at both ends; the one-line fields are also stripped of inner line breaks.
_ONE_LINE = ("license", "pretty_name")
PRETTY_NAME_MAX = Dataset._meta.get_field("pretty_name").max_length
# A sane bound for a free text: a card section, not a file upload.
TEXT_MAX = 20_000


def license_spdx(*, license_id: str) -> str | None:
    """The SPDX identifier of a Hub licence id (None: unknown, other, or not SPDX)."""
    known = HUB_LICENSES.get(license_id)
    return known.spdx if known else None


def card_author_lines(*, text: str) -> list[str]:
    """The authors of `card_authors`, one per non-blank line."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def dataset_card_update(*, dataset: Dataset, **fields: str) -> list[str]:
    """Set the card's fields given (CARD_FIELDS) on `dataset`; return the names of the fields
    that changed. Strings are NFC-normalised here, at the boundary, so the card written from
    them compares equal to what the researcher typed whatever their keyboard sent.

    Raises KasautiError ("field: message") for an unknown field, an unknown licence or a text
    too long. The releases already made keep the card they were made with."""
    unknown = sorted(set(fields) - set(CARD_FIELDS))
    if unknown:
        raise KasautiError(f"unknown card field(s): {', '.join(unknown)}")
    cleaned: dict[str, str] = {}
    for name, value in fields.items():
        if not isinstance(value, str):
            raise KasautiError(f"{name}: expected text, got {type(value).__name__}")
        value = nfc(value).strip()
        if "\x00" in value:
            raise KasautiError(f"{name}: contains a NUL character")
        if name in _ONE_LINE:
            value = " ".join(value.split())
        cleaned[name] = value
    if "license" in cleaned:
        cleaned["license"] = cleaned["license"].lower() or UNKNOWN_LICENSE
        if cleaned["license"] not in HUB_LICENSES:
            raise KasautiError(
                f"license: {cleaned['license']!r} is not one of the Hub's licence ids "
                f"({', '.join(HUB_LICENSES)})"
            )
    if len(cleaned.get("pretty_name", "")) > PRETTY_NAME_MAX:
        raise KasautiError(f"pretty_name: at most {PRETTY_NAME_MAX} characters")
    for name in ("card_authors", *Dataset.CARD_TEXT_FIELDS):
        if len(cleaned.get(name, "")) > TEXT_MAX:
            raise KasautiError(f"{name}: at most {TEXT_MAX:,} characters")
    with transaction.atomic():
        locked = Dataset.objects.select_for_update().get(pk=dataset.pk)
        changed = [name for name, value in cleaned.items() if getattr(locked, name) != value]
        for name in changed:
            setattr(locked, name, cleaned[name])
        if changed:
            locked.save(update_fields=changed)
    for name in CARD_FIELDS:  # the caller's object shows what is stored now
        setattr(dataset, name, getattr(locked, name))
    return changed
