"""Request parsers for the API.

NUL characters are refused for every request by one guard, apps/core/middleware.py. The one
body it does not read is multipart (it may be a large upload a view refuses unread): this
parser puts the fields it parses through the same check, so every API view parses multipart
with it (the default in REST_FRAMEWORK, and named where a view lists its parsers)."""

from __future__ import annotations

from rest_framework.exceptions import ValidationError
from rest_framework.parsers import MultiPartParser

from .middleware import nul_errors, nul_find_pairs


class NulSafeMultiPartParser(MultiPartParser):
    def parse(self, stream, media_type=None, parser_context=None):
        parsed = super().parse(stream, media_type, parser_context)
        where = nul_find_pairs(parsed.data.lists())
        if where is None:
            where = nul_find_pairs(
                (key, [upload.name or "" for upload in uploads])
                for key, uploads in parsed.files.lists()
            )
        if where is not None:
            raise ValidationError(nul_errors(where))
        return parsed
