"""Serializer fields and limits the catalog's API modules share."""

from __future__ import annotations

from rest_framework import serializers

from apps.core.text import nfc


def column(model, name: str) -> int:
    """The database column's max_length, so over-long input is a 400 naming the field
    instead of a DataError (500) after part of the work was written."""
    return model._meta.get_field(name).max_length


# PositiveIntegerField's range in PostgreSQL (integer).
MAX_INTEGER = 2_147_483_647


class NfcCharField(serializers.CharField):
    """Every string entering through the API is stored in NFC."""

    def to_internal_value(self, data):
        return nfc(super().to_internal_value(data))
