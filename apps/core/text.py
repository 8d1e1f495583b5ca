"""Text normalisation at the system boundary.

Every string that enters Kasauti (imports, API input, forms) is normalised to Unicode NFC so
that visually identical Indic strings compare equal and round-trip byte for byte.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

# A language code as Kasauti stores it: ISO 639-1/3, optionally with subtags (hi, mni, pt-BR).
LANGUAGE_CODE_RE = re.compile(r"^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$")


def is_language_code(value: str) -> bool:
    """Whether `value` is a language code (hi, ca, mni, pt-BR)."""
    return bool(LANGUAGE_CODE_RE.match(value))


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
