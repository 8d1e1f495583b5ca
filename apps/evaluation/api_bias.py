"""API to start CrowS-Pairs, SEAT and IndiCASA runs (researchers). Thin: validate, call the
service, answer with the run and its job. Reading runs, their items and downloads goes through
the general run endpoints (/api/evaluation/runs/...)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import IsResearcher
from apps.catalog.models import Dataset

from .models import EvaluationRun, ModelEntry, RunKind, RunStatus
from .services.crows import crows_run_create
from .services.indicasa import LOSSES, indicasa_train_run_create
from .services.indicasa_generate import indicasa_generate_run_create
from .services.seat import seat_run_create

MAX_SEED = 2_147_483_647


class BiasRunOutputSerializer(serializers.ModelSerializer):
    # As when they were model choices; the status is read from the run's job.
    kind = serializers.ChoiceField(choices=RunKind.choices)
    status = serializers.ChoiceField(choices=RunStatus.choices, required=False)

    class Meta:
        model = EvaluationRun
        fields = ["id", "kind", "status", "dataset", "model", "model_label", "params", "job"]


def _languages():
    return serializers.ListField(
        child=serializers.CharField(max_length=16), required=False, allow_empty=False
    )


def _dataset():
    return serializers.PrimaryKeyRelatedField(queryset=Dataset.objects.all())


def _model(required: bool = True):
    return serializers.PrimaryKeyRelatedField(
        queryset=ModelEntry.objects.all(), required=required, allow_null=not required
    )


class _CreateApi(APIView):
    permission_classes = [IsResearcher]
    service = None

    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        run = type(self).service(**serializer.validated_data, created_by=request.user)
        return Response(BiasRunOutputSerializer(run).data, status=status.HTTP_201_CREATED)


class CrowsRunCreateApi(_CreateApi):
    class CrowsRunInputSerializer(serializers.Serializer):
        dataset = _dataset()
        model = _model()
        languages = _languages()
        runs = serializers.IntegerField(min_value=1, max_value=100, default=5)
        fraction = serializers.FloatField(min_value=0.01, max_value=1.0, default=0.8)
        seed = serializers.IntegerField(min_value=0, max_value=MAX_SEED, default=0)
        batch_size = serializers.IntegerField(min_value=1, max_value=1024, default=32)

    InputSerializer = CrowsRunInputSerializer
    service = crows_run_create

    @extend_schema(request=CrowsRunInputSerializer, responses={201: BiasRunOutputSerializer})
    def post(self, request: Request) -> Response:
        return super().post(request)


class SeatRunCreateApi(_CreateApi):
    class SeatRunInputSerializer(serializers.Serializer):
        dataset = _dataset()
        model = _model(required=False)
        languages = _languages()
        tests = serializers.ListField(
            child=serializers.CharField(max_length=300), required=False, allow_empty=False
        )
        n_samples = serializers.IntegerField(min_value=2, max_value=1_000_000, default=100_000)
        max_exact = serializers.IntegerField(min_value=1, max_value=1_000_000, default=100_000)
        seed = serializers.IntegerField(min_value=0, max_value=MAX_SEED, default=0)

    InputSerializer = SeatRunInputSerializer
    service = seat_run_create

    @extend_schema(request=SeatRunInputSerializer, responses={201: BiasRunOutputSerializer})
    def post(self, request: Request) -> Response:
        return super().post(request)


class IndicasaTrainRunCreateApi(_CreateApi):
    class IndicasaTrainRunInputSerializer(serializers.Serializer):
        dataset = _dataset()
        model = _model(required=False)
        loss = serializers.ChoiceField(choices=LOSSES, default="ntb_xent")
        temperature = serializers.FloatField(min_value=1e-3, max_value=100, default=0.5)
        margin = serializers.FloatField(min_value=1e-3, max_value=0.999, default=0.5)
        epochs = serializers.IntegerField(min_value=1, max_value=100, default=3)
        learning_rate = serializers.FloatField(min_value=1e-8, max_value=1.0, default=2e-5)
        contexts_per_step = serializers.IntegerField(min_value=1, max_value=1024, default=8)
        mlp_epochs = serializers.IntegerField(min_value=1, max_value=10_000, default=100)
        languages = _languages()
        seed = serializers.IntegerField(min_value=0, max_value=MAX_SEED, default=0)

    InputSerializer = IndicasaTrainRunInputSerializer
    service = indicasa_train_run_create

    @extend_schema(
        request=IndicasaTrainRunInputSerializer, responses={201: BiasRunOutputSerializer}
    )
    def post(self, request: Request) -> Response:
        return super().post(request)


class IndicasaGenerateRunCreateApi(_CreateApi):
    class IndicasaGenerateRunInputSerializer(serializers.Serializer):
        dataset = _dataset()
        model = _model()
        encoder = _model(required=False)
        languages = _languages()
        rounds = serializers.IntegerField(min_value=1, max_value=50, default=5)
        max_attempts = serializers.IntegerField(min_value=1, max_value=10, default=3)
        max_new_tokens = serializers.IntegerField(min_value=1, max_value=1024, default=64)
        temperature = serializers.FloatField(min_value=1e-3, max_value=10, default=0.8)
        top_p = serializers.FloatField(min_value=1e-3, max_value=1.0, default=0.9)
        batch_size = serializers.IntegerField(min_value=1, max_value=256, default=8)
        seed = serializers.IntegerField(min_value=0, max_value=MAX_SEED, default=0)

    InputSerializer = IndicasaGenerateRunInputSerializer
    service = indicasa_generate_run_create

    @extend_schema(
        request=IndicasaGenerateRunInputSerializer, responses={201: BiasRunOutputSerializer}
    )
    def post(self, request: Request) -> Response:
        return super().post(request)
