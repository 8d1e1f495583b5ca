"""Catalog REST API: categories, concepts, datasets (and their instantiation), vocabularies
and unknown expressions. Templates are in api_templates.py, the other benchmark kinds in
api_items.py, instances in api_instances.py, findings in api_findings.py, imports in
api_imports.py. Views stay thin: validate input, call a service or selector, serialize.

Everyone with a role reads; only researchers and admins write (ResearcherOrReadOnly).
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
    inline_serializer,
)
from rest_framework import generics, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import IsResearcher, ResearcherOrReadOnly
from apps.core.api import JobOutputSerializer
from apps.core.filters import ReferenceFilter

from . import selectors, services
from .api_fields import MAX_INTEGER, NfcCharField, column
from .inclusion import Verdict, concept_verdict
from .models import (
    Category,
    ConceptSource,
    Dataset,
    EvidenceReference,
    StereotypeConcept,
    UnknownExpression,
    Vocabulary,
    VocabularyEntry,
)

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
    """Evidence given with a new concept (a URL and a note); typed evidence with a quoted
    passage is added on the concept's page (evidence_add)."""

    class Meta:
        model = EvidenceReference
        fields = ["url", "note"]


class EvidenceOutput(serializers.ModelSerializer):
    added_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True, help_text="Who added it."
    )
    validated_by = serializers.SlugRelatedField(
        slug_field="username",
        read_only=True,
        allow_null=True,
        help_text="Who validated or rejected it; null while pending.",
    )

    class Meta:
        model = EvidenceReference
        fields = [
            "id",
            "kind",
            "url",
            "note",
            "quote",
            "added_by",
            "added_at",
            "validation_status",
            "validated_by",
            "validated_at",
        ]


class ConceptOutput(serializers.ModelSerializer):
    """A concept with its live verdict under its dataset's inclusion rule
    (apps/catalog/inclusion.py): `mentions` is the typed, reported count; `survey_mentions` and
    `survey_affected` are derived from coded survey answers (null while none is coded);
    `counted_as` says which of the two the rule read, and `reasons` why it does not pass."""

    category = serializers.SlugRelatedField(slug_field="name", read_only=True)
    dataset = serializers.SlugRelatedField(slug_field="name", read_only=True, allow_null=True)
    evidence = EvidenceOutput(many=True, read_only=True)
    inclusion_rule = serializers.SerializerMethodField()
    counted_as = serializers.SerializerMethodField()
    reasons = serializers.SerializerMethodField()
    meets_inclusion_rule = serializers.SerializerMethodField()

    class Meta:
        model = StereotypeConcept
        fields = [
            "id",
            "category",
            "subcategory",
            "dataset",
            "target_groups",
            "statement",
            "attribute",
            "polarity",
            "mentions",
            "survey_mentions",
            "survey_affected",
            "counted_as",
            "source",
            "validation_status",
            "evidence",
            "inclusion_rule",
            "meets_inclusion_rule",
            "reasons",
            "created_at",
        ]

    def _verdict(self, concept: StereotypeConcept) -> Verdict:
        # Once per concept, from the prefetched evidence (no query per field or per row).
        cached = getattr(concept, "_api_verdict", None)
        if cached is None:
            cached = concept_verdict(concept, evidence=list(concept.evidence.all()))
            concept._api_verdict = cached
        return cached

    @extend_schema_field(serializers.CharField(help_text="The rule's registered name."))
    def get_inclusion_rule(self, concept: StereotypeConcept) -> str:
        return self._verdict(concept).rule.name

    @extend_schema_field(
        serializers.ChoiceField(
            choices=[("survey", "survey"), ("reported", "reported")],
            help_text="survey: derived from coded answers; reported: the typed `mentions`.",
        )
    )
    def get_counted_as(self, concept: StereotypeConcept) -> str:
        return self._verdict(concept).counted_as

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_reasons(self, concept: StereotypeConcept) -> list[str]:
        return self._verdict(concept).reasons

    @extend_schema_field(serializers.BooleanField())
    def get_meets_inclusion_rule(self, concept: StereotypeConcept) -> bool:
        return self._verdict(concept).passes


def _concept_queryset():
    return (
        selectors.concept_list()
        .select_related("dataset")
        .prefetch_related("evidence__added_by", "evidence__validated_by")
    )


class ConceptApiFilter(selectors.ConceptFilter):
    dataset = ReferenceFilter(model=Dataset)

    class Meta(selectors.ConceptFilter.Meta):
        fields = [*selectors.ConceptFilter.Meta.fields, "dataset"]


class ConceptListApi(generics.ListCreateAPIView):
    """Stereotype concepts. `?usable=true` keeps those that pass their dataset's inclusion rule
    (BharatBBQ: >= 3 mentions; EsBBQ: >= 3, or >= 2 with one affected), come from a trusted
    source, are validated and, where the dataset requires it, have evidence not rejected."""

    @extend_schema_serializer(component_name="ConceptInput")
    class InputSerializer(serializers.Serializer):
        category = serializers.SlugRelatedField(slug_field="name", queryset=Category.objects.all())
        dataset = serializers.SlugRelatedField(
            slug_field="name",
            queryset=Dataset.objects.all(),
            required=False,
            allow_null=True,
            default=None,
            help_text="The dataset whose inclusion rule judges it; null: the default rule.",
        )
        subcategory = NfcCharField(
            required=False,
            allow_blank=True,
            default="",
            max_length=column(StereotypeConcept, "subcategory"),
        )
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
    queryset = _concept_queryset()
    serializer_class = ConceptOutput
    filterset_class = ConceptApiFilter

    @extend_schema(request=InputSerializer, responses={201: ConceptOutput})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        concept = services.concept_create(**data.validated_data)
        return Response(
            ConceptOutput(_concept_queryset().get(pk=concept.pk)).data,
            status=status.HTTP_201_CREATED,
        )


class ConceptDetailApi(generics.RetrieveAPIView):
    permission_classes = [ResearcherOrReadOnly]
    queryset = _concept_queryset()
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
