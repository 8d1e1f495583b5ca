"""POST api/imports/: upload benchmark files into a dataset (researchers only)."""

from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import IsResearcher

from .importers import FORMATS, ImportFile, benchmark_import


class BenchmarkImportInput(serializers.Serializer):
    format = serializers.ChoiceField(choices=FORMATS)
    dataset = serializers.CharField(max_length=100)
    files = serializers.ListField(
        child=serializers.FileField(allow_empty_file=True),
        allow_empty=False,
        help_text="One or more CSV/xlsx files (repeat the `files` part).",
    )
    language = serializers.CharField(
        max_length=16,
        required=False,
        default="en",
        help_text="Template language for bbq/bharatbbq (esbbq/cabbq are es/ca).",
    )
    category = serializers.CharField(
        max_length=100,
        required=False,
        default="",
        allow_blank=True,
        help_text="indicasa: category when the file name does not give it.",
    )
    strict = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Reject the import if there is any finding (each finding becomes a problem).",
    )
    seed = serializers.IntegerField(
        required=False,
        default=0,
        help_text="bbq: seed of the name and word draws of BBQ's generator (recorded).",
    )


class ImportCounts(serializers.Serializer):
    created = serializers.IntegerField()
    updated = serializers.IntegerField(help_text="For templates: new versions.")
    unchanged = serializers.IntegerField()


class ImportFindingOutput(serializers.Serializer):
    file = serializers.CharField()
    line = serializers.IntegerField(allow_null=True)
    field = serializers.CharField()
    kind = serializers.CharField()
    message = serializers.CharField()
    original = serializers.CharField(help_text="The cell as published.")
    concerns = serializers.CharField(help_text="What the finding is attached to.")


class ImportReportOutput(serializers.Serializer):
    dataset = serializers.CharField()
    format = serializers.CharField()
    files = serializers.ListField(child=serializers.CharField())
    dataset_created = serializers.BooleanField()
    templates = ImportCounts()
    pairs = ImportCounts()
    tuples = ImportCounts()
    context_sets = ImportCounts()
    sentences = serializers.IntegerField()
    by_category = serializers.DictField(child=serializers.IntegerField())
    skipped = serializers.ListField(child=serializers.CharField())
    strict = serializers.BooleanField()
    findings = ImportFindingOutput(many=True)
    findings_by_kind = serializers.DictField(
        child=serializers.IntegerField(), help_text="Kind -> count, most frequent first."
    )
    findings_new = serializers.IntegerField(help_text="Findings not recorded by an earlier import.")


ImportRejectedOutput = inline_serializer(
    name="ImportRejected",
    fields={
        "detail": serializers.CharField(),
        "problems": serializers.ListField(
            child=inline_serializer(
                name="ImportProblem",
                fields={
                    "file": serializers.CharField(),
                    "line": serializers.IntegerField(allow_null=True),
                    "field": serializers.CharField(),
                    "message": serializers.CharField(),
                    "kind": serializers.CharField(
                        help_text="The finding kind, when a strict import rejected a finding."
                    ),
                },
            )
        ),
    },
)


class BenchmarkImportApi(APIView):
    """Import benchmark files; all-or-nothing (400 lists every problem, nothing written)."""

    permission_classes = [IsAuthenticated, IsResearcher]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        operation_id="benchmark_import",
        summary="Import benchmark files into a dataset",
        request={"multipart/form-data": BenchmarkImportInput},
        responses={
            201: ImportReportOutput,
            400: ImportRejectedOutput,
            403: OpenApiResponse(description="Only researchers and admins can import."),
        },
        examples=[
            OpenApiExample(
                "Rejected",
                status_codes=["400"],
                response_only=True,
                value={
                    "detail": "import rejected, nothing was written",
                    "problems": [
                        {
                            "file": "Caste.csv",
                            "line": 3,
                            "field": "Names",
                            "message": "unparseable value list: ...",
                        }
                    ],
                },
            )
        ],
    )
    def post(self, request) -> Response:
        data = request.data.copy() if hasattr(request.data, "copy") else dict(request.data)
        # Accept `file` as well as `files`, and both as repeated multipart parts.
        uploads = request.FILES.getlist("files") + request.FILES.getlist("file")
        serializer = BenchmarkImportInput(
            data={
                "format": data.get("format", ""),
                "dataset": data.get("dataset", ""),
                "files": uploads,
                "language": data.get("language") or "en",
                "category": data.get("category", ""),
                "strict": data.get("strict", False),
                "seed": data.get("seed") or 0,
            }
        )
        serializer.is_valid(raise_exception=True)
        values = serializer.validated_data
        report = benchmark_import(
            dataset_name=values["dataset"],
            fmt=values["format"],
            files=[ImportFile(name=f.name, data=f.read()) for f in values["files"]],
            created_by=request.user,
            language=values["language"],
            category=values["category"],
            strict=values["strict"],
            seed=values["seed"],
        )
        return Response(report.as_dict(), status=status.HTTP_201_CREATED)
