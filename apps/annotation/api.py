"""Annotation REST API. Thin views: validate, call a service or selector, serialize. The
rules (blindness, one judgement per key, who sees what) live in the services and selectors."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import IsAnnotator, IsAnnotatorOrResearcher, IsResearcher
from apps.accounts.roles import is_researcher
from apps.catalog.models import Dataset

from . import reports, rules, selectors, services
from .models import Assignment, Campaign, CampaignItem, CampaignKind, Judgement

User = get_user_model()


class CampaignOutput(serializers.ModelSerializer):
    dataset_name = serializers.CharField(source="dataset.name", read_only=True)
    annotators = serializers.SlugRelatedField(slug_field="username", many=True, read_only=True)

    class Meta:
        model = Campaign
        fields = [
            "id",
            "name",
            "dataset",
            "dataset_name",
            "kind",
            "language",
            "annotators_per_item",
            "annotators",
            "params",
            "status",
            "created_at",
        ]


class JudgementOutput(serializers.ModelSerializer):
    annotator = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = Judgement
        fields = ["id", "assignment", "annotator", "action", "answers", "previous", "seconds"]
        fields += ["idempotency_key", "created_at"]


def item_content(item: CampaignItem) -> dict:
    """What an annotator is shown for an item: the thing to judge, never others' answers."""
    context = selectors.item_context(item=item)
    data: dict = {"id": item.pk, "position": item.position, "segment": item.segment}
    data["category"] = item.category.name if item.category_id else ""
    if "version" in context:
        v = context["version"]
        data["template"] = {
            "version_id": v.pk,
            "external_id": v.template.external_id,
            "number": v.number,
            "language": v.language,
            "concept": v.concept.statement if v.concept else "",
            "ambiguous_context": v.ambiguous_context,
            "disambiguating_context": v.disambiguating_context,
            "question_negative": v.question_negative,
            "question_non_negative": v.question_non_negative,
            "placeholders": v.placeholders,
            "stereotyped_groups": v.stereotyped_groups,
            "examples": [
                {"context": e.context, "question": e.question, "answers": e.answers}
                for e in context["examples"]
            ],
            "findings": [
                {"id": f.pk, "kind": f.kind, "message": f.message, "status": f.status}
                for f in context["findings"]
            ],
        }
    if "string" in context:
        s = context["string"]
        data["translation"] = {
            "language": s.language,
            "source": s.source_text,
            "translation": s.translation,
        }
    if "tuple" in context:
        t = context["tuple"]
        data["tuple"] = {"identity_term": t.identity_term, "attribute": t.attribute}
    if "sentence" in context:
        s = context["sentence"]
        data["sentence"] = {"kind": s.kind, "text": s.text, "language": s.context_set.language}
    return data


def assignment_payload(assignment: Assignment) -> dict:
    current = assignment.current
    return {
        "assignment": assignment.pk,
        "campaign": assignment.campaign_id,
        "kind": assignment.campaign.kind,
        "done": assignment.done_at is not None,
        "answers": current.answers if current and current.action != "undo" else None,
        "idempotency_key": rules.new_idempotency_key(),
        "item": item_content(assignment.item),
    }


