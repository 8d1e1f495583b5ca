"""POST api/imports/: upload benchmark files into a dataset (researchers only)."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, ParseError, ValidationError
from rest_framework.parsers import FormParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import IsResearcher
from apps.core.api import JobOutputSerializer
from apps.core.errors import ImportProblem, ImportRejected
from apps.core.parsers import NulSafeMultiPartParser

from .import_jobs import benchmark_files_import, benchmark_import_async, import_work_measure
from .importers import INSTANCES, TEMPLATES, ImportFile, format_names


class BenchmarkImportInput(serializers.Serializer):
    format = serializers.ChoiceField(
        choices=format_names(),
        help_text="A template set, or published instance files (*-instances: the report then "
        "has created / unchanged instance counts, by_category, verbatim and findings by kind).",
    )
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
    adapted_from = serializers.CharField(
        max_length=100,
        required=False,
        default="",
        allow_blank=True,
        help_text="esbbq/cabbq: the dataset these templates adapt (e.g. a BBQ import). Each "
        "template is linked to the source template its row names (bbq_category + "
        "bbq_template_id; a missing one is a `missing-source` finding) and every source "
        "template no row adapts is Sample-Removed. An unknown dataset rejects the import.",
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
    """The report of a template-set import (every format but *-instances): each kind's counts
    are there, zero for the kinds the format does not carry."""

    dataset = serializers.CharField()
    format = serializers.CharField()
    files = serializers.ListField(child=serializers.CharField())
    dataset_created = serializers.BooleanField()
    templates = ImportCounts(help_text="bbq, bharatbbq, esbbq, cabbq: templates.")
    pairs = ImportCounts(help_text="indibias: sentence pairs.")
    tuples = ImportCounts(help_text="indibias: stereotype tuples.")
    context_sets = ImportCounts(help_text="indicasa: context sets.")
    sentences = serializers.IntegerField()
    by_category = serializers.DictField(child=serializers.IntegerField())
    skipped = serializers.ListField(child=serializers.CharField())
    strict = serializers.BooleanField()
    seed = serializers.IntegerField(help_text="bbq: the seed of the name and word draws.")
    findings = ImportFindingOutput(many=True)
    findings_by_kind = serializers.DictField(
        child=serializers.IntegerField(), help_text="Kind -> count, most frequent first."
    )
    findings_new = serializers.IntegerField(help_text="Findings not recorded by an earlier import.")
    adapted_from = serializers.CharField(
        required=False, help_text="Only with adapted_from: the source dataset."
    )
    adaptation_links = serializers.IntegerField(
        required=False,
        help_text="Only with adapted_from: links from a template to a source template.",
    )
    sample_removed = serializers.IntegerField(
        required=False,
        help_text="Only with adapted_from: source templates no template adapts (Sample-Removed).",
    )
    missing_sources = serializers.IntegerField(
        required=False,
        help_text="Only with adapted_from: references to no source template (findings).",
    )


class InstanceImportReportOutput(serializers.Serializer):
    """The report of a published-instances import (the *-instances formats)."""

    dataset = serializers.CharField()
    format = serializers.CharField()
    files = serializers.ListField(child=serializers.CharField())
    dataset_created = serializers.BooleanField()
    created = serializers.IntegerField(help_text="Instances written.")
    unchanged = serializers.IntegerField(help_text="Instances already there, the same.")
    by_category = serializers.DictField(
        child=serializers.IntegerField(), help_text="Rows read per category."
    )
    verbatim = serializers.IntegerField(
        help_text="Rows whose text Kasauti's fields could not reproduce; kept verbatim."
    )
    findings = serializers.DictField(
        child=serializers.IntegerField(), help_text="New findings, kind -> count."
    )


# The 201 body: which report depends on the format asked for.
ImportReportAnyOutput = PolymorphicProxySerializer(
    component_name="ImportReportAny",
    serializers={
        **{name: ImportReportOutput for name in format_names(kind=TEMPLATES)},
        **{name: InstanceImportReportOutput for name in format_names(kind=INSTANCES)},
    },
    resource_type_field_name="format",
)


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


class UploadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "upload_too_large"


def upload_limit_check(request) -> None:
    """Refuse an upload over KASAUTI_MAX_UPLOAD_BYTES from its Content-Length, before a byte
    of it is parsed or spooled (Django reads no more than Content-Length)."""
    limit = settings.KASAUTI_MAX_UPLOAD_BYTES
    try:
        size = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        size = 0
    if size > limit:
        raise UploadTooLarge(
            f"the upload is {size:,} bytes; the limit is {limit:,} bytes "
            f"({limit / 1_000_000:g} MB, set by KASAUTI_MAX_UPLOAD_BYTES)"
        )


class BenchmarkImportApi(APIView):
    """Import benchmark files; all-or-nothing (400 lists every problem, nothing written)."""

    permission_classes = [IsAuthenticated, IsResearcher]
    parser_classes = [NulSafeMultiPartParser, FormParser]

    @extend_schema(
        operation_id="benchmark_import",
        parameters=[
            OpenApiParameter(
                "async", bool, description="Import in a background job whatever the size."
            )
        ],
        summary="Import benchmark files into a dataset",
        request={"multipart/form-data": BenchmarkImportInput},
        responses={
            201: ImportReportAnyOutput,
            202: OpenApiResponse(
                JobOutputSerializer,
                description="Large uploads (more than KASAUTI_IMPORT_INLINE_MAX_BYTES to parse: "
                "a workbook counts its uncompressed size; or workbooks declaring more than "
                "KASAUTI_IMPORT_INLINE_MAX_CELLS cells; or ?async=1) are imported by a "
                "background job: poll /api/jobs/{id}/; its "
                "result is the report, or `problems` when the import was rejected.",
            ),
            400: ImportRejectedOutput,
            403: OpenApiResponse(description="Only researchers and admins can import."),
            413: OpenApiResponse(description="The upload is larger than the configured limit."),
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
        upload_limit_check(request)
        # request.data is read, never copied: a QueryDict copy deep-copies the uploaded files,
        # and a file Django spooled to disk (over 2.5 MiB) cannot be copied (it was a 500).
        try:
            data = request.data
        except (ParseError, ValidationError) as error:
            # A malformed body, or a field with a NUL (NulSafeMultiPartParser): the same 400
            # as a rejected file, as the schema says, one problem per field.
            details = error.detail if isinstance(error.detail, dict) else {"body": error.detail}
            raise ImportRejected(
                [
                    ImportProblem("", None, name, message)
                    for name, messages in details.items()
                    for message in _flatten(messages)
                ]
            ) from error
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
                "adapted_from": data.get("adapted_from", ""),
            }
        )
        if not serializer.is_valid():
            # The same shape as a rejected file, so clients handle one kind of 400.
            raise ImportRejected(
                [
                    ImportProblem("", None, name, str(message))
                    for name, messages in serializer.errors.items()
                    for message in _flatten(messages)
                ]
            )
        values = serializer.validated_data
        # Measured before anything is parsed (a workbook by its unpacked size and declared
        # cells); a workbook past the limits is refused here, with the limit it passes.
        work = import_work_measure(uploads=values["files"])
        asked = request.query_params.get("async", "").lower() in {"1", "true", "yes"}
        if asked or not work.inline:
            # Parsing and writing a large import takes long and much memory: not in the
            # web process. The worker runs the same all-or-nothing import.
            job = benchmark_import_async(
                dataset_name=values["dataset"],
                fmt=values["format"],
                uploads=values["files"],
                created_by=request.user,
                language=values["language"],
                category=values["category"],
                seed=values["seed"],
                strict=values["strict"],
                adapted_from=values["adapted_from"],
            )
            return Response(JobOutputSerializer(job).data, status=status.HTTP_202_ACCEPTED)
        report = benchmark_files_import(
            dataset_name=values["dataset"],
            fmt=values["format"],
            files=[ImportFile(name=f.name, data=f.read()) for f in values["files"]],
            created_by=request.user,
            language=values["language"],
            category=values["category"],
            strict=values["strict"],
            seed=values["seed"],
            adapted_from=values["adapted_from"],
        )
        return Response(report.as_dict(), status=status.HTTP_201_CREATED)


def _flatten(messages) -> list[str]:
    """DRF error details nest (a list field's errors are keyed by index); list the texts."""
    if isinstance(messages, dict):
        return [text for value in messages.values() for text in _flatten(value)]
    if isinstance(messages, list):
        return [text for value in messages for text in _flatten(value)]
    return [str(messages)]
