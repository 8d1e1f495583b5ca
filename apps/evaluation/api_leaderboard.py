"""Evaluation API for the leaderboard: its rows (filtered, ordered, paginated), the same rows as
CSV, two runs' category x language heat maps side by side, and "evaluate every registered model
on this release" (apps/evaluation/leaderboard.py, services/batch.py).

Who may do what: anyone with a Kasauti role reads; researchers and admins evaluate."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.generics import ListAPIView
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import HasRole, IsResearcher
from apps.releases.models import Release

from . import leaderboard, selectors
from .api import VALIDATION_400, ErrorSerializer
from .api_runs import RunOutputSerializer
from .metrics.bbq import METRIC_KEYS, METRIC_NAMES
from .models import InstructionLanguage
from .services.batch import release_evaluate_all

# The board's filters and ordering, shared by the list and its CSV.
BOARD_PARAMETERS = [
    OpenApiParameter("dataset", OpenApiTypes.STR, description="dataset id or name"),
    OpenApiParameter("release", OpenApiTypes.INT, description="release id"),
    OpenApiParameter("model", OpenApiTypes.STR, description="model label, exactly"),
    OpenApiParameter(
        "language",
        OpenApiTypes.STR,
        description=f"item language code, or {leaderboard.ALL_LANGUAGES!r}: all of a run's items",
    ),
    OpenApiParameter("setting", OpenApiTypes.STR, enum=list(leaderboard.SETTINGS)),
    OpenApiParameter(
        "ordering",
        OpenApiTypes.STR,
        enum=[
            *leaderboard.ORDER_KEYS,
            *(f"-{key}" for key in leaderboard.ORDER_KEYS),
        ],
        description="one column; a leading '-' orders descending. Undefined figures come last "
        "either way.",
    ),
]


def _query(request: Request) -> leaderboard.LeaderboardQuery | Response:
    query = leaderboard.leaderboard_query(request.query_params)
    if query.errors:
        return Response({"detail": "; ".join(query.errors)}, status=status.HTTP_400_BAD_REQUEST)
    return query


class LeaderboardListApi(ListAPIView):
    """The leaderboard: one row per model x dataset/release x language x prompt setting, from
    the latest complete BBQ-style run (multiple-choice runs and imported predictions). `language`
    "all" rows hold a run's overall figures. A figure is null when undefined, with the reason
    under `undefined`; `n_amb`, `n_dis`, `n_nnp` are the counts the figures are computed over."""

    permission_classes = [HasRole]
    filter_backends: list = []

    class OutputSerializer(serializers.Serializer):
        run = serializers.IntegerField()
        kind = serializers.CharField()
        model = serializers.CharField(help_text="the run's model label")
        model_id = serializers.IntegerField(allow_null=True)
        demo = serializers.BooleanField(help_text="a random-weight demo model: figures are noise")
        dataset = serializers.IntegerField()
        dataset_name = serializers.CharField()
        release = serializers.IntegerField(allow_null=True)
        release_number = serializers.IntegerField(allow_null=True)
        language = serializers.CharField()
        setting = serializers.ChoiceField(choices=list(leaderboard.SETTINGS))
        setting_label = serializers.CharField()
        shots = serializers.IntegerField(allow_null=True)
        instruction_language = serializers.CharField(allow_null=True)
        n_amb = serializers.IntegerField(allow_null=True)
        n_dis = serializers.IntegerField(allow_null=True)
        n_np = serializers.IntegerField(allow_null=True)
        n_nnp = serializers.IntegerField(allow_null=True)
        n_unanswered = serializers.IntegerField(allow_null=True)
        undefined = serializers.DictField(
            child=serializers.CharField(), help_text="figure key -> why it is undefined"
        )
        finished_at = serializers.DateTimeField(allow_null=True)

        class Meta:
            ref_name = "LeaderboardRow"

        def get_fields(self):
            # One nullable number per figure, from the one definition (metrics/bbq.py).
            fields = super().get_fields()
            for key in METRIC_KEYS:
                fields[key] = serializers.FloatField(
                    allow_null=True,
                    help_text=f"{METRIC_NAMES[key]} over {leaderboard.METRIC_N[key]} items",
                )
            return fields

    serializer_class = OutputSerializer

    @extend_schema(
        parameters=BOARD_PARAMETERS,
        responses={200: OutputSerializer(many=True), 400: VALIDATION_400},
    )
    def get(self, request: Request, *args, **kwargs) -> Response:
        query = _query(request)
        if isinstance(query, Response):
            return query
        self.board_rows = leaderboard.leaderboard_table(query=query)
        return self.list(request, *args, **kwargs)

    def get_queryset(self):
        return getattr(self, "board_rows", [])


class LeaderboardDownloadApi(APIView):
    """The leaderboard's rows as CSV, with the same filters and ordering as the list: every
    row (not one page), figures unrounded, an undefined figure empty with its reason in
    `<figure>_undefined`."""

    permission_classes = [HasRole]
    renderer_classes = [JSONRenderer]

    @extend_schema(
        parameters=BOARD_PARAMETERS,
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="CSV download"),
            400: VALIDATION_400,
        },
    )
    def get(self, request: Request):
        query = _query(request)
        if isinstance(query, Response):
            return query
        rows = leaderboard.leaderboard_table(query=query)
        response = HttpResponse(
            leaderboard.leaderboard_csv(rows), content_type="text/csv; charset=utf-8"
        )
        response["Content-Disposition"] = 'attachment; filename="leaderboard.csv"'
        return response


class LeaderboardHeatMapsApi(APIView):
    """Category x language cells of one figure for one or two complete BBQ-style runs, side by
    side: `?runs=12,15&metric=bs_a`. A cell's value is null when undefined, with the reason."""

    permission_classes = [HasRole]

    class OutputSerializer(serializers.Serializer):
        class RunMap(serializers.Serializer):
            class Row(serializers.Serializer):
                class Cell(serializers.Serializer):
                    language = serializers.CharField()
                    value = serializers.FloatField(allow_null=True)
                    n = serializers.IntegerField(help_text="n_amb + n_dis of the cell")
                    undefined = serializers.CharField(allow_null=True)
                    fill = serializers.CharField(help_text="the colour the page draws")

                    class Meta:
                        ref_name = "LeaderboardHeatMapCell"

                category = serializers.CharField()
                cells = Cell(many=True)

                class Meta:
                    ref_name = "LeaderboardHeatMapRow"

            run = serializers.IntegerField()
            model = serializers.CharField()
            demo = serializers.BooleanField()
            dataset = serializers.IntegerField()
            dataset_name = serializers.CharField()
            release = serializers.IntegerField(allow_null=True)
            release_number = serializers.IntegerField(allow_null=True)
            setting = serializers.CharField()
            setting_label = serializers.CharField()
            languages = serializers.ListField(child=serializers.CharField())
            rows = Row(many=True)

            class Meta:
                ref_name = "LeaderboardHeatMapRun"

        metric = serializers.CharField()
        label = serializers.CharField()
        signed = serializers.BooleanField(help_text="a bias score (-1..1, diverging colours)")
        runs = RunMap(many=True)

        class Meta:
            ref_name = "LeaderboardHeatMaps"

    @extend_schema(
        parameters=[
            OpenApiParameter("runs", OpenApiTypes.STR, required=True, description="1 or 2 ids"),
            OpenApiParameter("metric", OpenApiTypes.STR, enum=list(leaderboard.HEAT_MAP_CHOICES)),
        ],
        responses={200: OutputSerializer, 400: VALIDATION_400},
    )
    def get(self, request: Request) -> Response:
        try:
            ids = leaderboard.run_ids_parse(request.query_params.getlist("runs"))
            maps = leaderboard.heat_maps_side_by_side(
                run_ids=ids, metric=request.query_params.get("metric") or "bs_a"
            )
        except leaderboard.HeatMapsError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(self.OutputSerializer(leaderboard.heat_maps_output(maps)).data)


