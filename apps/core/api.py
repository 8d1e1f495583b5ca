"""Shared API pieces: error mapping and the job resource."""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.generics import RetrieveAPIView
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from apps.accounts.permissions import HasRole

from .errors import ImportRejected, KasautiError
from .models import Job


def exception_handler(exc, context):
    """Domain errors become JSON responses with their message (and import problems listed)."""
    if isinstance(exc, ImportRejected):
        return Response(
            {
                "detail": "import rejected, nothing was written",
                "problems": [p.as_dict() for p in exc.problems],
            },
            status=exc.status_code,
        )
    if isinstance(exc, KasautiError):
        return Response({"detail": str(exc)}, status=exc.status_code)
    return drf_exception_handler(exc, context)


class JobOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = Job
        fields = [
            "id",
            "kind",
            "status",
            "params",
            "result",
            "error",
            "progress_done",
            "progress_total",
            "attempts",
            "created_at",
            "started_at",
            "finished_at",
        ]


class JobDetailApi(RetrieveAPIView):
    """State of a background job (instantiation, release, translation)."""

    permission_classes = [HasRole]
    serializer_class = JobOutputSerializer
    queryset = Job.objects.all()
