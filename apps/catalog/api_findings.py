"""GET api/findings/: the defects of published data that imports kept, with counts by kind;
PATCH api/findings/<id>/: mark one reviewed (accepted / resolved) or open again, with a note;
each change is kept in the finding's history (who, when, from, to, note)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import generics, serializers
from rest_framework.response import Response

from apps.accounts.permissions import ResearcherOrReadOnly

from . import selectors, services
from .models import Finding, FindingReview


class FindingReviewOutput(serializers.ModelSerializer):
    reviewed_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = FindingReview
        fields = ["from_status", "to_status", "note", "reviewed_by", "reviewed_at"]


class FindingOutput(serializers.ModelSerializer):
    dataset = serializers.SlugRelatedField(slug_field="name", read_only=True)
    template = serializers.SerializerMethodField(help_text="Template external id, if any.")
    template_version = serializers.SerializerMethodField(help_text="Version number, if any.")
    concerns = serializers.SerializerMethodField(help_text="What the finding is attached to.")
    history = FindingReviewOutput(
        source="reviews", many=True, read_only=True, help_text="Each review, oldest first."
    )

    class Meta:
        model = Finding
        fields = [
            "id",
            "dataset",
            "kind",
            "status",
            "file",
            "line",
            "field",
            "message",
            "original",
            "concerns",
            "template",
            "template_version",
            "sentence_pair",
            "context_sentence",
            "created_at",
            "history",
        ]

    def get_template(self, finding: Finding) -> str | None:
        version = finding.template_version
        return version.template.external_id if version else None

    def get_template_version(self, finding: Finding) -> int | None:
        return finding.template_version.number if finding.template_version else None

    def get_concerns(self, finding: Finding) -> str:
        return finding_concerns(finding)


def finding_concerns(finding: Finding) -> str:
    if finding.template_version_id:
        version = finding.template_version
        return f"template {version.template.external_id} v{version.number}"
    if finding.sentence_pair_id:
        return f"pair {finding.sentence_pair.external_id}"
    if finding.context_sentence_id:
        sentence = finding.context_sentence
        return f"context set {sentence.context_set.external_id}, sentence {sentence.position + 1}"
    return "dataset"


# many=False: the answer is one page (limit/offset, as every list) with the counts beside it;
# without it drf-spectacular documented a page whose results were pages.
@extend_schema_serializer(many=False, component_name="FindingPage")
class FindingPageOutput(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    by_kind = serializers.DictField(child=serializers.IntegerField())
    by_status = serializers.DictField(child=serializers.IntegerField())
    results = FindingOutput(many=True)


class FindingListApi(generics.ListAPIView):
    """Findings, filtered by dataset (name), kind, status, template or file; the response also
    counts the filtered findings by kind and by status."""

    permission_classes = [ResearcherOrReadOnly]
    serializer_class = FindingOutput
    filterset_class = selectors.FindingFilter

    def get_queryset(self):
        return selectors.finding_list()

    @extend_schema(responses=FindingPageOutput)
    def get(self, request, *args, **kwargs):
        findings = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(findings)
        response = self.get_paginated_response(self.get_serializer(page, many=True).data)
        response.data["by_kind"] = selectors.finding_counts_by_kind(findings=findings)
        response.data["by_status"] = selectors.finding_counts_by_status(findings=findings)
        return response


class FindingDetailApi(generics.RetrieveAPIView):
    class InputSerializer(serializers.Serializer):
        status = serializers.ChoiceField(choices=Finding.Status.choices)
        note = serializers.CharField(required=False, allow_blank=True, max_length=2000)

    permission_classes = [ResearcherOrReadOnly]
    serializer_class = FindingOutput

    def get_queryset(self):
        return selectors.finding_list()

    @extend_schema(request=InputSerializer, responses={200: FindingOutput})
    def patch(self, request, pk: int):
        finding = self.get_object()
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.finding_status_set(
            finding=finding,
            status=data.validated_data["status"],
            note=data.validated_data.get("note", ""),
            reviewed_by=request.user,
        )
        return Response(FindingOutput(self.get_object()).data)
