"""The instance API: the catalog's largest table (millions of rows), read page by page.

P9 (bench/p9_instances.py): a list page is one indexed query whose rows PostgreSQL renders as
JSON (selectors.instance_json_rows), passed through to the response as text; keyset (cursor)
pages, no COUNT. InstanceOutput stays the declaration of a row (OpenAPI, the detail view and
the fallback for other databases), and the tests hold the two renderings equal.
"""

from __future__ import annotations

from django.db import connection
from django.utils import timezone
from rest_framework import generics, serializers
from rest_framework.exceptions import NotFound
from rest_framework.pagination import CursorPagination
from rest_framework.renderers import BrowsableAPIRenderer

from apps.accounts.permissions import ResearcherOrReadOnly
from apps.core.renderers import RawJSON, RawJSONRenderer

from . import selectors
from .instance_json import INSTANCE_JSON_FIELDS
from .models import Instance

# Ids are bigints.
MAX_ID = 2**63 - 1


class InstanceCursorPagination(CursorPagination):
    """Keyset pages in id order: `WHERE id > <last id of the page> ORDER BY id LIMIT n + 1`,
    whatever the depth; `next` and `previous` carry the position. No count."""

    page_size = 100
    max_page_size = 1000
    page_size_query_param = "page_size"
    ordering = "id"

    def decode_cursor(self, request):
        cursor = super().decode_cursor(request)
        # The position is compared with the id column: a forged non-integer one is a bad
        # cursor (404 "Invalid cursor", as DRF answers any undecodable cursor), not a 500.
        if cursor is not None and cursor.position is not None:
            position = cursor.position
            if not (position.isascii() and position.isdigit() and int(position) <= MAX_ID):
                raise NotFound(self.invalid_cursor_message)
        return cursor


class InstanceOutput(serializers.ModelSerializer):
    category = serializers.SlugRelatedField(slug_field="name", read_only=True)
    provenance = serializers.SerializerMethodField()

    class Meta:
        model = Instance
        fields = list(INSTANCE_JSON_FIELDS)

    def get_provenance(self, instance: Instance) -> dict:
        """From any instance back to its template version and stereotype concept (none for
        instances imported from a published file)."""
        version = instance.template_version
        return {
            "template_id": version.template_id if version else None,
            "template_external_id": version.template.external_id if version else None,
            "template_version_id": version.pk if version else None,
            "template_version": version.number if version else None,
            "concept_id": version.concept_id if version else None,
            "concept": version.concept.statement if version and version.concept else None,
            "combination": instance.combination,
            "name_order": instance.name_order,
        }

    def to_representation(self, instance: Instance) -> dict:
        # The fields above stay the declaration (OpenAPI); the values are plain attributes,
        # read directly, in the declared order, as those fields would render them.
        data = {}
        for name in self.Meta.fields:
            if name == "category":
                data[name] = instance.category.name
            elif name == "source_instance":
                data[name] = instance.source_instance_id
            elif name == "retired_at":
                value = instance.retired_at
                data[name] = None if value is None else self.fields[name].to_representation(value)
            elif name == "provenance":
                data[name] = self.get_provenance(instance)
            else:
                data[name] = getattr(instance, name)
        return data


def _database_renders_rows() -> bool:
    """selectors.instance_json_rows needs PostgreSQL, and renders times in UTC (TIME_ZONE)."""
    return connection.vendor == "postgresql" and timezone.get_current_timezone_name() == "UTC"


class InstanceListApi(generics.ListAPIView):
    permission_classes = [ResearcherOrReadOnly]
    queryset = selectors.instance_list()
    serializer_class = InstanceOutput
    filterset_class = selectors.InstanceFilter
    pagination_class = InstanceCursorPagination
    renderer_classes = [RawJSONRenderer, BrowsableAPIRenderer]

    def list(self, request, *args, **kwargs):
        if not _database_renders_rows():
            return super().list(request, *args, **kwargs)
        # The same filters and cursor pages as the generic list, on id + the row's JSON text.
        rows = self.paginate_queryset(self.filter_queryset(selectors.instance_json_rows()))
        results = RawJSON("[" + ",".join(row["doc"] for row in rows) + "]")
        return self.get_paginated_response(results)


class InstanceDetailApi(generics.RetrieveAPIView):
    permission_classes = [ResearcherOrReadOnly]
    queryset = selectors.instance_list()
    serializer_class = InstanceOutput
