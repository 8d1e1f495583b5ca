"""Annotation API for the human correction queue of flagged translations: read an item and
confirm or edit it."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import IsAnnotatorOrResearcher

from . import corrections


class CorrectionApi(APIView):
    """A flagged translation with its history (GET); confirm or edit it (POST)."""

    permission_classes = [IsAnnotatorOrResearcher]

    @extend_schema_serializer(component_name="CorrectionInput")
    class InputSerializer(serializers.Serializer):
        action = serializers.ChoiceField(choices=[corrections.CONFIRM, corrections.EDIT])
        text = serializers.CharField(required=False, default="", allow_blank=True)
        note = serializers.CharField(required=False, default="", allow_blank=True, max_length=2000)

    def _item(self, request, pk: int):
        return get_object_or_404(
            corrections.correction_queue_for(user=request.user, status=""), pk=pk
        )

    def _payload(self, item) -> dict:
        string = item.translated_string
        return {
            "id": item.pk,
            "kind": item.kind,
            "language": item.language,
            "status": item.status,
            "reason": item.reason,
            "source": string.source_text if string else "",
            "machine_translation": corrections.machine_text(item),
            "back_translation": string.back_translation if string else "",
            "similarity": string.similarity if string else None,
            "corrected_text": item.corrected_text,
            "history": corrections.correction_history(item=item),
            "instances": corrections.corrected_instances(item=item),
        }

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, pk: int):
        return Response(self._payload(self._item(request, pk)))

    @extend_schema(
        request=InputSerializer, responses={200: OpenApiTypes.OBJECT, 201: OpenApiTypes.OBJECT}
    )
    def post(self, request, pk: int):
        item = self._item(request, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        item, changed = corrections.correction_apply(
            item=item, author=request.user, **data.validated_data
        )
        item.refresh_from_db()
        return Response(
            self._payload(item), status=status.HTTP_201_CREATED if changed else status.HTTP_200_OK
        )
