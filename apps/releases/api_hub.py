"""GET /api/releases/<id>/hub/: the release as a Hugging Face dataset folder, zipped
(issue 22). To be built."""

from __future__ import annotations

from rest_framework.exceptions import NotFound
from rest_framework.views import APIView


class ReleaseHubApi(APIView):
    def get(self, request, pk: int):
        raise NotFound("not built yet")
