"""Annotation API reports: Table 3 of a dataset's translation-scoring campaigns (JSON or
CSV)."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import IsResearcher
from apps.catalog.models import Dataset
from apps.core.renderers import IgnoreFormatNegotiation

from . import reports


class Table3BlockOutput(serializers.Serializer):
    """One language's block of Table 3 (the answer is a list of them, one per language)."""

    language = serializers.CharField()
    rows = serializers.ListField(child=serializers.DictField())
    adequacy_kappa = serializers.DictField()
    fluency_kappa = serializers.DictField()
    campaigns = serializers.ListField(child=serializers.IntegerField())


class Table3Api(APIView):
    """BharatBBQ Table 3 for a dataset; `?format=csv` downloads it."""

    permission_classes = [IsResearcher]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = IgnoreFormatNegotiation  # ?format=csv is the download

    @extend_schema(
        parameters=[OpenApiParameter("format", str, enum=["json", "csv"], required=False)],
        responses={
            (200, "application/json"): Table3BlockOutput(many=True),
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="?format=csv"),
        },
    )
    def get(self, request, pk: int):
        dataset = get_object_or_404(Dataset, pk=pk)
        blocks = reports.table3(dataset_id=dataset.pk)
        if request.query_params.get("format") == "csv":
            response = HttpResponse(
                reports.Table3CsvWriter().write(blocks), content_type="text/csv; charset=utf-8"
            )
            response["Content-Disposition"] = f'attachment; filename="table3-{dataset.pk}.csv"'
            return response
        return Response(
            [
                {
                    "language": b.language,
                    "rows": [
                        {
                            "row": r.name,
                            "n_items": r.n_items,
                            **r.means,
                            "adequacy_kappa": r.adequacy_kappa.as_dict(),
                            "fluency_kappa": r.fluency_kappa.as_dict(),
                            "scored_by": r.scored,
                        }
                        for r in b.rows
                    ],
                    # The combined row's (the language-wide figures).
                    "adequacy_kappa": b.adequacy_kappa.as_dict(),
                    "fluency_kappa": b.fluency_kappa.as_dict(),
                    "campaigns": b.campaigns,
                    "annotators": b.annotators,
                    "annotator_rule": reports.ANNOTATOR_RULE,
                }
                for b in blocks
            ]
        )
