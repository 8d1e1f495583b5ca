"""Annotation API for researchers adjudicating: the queue, an item with every annotator's
answers side by side, a sentence's revision history, and the decision."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import IsResearcher
from apps.catalog.models import ContextSentence

from . import selectors, services
from .api import item_content
from .models import Campaign, CampaignItem, Decision


class AdjudicationQueueApi(APIView):
    permission_classes = [IsResearcher]

    @extend_schema_serializer(component_name="AdjudicationQueueItem")
    class OutputSerializer(serializers.Serializer):
        item = serializers.IntegerField()
        campaign = serializers.IntegerField()
        position = serializers.IntegerField()
        category = serializers.CharField(allow_blank=True)

    # The queue is a plain list (no pagination): it is the researcher's to-do list and stays
    # short; the schema says so, so clients and the API fuzzing test agree with the body.
    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request):
        campaign = None
        if "campaign" in request.query_params:
            try:
                campaign = get_object_or_404(Campaign, pk=int(request.query_params["campaign"]))
            except ValueError:
                return Response({"detail": "campaign: expected an id"}, status=400)
        rows = [
            {"item": item.pk, "campaign": item.campaign_id, "position": item.position}
            | {"category": item.category.name if item.category_id else ""}
            for item in selectors.adjudication_queue(campaign=campaign)
        ]
        return Response(self.OutputSerializer(rows, many=True).data)


class ItemDetailApi(APIView):
    """All annotators' answers side by side, with findings and decisions (researchers)."""

    permission_classes = [IsResearcher]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, pk: int):
        item = get_object_or_404(CampaignItem.objects.select_related("campaign"), pk=pk)
        data = item_content(item)
        data |= {"status": item.status, "outcome": item.outcome, "campaign": item.campaign_id}
        data["judgements"] = [
            {
                "annotator": a.annotator.username,
                "slot": a.slot,
                "answers": a.current.answers if a.current and a.done_at else None,
            }
            for a in selectors.item_judgements(item=item)
        ]
        data["decisions"] = [
            {"verdict": d.verdict, "note": d.note, "by": d.decided_by.username}
            | {"new_version": d.new_version_id, "findings": d.findings, "at": d.created_at}
            for d in item.decisions.select_related("decided_by")
        ]
        if item.context_sentence_id:
            data["revisions"] = sentence_history_payload(item.context_sentence_id)
        return Response(data)


def sentence_history_payload(context_sentence_id: int) -> list[dict]:
    return [
        {
            "text_before": r.text_before,
            "text_after": r.text_after,
            "by": r.decided_by.username if r.decided_by else None,
            "annotators": [a.annotator.username for a in selectors.item_judgements(item=r.item)],
            "campaign": r.item.campaign_id,
            "tier": (r.item.campaign.params or {}).get("tier", ""),
            "item": r.item_id,
            "at": r.created_at,
        }
        for r in selectors.sentence_history(context_sentence_id=context_sentence_id)
    ]


class SentenceHistoryApi(APIView):
    """A context-set sentence's current text and every revision by review (who, when)."""

    permission_classes = [IsResearcher]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, pk: int):
        sentence = get_object_or_404(ContextSentence.objects.select_related("context_set"), pk=pk)
        return Response(
            {
                "id": sentence.pk,
                "language": sentence.context_set.language,
                "text": sentence.text,
                "revisions": sentence_history_payload(sentence.pk),
            }
        )


class ItemDecisionApi(APIView):
    permission_classes = [IsResearcher]

    @extend_schema_serializer(component_name="ItemDecisionInput")
    class InputSerializer(serializers.Serializer):
        verdict = serializers.ChoiceField(choices=Decision.Verdict.choices)
        note = serializers.CharField(required=False, default="", allow_blank=True, max_length=5000)
        changes = serializers.DictField(required=False, default=dict)
        findings = serializers.DictField(
            child=serializers.ChoiceField(choices=["resolved", "accepted"]),
            required=False,
            default=dict,
        )

    @extend_schema(request=InputSerializer, responses={201: OpenApiTypes.OBJECT})
    def post(self, request, pk: int):
        item = get_object_or_404(CampaignItem, pk=pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            findings = {int(k): v for k, v in data.validated_data["findings"].items()}
        except ValueError:
            return Response({"detail": "findings: keys are finding ids"}, status=400)
        decision = services.item_decide(
            item=item,
            verdict=data.validated_data["verdict"],
            note=data.validated_data["note"],
            changes=data.validated_data["changes"],
            findings=findings,
            decided_by=request.user,
        )
        return Response(
            {
                "id": decision.pk,
                "verdict": decision.verdict,
                "new_version": decision.new_version_id,
            },
            status=status.HTTP_201_CREATED,
        )
