"""Shared API pieces: error mapping and the one job resource (/api/jobs/) of every kind."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from apps.accounts.permissions import HasRole, IsResearcher

from . import selectors, services
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


class JobLinkOutput(serializers.Serializer):
    label = serializers.CharField()
    url = serializers.CharField()


class JobPartOutput(serializers.Serializer):
    label = serializers.CharField()
    done = serializers.IntegerField()
    total = serializers.IntegerField()


class JobOutputSerializer(serializers.ModelSerializer):
    """A job as every poller and client sees it, whatever its kind."""

    title = serializers.SerializerMethodField()
    kind_label = serializers.SerializerMethodField()
    created_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    summary = serializers.SerializerMethodField()
    links = serializers.SerializerMethodField()
    parts = serializers.SerializerMethodField()
    page_url = serializers.SerializerMethodField()

    class Meta:
        model = Job
        fields = [
            "id",
            "kind",
            "kind_label",
            "title",
            "status",
            "params",
            "result",
            "summary",
            "links",
            "error",
            "progress_done",
            "progress_total",
            "progress_unit",
            "rate",
            "eta_seconds",
            "parts",
            "attempts",
            "recoveries",
            "created_by",
            "created_at",
            "started_at",
            "heartbeat_at",
            "finished_at",
            "page_url",
        ]

    def _view(self, job: Job) -> selectors.JobView:
        cache = self.context.setdefault("_job_views", {})
        if job.pk not in cache:
            cache[job.pk] = selectors.job_view(job=job)
        return cache[job.pk]

    def get_title(self, job: Job) -> str:
        return self._view(job).title

    def get_kind_label(self, job: Job) -> str:
        return self._view(job).kind_label

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_summary(self, job: Job) -> list[str]:
        return self._view(job).summary

    @extend_schema_field(JobLinkOutput(many=True))
    def get_links(self, job: Job) -> list[dict]:
        return [{"label": link.label, "url": link.url} for link in self._view(job).links]

    @extend_schema_field(JobPartOutput(many=True))
    def get_parts(self, job: Job) -> list[dict]:
        return [{"label": p.label, "done": p.done, "total": p.total} for p in self._view(job).parts]

    def get_page_url(self, job: Job) -> str:
        return self._view(job).page_url


class JobListApi(generics.ListAPIView):
    """Every background job (instantiation, release, translation, ...), newest first;
    ?kind= and ?status= filter."""

    permission_classes = [HasRole]
    serializer_class = JobOutputSerializer

    def get_queryset(self):
        params = self.request.query_params
        return selectors.job_list(kind=params.get("kind", ""), status=params.get("status", ""))


class JobDetailApi(generics.RetrieveAPIView):
    """State of a background job: status, progress (done/total, unit, rate, ETA, parts),
    readable summary and links, error with reason, who and when."""

    permission_classes = [HasRole]
    serializer_class = JobOutputSerializer
    queryset = Job.objects.select_related("created_by")


class JobCancelApi(APIView):
    """Cancel an unfinished job (researchers). Work done so far stays valid."""

    permission_classes = [IsResearcher]

    @extend_schema(request=None, responses={200: JobOutputSerializer})
    def post(self, request, pk: int):
        job = services.job_cancel(job=get_object_or_404(Job, pk=pk))
        return Response(JobOutputSerializer(job).data)


class JobResumeApi(APIView):
    """Re-queue what an unfinished, failed or cancelled job still needs (researchers)."""

    permission_classes = [IsResearcher]

    @extend_schema(request=None, responses={202: JobOutputSerializer})
    def post(self, request, pk: int):
        job = services.job_resume(job=get_object_or_404(Job, pk=pk))
        return Response(JobOutputSerializer(job).data, status=status.HTTP_202_ACCEPTED)
