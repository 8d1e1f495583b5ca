"""GET api/datasets/<id>/adaptation-report/: how a dataset adapted its source (the report of
`manage.py adaptation_report --json`, with the category reconstruction). Everyone with a role
reads it. docs/studio/adaptation-report.md"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import ResearcherOrReadOnly

from .adaptation_report import adaptation_report
from .models import Dataset

_TO_DO_HELP = (
    "Only when some source template is undecided (a dataset adapted in the browser): source "
    "templates neither adapted into a classed template nor Sample-Removed."
)


class AdaptationCategoryCounts(serializers.Serializer):
    """Source templates of one category by outcome."""

    simply_transferred = serializers.IntegerField()
    target_modified = serializers.IntegerField()
    culturally_transformed = serializers.IntegerField()
    sample_removed = serializers.IntegerField()
    to_do = serializers.IntegerField(required=False, help_text=_TO_DO_HELP)


class AdaptationTotalCounts(AdaptationCategoryCounts):
    newly_created = serializers.IntegerField()


class AdaptationReportApi(APIView):
    """The adaptation report of one dataset (EsBBQ Table 1 and Figure 2): source templates
    counted as EsBBQ counts them (a template's rows a/b and its common- and proper-noun
    versions once)."""

    permission_classes = [ResearcherOrReadOnly]

    class OutputSerializer(serializers.Serializer):
        source = serializers.CharField(help_text="The source dataset's name.")
        by_category = serializers.DictField(
            child=AdaptationCategoryCounts(),
            help_text="Source category -> its source templates by outcome.",
        )
        newly_created = serializers.DictField(
            child=serializers.IntegerField(),
            help_text="Target category -> templates with no source (a template id with its "
            "versions and proper-noun version once).",
        )
        total = AdaptationTotalCounts(help_text="by_category summed, and newly_created.")
        reconstruction = serializers.DictField(
            child=serializers.DictField(child=serializers.IntegerField()),
            help_text="Source category -> target category -> source templates adapted into "
            "it (EsBBQ Figure 2).",
        )

    @extend_schema(
        operation_id="dataset_adaptation_report",
        summary="The adaptation report of a dataset adapted from another",
        responses={
            200: OutputSerializer,
            400: OpenApiResponse(description="The dataset adapts no dataset."),
            404: OpenApiResponse(description="No such dataset."),
        },
    )
    def get(self, request, pk: int) -> Response:
        dataset = get_object_or_404(Dataset, pk=pk)
        report = adaptation_report(dataset=dataset)
        data = {**report.as_dict(), "reconstruction": report.reconstruction}
        return Response(self.OutputSerializer(data).data)