class EvaluateAllApi(APIView):
    """Evaluate every registered model on a release, in one prompt setting: one BBQ-style run
    per model that can be evaluated (each queued as a job), the others skipped with the reason.
    A refusal common to every model (no prompt template for a language, a release without
    disambiguated items) is a 400 and nothing is created."""

    permission_classes = [IsResearcher]

    class InputSerializer(serializers.Serializer):
        release = serializers.PrimaryKeyRelatedField(queryset=Release.objects.all())
        # 0 or 2 (an integer, not an enum: the schema's "shots" enums are the run form's).
        shots = serializers.IntegerField(default=0, help_text="0 or 2")
        instruction_language = serializers.ChoiceField(
            choices=InstructionLanguage.choices, default=InstructionLanguage.ENGLISH
        )

        class Meta:
            ref_name = "EvaluateAllInput"

        def validate_shots(self, value: int) -> int:
            if value not in (0, 2):
                raise serializers.ValidationError("shots must be 0 or 2")
            return value

    class OutputSerializer(serializers.Serializer):
        class Skipped(serializers.Serializer):
            model = serializers.IntegerField()
            model_name = serializers.CharField()
            reason = serializers.CharField()

            class Meta:
                ref_name = "EvaluateAllSkipped"

        release = serializers.IntegerField()
        shots = serializers.IntegerField()
        instruction_language = serializers.CharField()
        created = RunOutputSerializer(many=True)
        skipped = Skipped(many=True)

        class Meta:
            ref_name = "EvaluateAllOutput"

    @extend_schema(
        request=InputSerializer,
        responses={
            202: OutputSerializer,
            400: VALIDATION_400,
            503: ErrorSerializer,
        },
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        outcome = release_evaluate_all(created_by=request.user, **data.validated_data)
        created = {
            run.pk: run
            for run in selectors.run_list().filter(pk__in=[r.pk for r in outcome.created])
        }
        body = {
            "release": outcome.release.pk,
            "shots": outcome.shots,
            "instruction_language": outcome.instruction_language,
            "created": [created[run.pk] for run in outcome.created if run.pk in created],
            "skipped": [
                {"model": model.pk, "model_name": model.name, "reason": reason}
                for model, reason in outcome.skipped
            ],
        }
        return Response(self.OutputSerializer(body).data, status=status.HTTP_202_ACCEPTED)
