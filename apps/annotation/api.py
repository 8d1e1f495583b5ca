"""Annotation REST API. Thin views: validate, call a service or selector, serialize. The
rules (blindness, one judgement per key, who sees what) live in the services and selectors."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_serializer,
)
from rest_framework import serializers, status
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import IsAnnotator, IsAnnotatorOrResearcher, IsResearcher
from apps.accounts.roles import is_researcher
from apps.catalog.models import ContextSentence, Dataset
from apps.core.renderers import IgnoreFormatNegotiation

from . import corrections, reports, selectors, services
from .models import Assignment, Campaign, CampaignItem, CampaignKind, Decision, Judgement

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
        "idempotency_key": services.new_idempotency_key(),
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


class AnnotatorOutput(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    email = serializers.CharField()
    is_active = serializers.BooleanField()
    languages = serializers.SerializerMethodField()

    def get_languages(self, user) -> list[str]:
        return selectors.annotator_languages(user=user)


class AnnotatorListApi(APIView):
    permission_classes = [IsResearcher]

    @extend_schema_serializer(component_name="AnnotatorListInput")
    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        email = serializers.EmailField(required=False, default="")
        languages = serializers.ListField(child=serializers.CharField(max_length=16))
        password = serializers.CharField(required=False, default=None, min_length=8)
        invite = serializers.BooleanField(
            required=False, default=False, help_text="E-mail a link that sets the password."
        )

    @extend_schema(responses=AnnotatorOutput(many=True))
    def get(self, request):
        users = User.objects.filter(groups__name="annotator").order_by("username")
        return Response(AnnotatorOutput(users, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: AnnotatorOutput})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        invite = fields.pop("invite")
        base_url = request.build_absolute_uri("/").rstrip("/") if invite else None
        user = services.annotator_create(invite_base_url=base_url, **fields)
        return Response(AnnotatorOutput(user).data, status=status.HTTP_201_CREATED)


class AnnotatorDetailApi(APIView):
    permission_classes = [IsResearcher]

    @extend_schema_serializer(component_name="AnnotatorDetailInput")
    class InputSerializer(serializers.Serializer):
        languages = serializers.ListField(
            child=serializers.CharField(max_length=16), required=False
        )
        is_active = serializers.BooleanField(required=False)

    @extend_schema(request=InputSerializer, responses=AnnotatorOutput)
    def patch(self, request, pk: int):
        user = get_object_or_404(User, pk=pk, groups__name="annotator")
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.annotator_update(
            user=user,
            languages=data.validated_data.get("languages"),
            active=data.validated_data.get("is_active"),
        )
        return Response(AnnotatorOutput(user).data)


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
