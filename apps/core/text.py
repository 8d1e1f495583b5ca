"""Text normalisation at the system boundary.

Every string that enters Kasauti (imports, API input, forms) is normalised to Unicode NFC so
that visually identical Indic strings compare equal and round-trip byte for byte.
"""

from __future__ import annotations

import unicodedata
from typing import Any


def nfc(value: str) -> str:
    return unicodedata.normalize("NFC", value)


def nfc_deep(value: Any) -> Any:
    """NFC-normalise every string inside nested lists/dicts (JSON-shaped data)."""
    if isinstance(value, str):
        return nfc(value)
    if isinstance(value, list):
        return [nfc_deep(item) for item in value]
    if isinstance(value, tuple):
        return tuple(nfc_deep(item) for item in value)
    if isinstance(value, dict):
        return {nfc_deep(key): nfc_deep(item) for key, item in value.items()}
    return value
