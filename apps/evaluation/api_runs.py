"""Evaluation API for runs: start a BBQ-style multiple-choice run, list and read runs, their
metrics, predictions, downloads (as the run's kind provides them) and comparisons."""

from __future__ import annotations

import json

from django.http import Http404, HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.generics import ListAPIView
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import HasRole, ResearcherOrReadOnly
from apps.catalog.models import Dataset
from apps.releases.models import Release

from . import bias_tables, selectors
from .api import VALIDATION_400, ErrorSerializer
from .models import (
    EvaluationRun,
    InstructionLanguage,
    ModelEntry,
    Prediction,
    PromptTemplate,
    RunKind,
    RunStatus,
)
from .services.parts import run_parts_summary
from .services.runs import run_create


class RunOutputSerializer(serializers.ModelSerializer):
    dataset_name = serializers.CharField(source="dataset.name")
    release_number = serializers.IntegerField(
        source="release.number", default=None, allow_null=True
    )
    created_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    job_status = serializers.CharField(source="job.status", default=None, allow_null=True)
    # The kind's and the status's vocabularies, as when they were model choices (the schema's
    # RunKindEnum / RunStatusEnum). Status, error and finished time are read from the run's
    # job (EvaluationRun.status): queued, running, partial, complete, failed.
    kind = serializers.ChoiceField(choices=RunKind.choices)
    status = serializers.ChoiceField(choices=RunStatus.choices, required=False)
    error = serializers.CharField(required=False, allow_blank=True)
    finished_at = serializers.DateTimeField(required=False, allow_null=True)
    overall = serializers.SerializerMethodField()

    class Meta:
        model = EvaluationRun
        fields = [
            "id",
            "kind",
            "status",
            "dataset",
            "dataset_name",
            "release",
            "release_number",
            "model",
            "model_label",
            "prompt_template",
            "shots",
            "instruction_language",
            "params",
            "model_info",
            "job",
            "job_status",
            "overall",
            "report",
            "error",
            "created_by",
            "created_at",
            "finished_at",
        ]

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_overall(self, run: EvaluationRun) -> dict:
        return (run.results or {}).get("overall") or {}


class RunPartOutputSerializer(serializers.Serializer):
    """One part of a run split across workers (services/parts.py)."""

    part = serializers.IntegerField()
    items = serializers.IntegerField()
    job_id = serializers.IntegerField()
    status = serializers.CharField()
    worker = serializers.CharField(help_text="The Celery node that last took the part up.")
    workers = serializers.ListField(
        child=serializers.CharField(), help_text="Every node that took it up, in order."
    )
    attempts = serializers.IntegerField()
    recoveries = serializers.IntegerField()


class RunDetailOutputSerializer(RunOutputSerializer):
    parts = serializers.SerializerMethodField()

    class Meta(RunOutputSerializer.Meta):
        fields = [*RunOutputSerializer.Meta.fields, "parts"]

    @extend_schema_field(RunPartOutputSerializer(many=True))
    def get_parts(self, run: EvaluationRun) -> list[dict]:
        if run.job is None:
            return []
        return RunPartOutputSerializer(run_parts_summary(run_job=run.job), many=True).data


