"""The dataset card's own fields over the API (issue 22): GET /api/datasets/<id>/card/ for any
role, PATCH for researchers and admins. What it saves goes into the card of the next release;
releases already made keep theirs (docs/releases/card.md)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import HasRole, IsResearcher
from apps.catalog.models import Dataset
from apps.catalog.services.dataset_card import (
    CARD_FIELDS,
    HUB_LICENSES,
    PRETTY_NAME_MAX,
    TEXT_MAX,
    dataset_card_update,
)


def _text(max_length: int = TEXT_MAX) -> serializers.CharField:
    # Not trimmed here: the service trims and NFC-normalises, for the form and the API alike.
    return serializers.CharField(
        required=False, allow_blank=True, trim_whitespace=False, max_length=max_length
    )


class DatasetCardOutputSerializer(serializers.Serializer):
    dataset = serializers.IntegerField(source="pk")
    license = serializers.CharField()
    pretty_name = serializers.CharField()
    card_authors = serializers.CharField()
    card_uses = serializers.CharField()
    card_limitations = serializers.CharField()
    card_ethics = serializers.CharField()
    card_citation = serializers.CharField()


class DatasetCardApi(APIView):
    """The licence (a Hub licence id), pretty name, authors (one per line) and the four texts
    of the dataset's card. PATCH changes the fields given; the answer's `changed` names the
    fields whose value changed."""

    class InputSerializer(serializers.Serializer):
        license = serializers.ChoiceField(choices=list(HUB_LICENSES), required=False)
        pretty_name = _text(PRETTY_NAME_MAX)
        card_authors = _text()
        card_uses = _text()
        card_limitations = _text()
        card_ethics = _text()
        card_citation = _text()

        class Meta:
            ref_name = "DatasetCardInput"

    class PatchOutputSerializer(DatasetCardOutputSerializer):
        changed = serializers.ListField(child=serializers.ChoiceField(choices=CARD_FIELDS))

        class Meta:
            ref_name = "DatasetCardPatchOutput"

    def get_permissions(self):
        return [IsResearcher()] if self.request.method == "PATCH" else [HasRole()]

    @extend_schema(responses={200: DatasetCardOutputSerializer})
    def get(self, request: Request, pk: int) -> Response:
        dataset = get_object_or_404(Dataset, pk=pk)
        return Response(DatasetCardOutputSerializer(dataset).data)

    @extend_schema(request=InputSerializer, responses={200: PatchOutputSerializer})
    def patch(self, request: Request, pk: int) -> Response:
        dataset = get_object_or_404(Dataset, pk=pk)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        changed = dataset_card_update(dataset=dataset, **serializer.validated_data)
        data = DatasetCardOutputSerializer(dataset).data
        return Response({**data, "changed": changed})
