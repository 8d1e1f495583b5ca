"""Translation REST API. Thin views: validate, call a service or a selector, serialize.

Everyone with a role reads jobs, strings and corrections (annotators will work the correction
queue); only researchers and admins start, cancel or resume jobs.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import generics, serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from apps.accounts.permissions import HasRole, ResearcherOrReadOnly
from apps.catalog.models import Dataset
from apps.core.api import JobOutputSerializer
from apps.core.filters import choice_param, reference_param
from apps.releases.models import Release

from . import selectors, services
from .models import (
    DEFAULT_THRESHOLD,
    LANGUAGE_TAGS,
    CorrectionItem,
    CorrectionRevision,
    TranslatedString,
    TranslationJob,
    TranslationSource,
)


def translation_job_param(params) -> TranslationJob | None:
    """`?job=`: a translation job named by its one id, the core job id every page shows
    (/jobs/<id>/, /api/jobs/<id>/); unknown -> 400."""
    value = params.get("job", "").strip()
    if not value:
        return None
    found = None
    if "\x00" not in value and value.isascii() and value.isdigit() and len(value) < 19:
        found = TranslationJob.objects.filter(core_job_id=int(value)).first()
    if found is None:
        raise ValidationError({"job": [f"no translation job has the id {value!r}"]})
    return found


class TranslationJobOutput(serializers.ModelSerializer):
    """What only a translation job has; its state (status, progress, rate, ETA, error, result,
    summary, links) is `job`, the core job every poller reads (also at /api/jobs/<id>/).
    `id` is that core job's id: a translation job has one id everywhere."""

    id = serializers.IntegerField(source="core_job_id", read_only=True)
    dataset_name = serializers.CharField(source="dataset.name", read_only=True)
    job = JobOutputSerializer(source="core_job", read_only=True)

    class Meta:
        model = TranslationJob
        fields = [
            "id",
            "dataset",
            "dataset_name",
            "release",
            "languages",
            "threshold",
            "source",
            "phase",
            "forward_model_version",
            "backward_model_version",
            "embedder_version",
            "strings_in_items",
            "unique_strings",
            "cached_strings",
            "progress_by_language",
            "job",
        ]


class TranslationJobListApi(generics.ListCreateAPIView):
    """Translation jobs, newest first; POST starts one (researchers)."""

    @extend_schema_serializer(component_name="TranslationJobInput")
    class InputSerializer(serializers.Serializer):
        dataset = serializers.PrimaryKeyRelatedField(queryset=Dataset.objects.all())
        release = serializers.PrimaryKeyRelatedField(
            queryset=Release.objects.all(), required=False, allow_null=True
        )
        languages = serializers.ListField(
            child=serializers.CharField(max_length=16),
            allow_empty=False,
            help_text=f"ISO codes, any of: {', '.join(LANGUAGE_TAGS)}",
        )
        threshold = serializers.FloatField(default=DEFAULT_THRESHOLD, min_value=0.0, max_value=1.0)
        source = serializers.ChoiceField(
            choices=TranslationSource.choices, default=TranslationSource.INSTANCES
        )

        def validate_languages(self, value: list[str]) -> list[str]:
            unknown = [code for code in value if code not in LANGUAGE_TAGS]
            if unknown:
                raise serializers.ValidationError(
                    f"unknown language code(s) {', '.join(unknown)}; "
                    f"choose from {', '.join(LANGUAGE_TAGS)}"
                )
            return value

    permission_classes = [ResearcherOrReadOnly]
    serializer_class = TranslationJobOutput

    @extend_schema(parameters=[OpenApiParameter("dataset", str, description="Id or name.")])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        dataset = reference_param(self.request.query_params, "dataset", Dataset, name_field="name")
        return selectors.translation_job_list(dataset_id=dataset.pk if dataset else None)

    @extend_schema(request=InputSerializer, responses={202: TranslationJobOutput})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = services.translation_job_create(**data.validated_data, created_by=request.user)
        return Response(TranslationJobOutput(job).data, status=status.HTTP_202_ACCEPTED)


