"""GET /api/instances/<id>/provenance/ (issue 22): where one instance came from.

Read by anyone with a role, as the instance API is (HasRole: GET is all there is). The answer
is apps.releases.provenance.instance_provenance's: the instance's facts and the registered
steps that apply to it, in chain order; each step's `data` is its own (the serializers below
declare the envelope, the steps document their data in docs/releases/provenance.md). People
are pseudonymised. Retired rows answer too, saying what replaced them.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import HasRole

from .api import ErrorSerializer
from .provenance import InstanceNotFound, instance_provenance


class ProvenanceLinkSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField(help_text="The provenance page of that instance.")

    class Meta:
        ref_name = "ProvenanceInstanceLink"


class ProvenanceReplacementSerializer(ProvenanceLinkSerializer):
    revision = serializers.IntegerField(allow_null=True)

    class Meta:
        ref_name = "ProvenanceReplacement"


class ProvenanceSourceSerializer(ProvenanceLinkSerializer):
    language = serializers.CharField()
    context = serializers.CharField()
    question = serializers.CharField()
    text_hash = serializers.CharField()

    class Meta:
        ref_name = "ProvenanceSourceInstance"


class ProvenanceDatasetSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    url = serializers.CharField()

    class Meta:
        ref_name = "ProvenanceDataset"


class ProvenanceInstanceSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    dataset = ProvenanceDatasetSerializer()
    category = serializers.CharField()
    language = serializers.CharField()
    example_id = serializers.IntegerField()
    question_index = serializers.CharField()
    context_condition = serializers.CharField()
    question_polarity = serializers.CharField()
    pairing = serializers.CharField()
    context = serializers.CharField()
    question = serializers.CharField()
    answers = serializers.ListField(child=serializers.CharField())
    option_roles = serializers.ListField(child=serializers.CharField())
    label = serializers.IntegerField()
    text_hash = serializers.CharField(
        help_text="apps/catalog/instance_hash.py: the hash a release file's provenance column "
        "carries (sha256 of the texts and the label, 16 hex digits)."
    )
    source_id = serializers.CharField(help_text="Id in the published file it was imported from.")
    created_at = serializers.DateTimeField(allow_null=True)
    source_instance = ProvenanceSourceSerializer(
        allow_null=True, help_text="A translation's source instance."
    )
    retired = serializers.BooleanField()
    retired_at = serializers.DateTimeField(allow_null=True)
    replaced_by = ProvenanceReplacementSerializer(
        allow_null=True, help_text="A retired (corrected) translation: the row that replaced it."
    )
    revision = serializers.IntegerField(allow_null=True, help_text="A translation's revision.")
    replaces = ProvenanceLinkSerializer(allow_null=True, help_text="The row this one replaced.")

    class Meta:
        ref_name = "ProvenanceInstance"


class ProvenanceStepSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="concepts, template, vocabulary, translation, ...")
    title = serializers.CharField()
    data = serializers.JSONField(help_text="The step's own data (docs/releases/provenance.md).")

    class Meta:
        ref_name = "ProvenanceStep"


class InstanceProvenanceApi(APIView):
    """Where one instance came from: concept and evidence, template version and adaptation,
    vocabulary entries, translation, validation, releases (the registered steps that apply,
    in chain order). Annotators and authors appear only as pseudonyms."""

    permission_classes = [HasRole]

    class OutputSerializer(serializers.Serializer):
        instance = ProvenanceInstanceSerializer()
        steps = ProvenanceStepSerializer(many=True)

        class Meta:
            ref_name = "InstanceProvenanceOutput"

    @extend_schema(responses={200: OutputSerializer, 404: ErrorSerializer})
    def get(self, request: Request, pk: int) -> Response:
        try:
            answer = instance_provenance(instance_id=pk)
        except InstanceNotFound as error:
            return Response({"detail": str(error)}, status=status.HTTP_404_NOT_FOUND)
        # The service's dict is already JSON-able: returned as built (serializing it again
        # through the declaration would only cost time; the tests hold the two equal).
        return Response(answer)
