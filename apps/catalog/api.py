"""Catalog REST API. Views stay thin: validate input, call a service or selector, serialize.

Everyone with a role reads; only researchers and admins write (ResearcherOrReadOnly).
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_serializer,
    inline_serializer,
)
from rest_framework import generics, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import IsResearcher, ResearcherOrReadOnly
from apps.core.api import JobOutputSerializer
from apps.core.text import nfc, nfc_deep

from . import selectors, services
from .models import (
    Category,
    ConceptSource,
    ContextSentence,
    ContextSet,
    Dataset,
    EvidenceReference,
    Pairing,
    ReviewStatus,
    SentencePair,
    StereotypeConcept,
    StereotypeTuple,
    Template,
    TemplateVersion,
    TransformationType,
    UnknownExpression,
    Vocabulary,
    VocabularyEntry,
)


def column(model, name: str) -> int:
    """The database column's max_length, so over-long input is a 400 naming the field
    instead of a DataError (500) after part of the work was written."""
    return model._meta.get_field(name).max_length


# PositiveIntegerField's range in PostgreSQL (integer).
MAX_INTEGER = 2_147_483_647


class NfcCharField(serializers.CharField):
    """Every string entering through the API is stored in NFC."""

    def to_internal_value(self, data):
        return nfc(super().to_internal_value(data))


# --- categories ----------------------------------------------------------------------------


class CategoryOutput(serializers.ModelSerializer):
    components = serializers.SlugRelatedField(slug_field="name", many=True, read_only=True)

    class Meta:
        model = Category
        fields = ["id", "name", "description", "components"]


class CategoryListApi(generics.ListCreateAPIView):
    @extend_schema_serializer(component_name="CategoryInput")
    class InputSerializer(serializers.Serializer):
        name = NfcCharField(max_length=column(Category, "name"))
        description = NfcCharField(required=False, allow_blank=True, default="")
        components = serializers.ListField(
            child=serializers.SlugRelatedField(slug_field="name", queryset=Category.objects.all()),
            required=False,
            help_text="Names of existing categories this one intersects.",
        )

    permission_classes = [ResearcherOrReadOnly]
    queryset = selectors.category_list()
    serializer_class = CategoryOutput
    pagination_class = None

    @extend_schema(request=InputSerializer, responses={201: CategoryOutput})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        components = data.validated_data.get("components", [])
        category = services.category_create(
            name=data.validated_data["name"],
            description=data.validated_data["description"],
            components=components,
        )
        return Response(CategoryOutput(category).data, status=status.HTTP_201_CREATED)


# --- concepts ------------------------------------------------------------------------------


class EvidenceSerializer(serializers.ModelSerializer):
    class Meta:
        model = EvidenceReference
        fields = ["url", "note"]


class ConceptOutput(serializers.ModelSerializer):
    category = serializers.SlugRelatedField(slug_field="name", read_only=True)
    evidence = EvidenceSerializer(many=True, read_only=True)
    meets_inclusion_rule = serializers.BooleanField(read_only=True)

    class Meta:
        model = StereotypeConcept
        fields = [
            "id",
            "category",
            "target_groups",
            "statement",
            "attribute",
            "polarity",
            "mentions",
            "source",
            "validation_status",
            "evidence",
            "meets_inclusion_rule",
            "created_at",
        ]


class ConceptListApi(generics.ListCreateAPIView):
    """Stereotype concepts. `?usable=true` applies BharatBBQ's inclusion rule (>= 3 mentions,
    trusted source, validated, with evidence)."""

    @extend_schema_serializer(component_name="ConceptInput")
    class InputSerializer(serializers.Serializer):
        category = serializers.SlugRelatedField(slug_field="name", queryset=Category.objects.all())
        target_groups = serializers.ListField(child=NfcCharField(), default=list)
        statement = NfcCharField()
        attribute = NfcCharField(
            required=False,
            allow_blank=True,
            default="",
            max_length=column(StereotypeConcept, "attribute"),
        )
        polarity = serializers.ChoiceField(StereotypeConcept.Polarity.choices, default="negative")
        mentions = serializers.IntegerField(min_value=0, max_value=MAX_INTEGER, default=0)
        source = serializers.ChoiceField(ConceptSource.choices)
        validation_status = serializers.ChoiceField(
            StereotypeConcept.Validation.choices, default="pending"
        )
        evidence = EvidenceSerializer(many=True, default=list)

    permission_classes = [ResearcherOrReadOnly]
    queryset = selectors.concept_list()
    serializer_class = ConceptOutput
    filterset_class = selectors.ConceptFilter

    @extend_schema(request=InputSerializer, responses={201: ConceptOutput})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        concept = services.concept_create(**data.validated_data)
        return Response(ConceptOutput(concept).data, status=status.HTTP_201_CREATED)


class ConceptDetailApi(generics.RetrieveAPIView):
    permission_classes = [ResearcherOrReadOnly]
    queryset = selectors.concept_list()
    serializer_class = ConceptOutput


# --- datasets ------------------------------------------------------------------------------


class DatasetOutput(serializers.ModelSerializer):
    template_count = serializers.IntegerField(read_only=True)
    live_instance_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Dataset
        fields = [
            "id",
            "name",
            "description",
            "name_permutations",
            "template_count",
            "live_instance_count",
            "created_at",
        ]


class DatasetListApi(generics.ListCreateAPIView):
    @extend_schema_serializer(component_name="DatasetInput")
    class InputSerializer(serializers.Serializer):
        name = NfcCharField(max_length=column(Dataset, "name"))
        description = NfcCharField(required=False, allow_blank=True, default="")
        name_permutations = serializers.BooleanField(default=False)

    permission_classes = [ResearcherOrReadOnly]
    queryset = selectors.dataset_list()
    serializer_class = DatasetOutput

    @extend_schema(request=InputSerializer, responses={201: DatasetOutput})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        dataset = services.dataset_create(created_by=request.user, **data.validated_data)
        return Response(
            DatasetOutput(selectors.dataset_list().get(pk=dataset.pk)).data,
            status=status.HTTP_201_CREATED,
        )


class DatasetDetailApi(generics.RetrieveAPIView):
    permission_classes = [ResearcherOrReadOnly]
    queryset = selectors.dataset_list()
    serializer_class = DatasetOutput


PlanOutput = inline_serializer(
    "InstantiationPlan",
    fields={
        "dataset": serializers.CharField(),
        "total": serializers.IntegerField(),
        "to_create": serializers.IntegerField(),
        "by_category": serializers.DictField(child=serializers.IntegerField()),
        "permutations": serializers.BooleanField(),
        "templates": serializers.ListField(child=serializers.DictField()),
        "skipped": serializers.ListField(child=serializers.CharField()),
    },
)


class DatasetInstantiationPlanApi(APIView):
    """Exactly how many instances each template and the whole dataset will produce."""

    permission_classes = [ResearcherOrReadOnly]

    @extend_schema(responses={200: PlanOutput})
    def get(self, request, pk: int):
        dataset = get_object_or_404(Dataset, pk=pk)
        return Response(services.instantiation_plan(dataset=dataset).as_dict())


class DatasetInstantiateApi(APIView):
    """Queue instantiation as a background job (202 + job), or with `?dry_run=1` return the
    exact plan and write nothing."""

    permission_classes = [IsResearcher]

    @extend_schema(
        request=None,
        parameters=[OpenApiParameter("dry_run", bool, description="Only report counts.")],
        responses={200: PlanOutput, 202: JobOutputSerializer},
    )
    def post(self, request, pk: int):
        dataset = get_object_or_404(Dataset, pk=pk)
        if request.query_params.get("dry_run") in {"1", "true", "yes"}:
            return Response(services.instantiation_plan(dataset=dataset).as_dict())
        job = services.dataset_instantiate_async(dataset=dataset, requested_by=request.user)
        return Response(JobOutputSerializer(job).data, status=status.HTTP_202_ACCEPTED)


# --- templates -----------------------------------------------------------------------------


class TemplateVersionOutput(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )

    class Meta:
        model = TemplateVersion
        exclude = ["template"]


class TemplateOutput(serializers.ModelSerializer):
    dataset = serializers.SlugRelatedField(slug_field="name", read_only=True)
    category = serializers.SlugRelatedField(slug_field="name", read_only=True)
    current_version = serializers.SerializerMethodField()
    version_count = serializers.SerializerMethodField()

    class Meta:
        model = Template
        fields = [
            "id",
            "dataset",
            "external_id",
            "question_index",
            "variant",
            "category",
            "current_version",
            "version_count",
            "created_at",
        ]

    def get_current_version(self, template: Template) -> dict:
        current = template.current_versions  # prefetched: template_current_versions
        return TemplateVersionOutput(current[0]).data if current else {}

    def get_version_count(self, template: Template) -> int:
        return len(template.versions.all())


class TemplateContentInput(serializers.Serializer):
    """The editable content of a template; PATCH accepts any subset and records a version."""

    language = serializers.CharField(max_length=column(TemplateVersion, "language"), required=False)
    ambiguous_context = NfcCharField(required=False)
    disambiguating_context = NfcCharField(required=False)
    question_negative = NfcCharField(required=False)
    question_non_negative = NfcCharField(required=False)
    answer_negative = NfcCharField(required=False)
    answer_non_negative = NfcCharField(required=False)
    # Each value is a list of strings, or a vocabulary reference
    # {"vocabulary": name, "groups": [...], "language": xx} resolved by the service.
    placeholders = serializers.DictField(child=serializers.JSONField(), required=False)
    placeholder_groups = serializers.DictField(
        child=serializers.ListField(child=NfcCharField()), required=False
    )
    target_placeholder = serializers.ChoiceField(["NAME1", "NAME2"], required=False)
    proper_noun = serializers.BooleanField(required=False)
    pairing = serializers.ChoiceField(Pairing.choices, required=False)
    stereotyped_groups = serializers.ListField(child=NfcCharField(), required=False)
    non_stereotyped_groups = serializers.ListField(child=NfcCharField(), required=False)
    subcategory = NfcCharField(
        required=False, allow_blank=True, max_length=column(TemplateVersion, "subcategory")
    )
    transformation_type = serializers.ChoiceField(
        TransformationType.choices, required=False, allow_blank=True
    )
    transformation_reason = NfcCharField(required=False, allow_blank=True)
    original_bbq_id = serializers.CharField(
        required=False, allow_blank=True, max_length=column(TemplateVersion, "original_bbq_id")
    )
    concept_id = serializers.PrimaryKeyRelatedField(
        queryset=StereotypeConcept.objects.all(), required=False, allow_null=True
    )
    source = NfcCharField(required=False, allow_blank=True)
    notes = NfcCharField(required=False, allow_blank=True)
    status = serializers.ChoiceField(ReviewStatus.choices, required=False)

    def to_content(self) -> dict:
        content = nfc_deep(dict(self.validated_data))
        if "concept_id" in content:
            concept = content["concept_id"]
            content["concept_id"] = concept.pk if concept else None
        return content


class TemplateListApi(generics.ListCreateAPIView):
    @extend_schema_serializer(component_name="TemplateCreateInput")
    class InputSerializer(TemplateContentInput):
        dataset = serializers.SlugRelatedField(slug_field="name", queryset=Dataset.objects.all())
        external_id = serializers.CharField(max_length=column(Template, "external_id"))
        category = serializers.SlugRelatedField(slug_field="name", queryset=Category.objects.all())
        question_index = serializers.CharField(
            required=False,
            allow_blank=True,
            default="",
            max_length=column(Template, "question_index"),
        )
        variant = serializers.CharField(
            required=False, allow_blank=True, default="", max_length=column(Template, "variant")
        )

    permission_classes = [ResearcherOrReadOnly]
    queryset = selectors.template_list()
    serializer_class = TemplateOutput
    filterset_class = selectors.TemplateFilter

    @extend_schema(request=InputSerializer, responses={201: TemplateOutput})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        identity = {
            key: data.validated_data.pop(key)
            for key in ("dataset", "external_id", "category", "question_index", "variant")
        }
        version = services.template_create(
            content=data.to_content(), created_by=request.user, **identity
        )
        template = selectors.template_list().get(pk=version.template_id)
        return Response(TemplateOutput(template).data, status=status.HTTP_201_CREATED)


class TemplateDetailApi(generics.RetrieveAPIView):
    """GET a template; PATCH its content, which records a new version (history is kept)."""

    permission_classes = [ResearcherOrReadOnly]
    queryset = selectors.template_list()
    serializer_class = TemplateOutput

    @extend_schema(request=TemplateContentInput, responses={200: TemplateOutput})
    def patch(self, request, pk: int):
        template = get_object_or_404(Template, pk=pk)
        data = TemplateContentInput(data=request.data)
        data.is_valid(raise_exception=True)
        services.template_edit(template=template, changes=data.to_content(), edited_by=request.user)
        return Response(TemplateOutput(selectors.template_list().get(pk=pk)).data)


class TemplateVersionListApi(generics.ListAPIView):
    """Every version of a template, newest first."""

    permission_classes = [ResearcherOrReadOnly]
    serializer_class = TemplateVersionOutput
    pagination_class = None

    queryset = TemplateVersion.objects.none()  # for the schema; get_queryset filters

    def get_queryset(self):
        return TemplateVersion.objects.filter(template_id=self.kwargs["pk"]).order_by("-number")


# --- vocabularies and unknown expressions --------------------------------------------------


class VocabularyEntrySerializer(serializers.ModelSerializer):
    class Meta:
        model = VocabularyEntry
        fields = ["value", "group", "position"]


class VocabularyOutput(serializers.ModelSerializer):
    entries = VocabularyEntrySerializer(many=True, read_only=True)

    class Meta:
        model = Vocabulary
        fields = ["id", "name", "language", "description", "entries"]


class VocabularyListApi(generics.ListAPIView):
    permission_classes = [ResearcherOrReadOnly]
    queryset = Vocabulary.objects.prefetch_related("entries")
    serializer_class = VocabularyOutput
    filterset_fields = ["language", "name"]


class UnknownExpressionOutput(serializers.ModelSerializer):
    class Meta:
        model = UnknownExpression
        fields = ["id", "language", "text", "position"]


class UnknownExpressionListApi(generics.ListCreateAPIView):
    @extend_schema_serializer(component_name="UnknownExpressionInput")
    class InputSerializer(serializers.Serializer):
        language = serializers.CharField(max_length=column(UnknownExpression, "language"))
        text = NfcCharField(max_length=column(UnknownExpression, "text"))

    permission_classes = [ResearcherOrReadOnly]
    queryset = UnknownExpression.objects.all()
    serializer_class = UnknownExpressionOutput
    filterset_fields = ["language"]
    pagination_class = None

    @extend_schema(request=InputSerializer, responses={201: UnknownExpressionOutput})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        expression = services.unknown_expression_create(**data.validated_data)
        return Response(UnknownExpressionOutput(expression).data, status=status.HTTP_201_CREATED)


# --- other benchmark kinds (read; they are written by the importers) ------------------------


class SentencePairOutput(serializers.ModelSerializer):
    dataset = serializers.SlugRelatedField(slug_field="name", read_only=True)
    category = serializers.SlugRelatedField(slug_field="name", read_only=True)

    class Meta:
        model = SentencePair
        fields = [
            "id",
            "dataset",
            "external_id",
            "category",
            "language",
            "sent_more",
            "sent_less",
            "direction",
            "target_group",
            "parallel",
            "origin",
        ]


class SentencePairListApi(generics.ListAPIView):
    permission_classes = [ResearcherOrReadOnly]
    queryset = SentencePair.objects.select_related("dataset", "category")
    serializer_class = SentencePairOutput
    filterset_class = selectors.SentencePairFilter


class TupleOutput(serializers.ModelSerializer):
    dataset = serializers.SlugRelatedField(slug_field="name", read_only=True)
    category = serializers.SlugRelatedField(slug_field="name", read_only=True)

    class Meta:
        model = StereotypeTuple
        fields = [
            "id",
            "dataset",
            "category",
            "language",
            "identity_term",
            "attribute",
            "polarity",
            "votes",
            "votes_source",
            "imported_votes",
            "origin",
        ]


class TupleListApi(generics.ListAPIView):
    permission_classes = [ResearcherOrReadOnly]
    queryset = StereotypeTuple.objects.select_related("dataset", "category")
    serializer_class = TupleOutput
    filterset_class = selectors.TupleFilter


class ContextSentenceOutput(serializers.ModelSerializer):
    class Meta:
        model = ContextSentence
        # The review state is the last sentence-review decision (tier and keep/fix/drop).
        fields = ["kind", "text", "position", "review_tier", "review_decision", "reviewed_at"]


class ContextSetOutput(serializers.ModelSerializer):
    dataset = serializers.SlugRelatedField(slug_field="name", read_only=True)
    category = serializers.SlugRelatedField(slug_field="name", read_only=True)
    sentences = ContextSentenceOutput(many=True, read_only=True)

    class Meta:
        model = ContextSet
        fields = [
            "id",
            "dataset",
            "external_id",
            "category",
            "language",
            "context",
            "target_group",
            "sentences",
            "origin",
        ]


class ContextSetListApi(generics.ListAPIView):
    permission_classes = [ResearcherOrReadOnly]
    queryset = ContextSet.objects.select_related("dataset", "category").prefetch_related(
        "sentences"
    )
    serializer_class = ContextSetOutput
    filterset_class = selectors.ContextSetFilter