class CampaignListApi(APIView):
    permission_classes = [IsAnnotatorOrResearcher]

    @extend_schema_serializer(component_name="CampaignListInput")
    class InputSerializer(serializers.Serializer):
        dataset = serializers.PrimaryKeyRelatedField(queryset=Dataset.objects.all())
        kind = serializers.ChoiceField(choices=CampaignKind.choices)
        name = serializers.CharField(max_length=200, required=False, default="")
        language = serializers.CharField(max_length=16, required=False, default="")
        annotators = serializers.SlugRelatedField(
            slug_field="username", many=True, queryset=User.objects.all()
        )
        annotators_per_item = serializers.IntegerField(
            min_value=1, max_value=20, required=False, default=None
        )
        sample_size = serializers.IntegerField(min_value=1, max_value=10000, default=100)
        seed = serializers.IntegerField(min_value=0, max_value=2**31 - 1, default=0)
        tier = serializers.ChoiceField(choices=["language", "social_science"], default="language")
        only = serializers.ListField(
            child=serializers.IntegerField(min_value=1),
            required=False,
            allow_empty=False,
            max_length=10000,
            help_text="Ids of the kind's targets to keep (e.g. template versions); default all.",
        )

    @extend_schema(responses=CampaignOutput(many=True))
    def get(self, request):
        qs = selectors.campaign_list_for(user=request.user).prefetch_related("annotators")
        return Response(CampaignOutput(qs, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: CampaignOutput})
    def post(self, request):
        if not is_researcher(request.user):
            return Response(
                {"detail": "Only researchers create campaigns."}, status=status.HTTP_403_FORBIDDEN
            )
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        campaign = services.campaign_create(created_by=request.user, **data.validated_data)
        return Response(CampaignOutput(campaign).data, status=status.HTTP_201_CREATED)


def _campaign_for(request, pk: int) -> Campaign:
    return get_object_or_404(selectors.campaign_list_for(user=request.user), pk=pk)


class CampaignDetailApi(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, pk: int):
        campaign = _campaign_for(request, pk)
        data = CampaignOutput(campaign).data
        data["progress"] = selectors.campaign_progress(campaign=campaign)
        return Response(data)


class CampaignAgreementApi(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, pk: int):
        campaign = _campaign_for(request, pk)
        return Response(selectors.campaign_agreement(campaign=campaign))


class CampaignCalibrationApi(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, pk: int):
        campaign = _campaign_for(request, pk)
        return Response(reports.calibration(campaign=campaign))


class NextAssignmentApi(APIView):
    """The annotator's next pending item in a campaign; 204 when all are done."""

    permission_classes = [IsAnnotator]

    @extend_schema(responses={200: OpenApiTypes.OBJECT, 204: None})
    def get(self, request, pk: int):
        assignment = selectors.assignment_next(campaign_id=pk, annotator=request.user)
        if assignment is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        services.assignment_open(assignment=assignment)
        return Response(assignment_payload(assignment))


def _own_assignment(request, pk: int) -> Assignment:
    return get_object_or_404(
        Assignment.objects.select_related("campaign", "item", "current"),
        pk=pk,
        annotator=request.user,
    )


class AssignmentDetailApi(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, pk: int):
        assignment = _own_assignment(request, pk)
        data = assignment_payload(assignment)
        data["history"] = JudgementOutput(
            selectors.judgement_history(assignment=assignment), many=True
        ).data
        return Response(data)


class JudgementCreateApi(APIView):
    """Submit (or edit) the judgement of an assignment. The same idempotency_key again
    returns the stored judgement with 200 instead of 201 and stores nothing new."""

    permission_classes = [IsAnnotator]

    @extend_schema_serializer(component_name="JudgementCreateInput")
    class InputSerializer(serializers.Serializer):
        answers = serializers.JSONField()
        idempotency_key = serializers.CharField(max_length=64)
        seconds = serializers.FloatField(min_value=0, max_value=86400, required=False)

    @extend_schema(request=InputSerializer, responses={201: JudgementOutput, 200: JudgementOutput})
    def post(self, request, pk: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        judgement, created = services.judgement_submit(
            assignment_id=pk, annotator=request.user, **data.validated_data
        )
        return Response(
            JudgementOutput(judgement).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class JudgementUndoApi(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema_serializer(component_name="JudgementUndoInput")
    class InputSerializer(serializers.Serializer):
        idempotency_key = serializers.CharField(max_length=64)

    @extend_schema(request=InputSerializer, responses={201: JudgementOutput})
    def post(self, request, pk: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        judgement = services.judgement_undo(
            assignment_id=pk, annotator=request.user, **data.validated_data
        )
        return Response(JudgementOutput(judgement).data, status=status.HTTP_201_CREATED)