class RunListApi(ListAPIView):
    """Evaluation runs, newest first; filter by kind, status, dataset, release, model.
    Researchers start a BBQ-style multiple-choice run with POST (202: queued as a job)."""

    permission_classes = [ResearcherOrReadOnly]
    serializer_class = RunOutputSerializer
    filterset_class = selectors.RunFilter

    class InputSerializer(serializers.Serializer):
        model = serializers.PrimaryKeyRelatedField(queryset=ModelEntry.objects.all())
        release = serializers.PrimaryKeyRelatedField(
            queryset=Release.objects.all(), required=False, allow_null=True, default=None
        )
        dataset = serializers.PrimaryKeyRelatedField(
            queryset=Dataset.objects.all(), required=False, allow_null=True, default=None
        )
        prompt_template = serializers.PrimaryKeyRelatedField(
            queryset=PromptTemplate.objects.all(), required=False, allow_null=True, default=None
        )
        shots = serializers.ChoiceField(choices=[0, 2], default=0)
        instruction_language = serializers.ChoiceField(
            choices=InstructionLanguage.choices, default=InstructionLanguage.ENGLISH
        )
        batch_size = serializers.IntegerField(
            min_value=1, max_value=1024, required=False, allow_null=True, default=None
        )

        class Meta:
            ref_name = "RunCreateInput"

    def get_queryset(self):
        return selectors.run_list()

    @extend_schema(
        request=InputSerializer,
        responses={202: RunOutputSerializer, 400: VALIDATION_400},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        run = run_create(created_by=request.user, **data.validated_data)
        run = selectors.run_get(run_id=run.pk)
        return Response(RunOutputSerializer(run).data, status=status.HTTP_202_ACCEPTED)


def _run_or_404(pk: int) -> EvaluationRun:
    run = selectors.run_get(run_id=pk)
    if run is None:
        raise Http404("No such evaluation run.")
    return run


class RunDetailApi(APIView):
    permission_classes = [HasRole]

    @extend_schema(responses={200: RunDetailOutputSerializer, 404: ErrorSerializer})
    def get(self, request: Request, pk: int) -> Response:
        return Response(RunDetailOutputSerializer(_run_or_404(pk)).data)


class RunMetricsApi(APIView):
    """Every figure of the run: overall, by category, language, noun type, category x
    language (x context condition); null where undefined, with the reason under
    `undefined`."""

    permission_classes = [HasRole]

    @extend_schema(responses={200: OpenApiTypes.OBJECT, 404: ErrorSerializer})
    def get(self, request: Request, pk: int) -> Response:
        run = _run_or_404(pk)
        return Response({"run": run.pk, "status": run.status, **(run.results or {})})


class PredictionOutputSerializer(serializers.ModelSerializer):
    category = serializers.CharField(source="instance.category.name")
    language = serializers.CharField(source="instance.language")
    context_condition = serializers.CharField(source="instance.context_condition")
    question_polarity = serializers.CharField(source="instance.question_polarity")
    label = serializers.IntegerField(source="instance.label")

    class Meta:
        model = Prediction
        fields = [
            "id",
            "instance",
            "item_key",
            "category",
            "language",
            "context_condition",
            "question_polarity",
            "label",
            "chosen",
            "raw",
            "sum_logprobs",
            "mean_logprobs",
            "n_tokens",
        ]


class RunPredictionListApi(ListAPIView):
    """The run's per-item predictions (paginated, in scoring order)."""

    permission_classes = [HasRole]
    serializer_class = PredictionOutputSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return Prediction.objects.none()
        return selectors.run_predictions(run=_run_or_404(self.kwargs["pk"]))


class RunDownloadApi(APIView):
    """Download the run's predictions or metrics as CSV or JSON."""

    permission_classes = [HasRole]
    renderer_classes = [JSONRenderer]

    @extend_schema(
        parameters=[
            OpenApiParameter("what", OpenApiTypes.STR, enum=["predictions", "metrics"]),
            OpenApiParameter("as", OpenApiTypes.STR, enum=["csv", "json"]),
        ],
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="CSV download"),
            (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT),
            400: ErrorSerializer,
            404: ErrorSerializer,
        },
    )
    def get(self, request: Request, pk: int):
        what = request.query_params.get("what", "metrics")
        as_ = request.query_params.get("as", "csv")
        if what not in ("predictions", "metrics") or as_ not in ("csv", "json"):
            return Response(
                {"detail": "what must be predictions or metrics, and as csv or json"},
                status=status.HTTP_400_BAD_REQUEST,
            )
        run = _run_or_404(pk)
        name = f"run-{run.pk}-{what}.{as_}"
        disposition = f'attachment; filename="{name}"'
        kind = run.evaluation_kind
        by_item = not kind.scored_by_prediction
        if what == "metrics" and as_ == "csv":
            response = HttpResponse(
                kind.metrics_csv_of(run=run), content_type="text/csv; charset=utf-8"
            )
        elif what == "metrics":
            body = {"run": run.pk, "model": run.model_label, **(run.results or {})}
            response = HttpResponse(
                json.dumps(body, ensure_ascii=False, indent=1),
                content_type="application/json",
            )
        elif by_item and as_ == "csv":
            # CrowS-Pairs, SEAT, IndiCASA: the per-item scores (for CrowS, per pair).
            response = StreamingHttpResponse(
                bias_tables.item_results_csv(run), content_type="text/csv; charset=utf-8"
            )
        elif by_item:
            rows = list(bias_tables.item_result_rows(run))
            response = HttpResponse(
                json.dumps({"run": run.pk, "predictions": rows}, ensure_ascii=False),
                content_type="application/json",
            )
        elif as_ == "csv":
            response = StreamingHttpResponse(
                selectors.run_predictions_csv(run=run), content_type="text/csv; charset=utf-8"
            )
        else:
            rows = [
                selectors.prediction_row(p)
                for p in selectors.run_predictions(run=run).iterator(chunk_size=2000)
            ]
            response = HttpResponse(
                json.dumps({"run": run.pk, "predictions": rows}, ensure_ascii=False),
                content_type="application/json",
            )
        response["Content-Disposition"] = disposition
        return response


class RunCompareApi(APIView):
    """Runs side by side: `?runs=1,2,3` (at most 10)."""

    permission_classes = [HasRole]

    @extend_schema(
        parameters=[OpenApiParameter("runs", OpenApiTypes.STR, required=True)],
        responses={200: OpenApiTypes.OBJECT, 400: ErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        raw = request.query_params.get("runs", "")
        try:
            ids = [int(part) for part in raw.split(",") if part.strip()]
        except ValueError:
            ids = []
        if not ids or len(ids) > 10 or any(not 0 < pk < 2**63 for pk in ids):
            return Response(
                {"detail": "runs: give 1 to 10 run ids separated by commas"},
                status=status.HTTP_400_BAD_REQUEST,
            )
        found = {run.pk: run for run in selectors.run_list().filter(pk__in=ids)}
        missing = [pk for pk in ids if pk not in found]
        if missing:
            return Response(
                {"detail": f"no evaluation run with id {', '.join(map(str, missing))}"},
                status=status.HTTP_400_BAD_REQUEST,
            )
        return Response(selectors.runs_compare(runs=[found[pk] for pk in ids]))
