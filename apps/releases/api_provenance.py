"""GET /api/instances/<id>/provenance/ (issue 22). To be built."""

from __future__ import annotations

from rest_framework.exceptions import NotFound
from rest_framework.views import APIView


class InstanceProvenanceApi(APIView):
    def get(self, request, pk: int):
        raise NotFound("not built yet")