class TranslationJobDetailApi(generics.RetrieveAPIView):
    """A translation job: languages, models, strings per language, and its core job (status,
    progress, rate, ETA), by its core job id. Cancel and resume it at /api/jobs/<id>/cancel/
    and /resume/."""

    permission_classes = [HasRole]
    serializer_class = TranslationJobOutput
    queryset = TranslationJob.objects.select_related("dataset", "core_job__created_by")
    lookup_field = "core_job_id"
    lookup_url_kwarg = "pk"


class TranslatedStringOutput(serializers.ModelSerializer):
    produced_by = serializers.IntegerField(
        source="produced_by.core_job_id",
        default=None,
        read_only=True,
        allow_null=True,
        help_text="The job (core job id) that translated the string.",
    )

    class Meta:
        model = TranslatedString
        fields = [
            "id",
            "language",
            "source_text",
            "translation",
            "back_translation",
            "similarity",
            "threshold",
            "passed",
            "model_version",
            "forward_model_version",
            "backward_model_version",
            "embedder_version",
            "ms_per_string",
            "produced_by",
            "created_at",
        ]


class TranslatedStringListApi(generics.ListAPIView):
    """Translated strings. With `job` (the job's id, as /jobs/<id>/ shows it), the strings that
    job used, and `passed` judged by that job's threshold."""

    permission_classes = [HasRole]
    serializer_class = TranslatedStringOutput

    @extend_schema(
        parameters=[
            OpenApiParameter("job", int, description="The job's id (as /jobs/<id>/)."),
            OpenApiParameter("language", str),
            OpenApiParameter("passed", bool),
        ]
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        params = self.request.query_params
        job = translation_job_param(params)
        passed_param = choice_param(params, "passed", ["true", "false", "1", "0"])
        passed = {"true": True, "1": True, "false": False, "0": False}.get(passed_param)
        return selectors.translated_string_list(
            job=job, language=params.get("language", ""), passed=passed
        )

    def filter_queryset(self, queryset):
        return queryset  # the selector filters; no automatic filterset


class CorrectionRevisionOutput(serializers.ModelSerializer):
    author = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)

    class Meta:
        model = CorrectionRevision
        fields = ["id", "previous_text", "text", "status", "note", "author", "created_at"]


class CorrectionItemOutput(serializers.ModelSerializer):
    source_text = serializers.CharField(
        source="translated_string.source_text", default=None, read_only=True, allow_null=True
    )
    translation = serializers.CharField(
        source="translated_string.translation", default=None, read_only=True, allow_null=True
    )
    similarity = serializers.FloatField(
        source="translated_string.similarity", default=None, read_only=True, allow_null=True
    )
    job = serializers.IntegerField(
        source="job.core_job_id", read_only=True, help_text="The job's id (its core job id)."
    )
    revisions = CorrectionRevisionOutput(many=True, read_only=True)

    class Meta:
        model = CorrectionItem
        fields = [
            "id",
            "job",
            "kind",
            "language",
            "translated_string",
            "instance",
            "source_text",
            "translation",
            "similarity",
            "reason",
            "status",
            "corrected_text",
            "revisions",
            "created_at",
            "updated_at",
        ]


class CorrectionListApi(generics.ListAPIView):
    """The correction queue (read-only here; the correction screen comes later)."""

    permission_classes = [HasRole]
    serializer_class = CorrectionItemOutput

    @extend_schema(
        parameters=[
            OpenApiParameter("status", str, enum=CorrectionItem.Status.values),
            OpenApiParameter("language", str),
            OpenApiParameter("job", int, description="The job's id (as /jobs/<id>/)."),
        ]
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        params = self.request.query_params
        job = translation_job_param(params)
        return selectors.correction_list(
            status=choice_param(params, "status", CorrectionItem.Status.values),
            language=params.get("language", ""),
            job_id=job.pk if job else None,
        )

    def filter_queryset(self, queryset):
        return queryset
