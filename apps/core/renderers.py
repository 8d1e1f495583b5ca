"""JSON that is already JSON: a hot list can have PostgreSQL render its rows and hand the text
through, instead of loading it into Python objects only to dump them again (P9)."""

from __future__ import annotations

import json

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
