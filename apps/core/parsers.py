"""Request parsers for the API.

PostgreSQL text columns cannot hold NUL (U+0000): a JSON body carrying one would reach the
database as a lookup or an insert and fail there as a 500. No Kasauti text needs the
character, so the JSON parser refuses it at the boundary with a 400 naming the field."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


def _find_nul(value: Any, path: str) -> str | None:
    if isinstance(value, str):
        return path if "\x00" in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if "\x00" in str(key):
                return where
            found = _find_nul(item, where)
            if found:
                return found
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = _find_nul(item, f"{path}[{index}]")
            if found:
                return found
    return None


class NulSafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        where = _find_nul(data, "")
        if where is not None:
            raise ParseError(f"{where or 'body'}: text may not contain the NUL character (U+0000)")
        return data
