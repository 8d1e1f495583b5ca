"""JSON that is already JSON: a hot list can have PostgreSQL render its rows and hand the text
through, instead of loading it into Python objects only to dump them again (P9). And the
negotiation of views whose `?format=` names a download format, not a renderer."""

from __future__ import annotations

import json

from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.renderers import JSONRenderer


class RawJSON(str):
    """A string that is a complete JSON value, written into the response as it is."""


class RawJSONRenderer(JSONRenderer):
    """DRF's JSON renderer, except that a top-level dict's RawJSON values are inserted verbatim
    (e.g. a page `{"next": ..., "previous": ..., "results": <rows rendered by the database>}`).
    Anything else renders exactly as JSONRenderer renders it."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if not isinstance(data, dict) or not any(isinstance(v, RawJSON) for v in data.values()):
            return super().render(data, accepted_media_type, renderer_context)
        parts = []
        for key, value in data.items():
            if not isinstance(value, RawJSON):
                value = json.dumps(
                    value,
                    cls=self.encoder_class,
                    ensure_ascii=self.ensure_ascii,
                    allow_nan=not self.strict,
                    separators=(",", ":"),
                )
            parts.append(f"{json.dumps(str(key), ensure_ascii=self.ensure_ascii)}:{value}")
        return ("{" + ",".join(parts) + "}").encode()


class IgnoreFormatNegotiation(BaseContentNegotiation):
    """`?format=` names a file format (a release file, Table 3 as CSV), not a DRF renderer:
    the view answers in its first renderer (JSON) whatever it says, instead of DRF's
    negotiation turning `format=jsonl` into a 404."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type
