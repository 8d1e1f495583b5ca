"""Admin for the catalog. Template content is versioned: versions are shown read-only here and
new ones are made through services.template_edit (API or import), never by editing a row."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest

from .models import (
    Category,
    ContextSentence,
    ContextSet,
    Dataset,
    EvidenceReference,
    Finding,
    Instance,
    SentencePair,
    StereotypeConcept,
    StereotypeTuple,
    Template,
    TemplateVersion,
    UnknownExpression,
    Vocabulary,
    VocabularyEntry,
)


class ReadOnlyAdminMixin:
    """Rows written only by services (bulk instantiation, versioning) are view-only here."""

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    list_display = ("name", "is_intersectional", "description")
    search_fields = ("name", "description")
    filter_horizontal = ("components",)


class EvidenceReferenceInline(admin.TabularInline):
    model = EvidenceReference
    extra = 1


@admin.register(StereotypeConcept)
class StereotypeConceptAdmin(admin.ModelAdmin):
    list_display = (
        "statement",
        "category",
        "mentions",
        "source",
        "validation_status",
        "polarity",
        "meets_rule",
    )
    list_filter = ("category", "source", "validation_status", "polarity")
    search_fields = ("statement", "attribute", "evidence__note", "evidence__url")
    inlines = [EvidenceReferenceInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("category")

    @admin.display(boolean=True, description="Meets inclusion rule")
    def meets_rule(self, obj: StereotypeConcept) -> bool:
        return obj.meets_inclusion_rule


@admin.register(Dataset)
class DatasetAdmin(admin.ModelAdmin):
    list_display = ("name", "template_count", "name_permutations", "created_by", "created_at")
    search_fields = ("name", "description")
    list_filter = ("name_permutations",)
    readonly_fields = ("created_at",)

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).annotate(n_templates=Count("templates"))

    @admin.display(description="Templates", ordering="n_templates")
    def template_count(self, obj: Dataset) -> int:
        return obj.n_templates


class VocabularyEntryInline(admin.TabularInline):
    model = VocabularyEntry
    extra = 1
    fields = ("position", "value", "group")


@admin.register(Vocabulary)
class VocabularyAdmin(admin.ModelAdmin):
    list_display = ("name", "language", "entry_count")
    list_filter = ("language",)
    search_fields = ("name", "description", "entries__value", "entries__group")
    inlines = [VocabularyEntryInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).annotate(n_entries=Count("entries"))

    @admin.display(description="Entries", ordering="n_entries")
    def entry_count(self, obj: Vocabulary) -> int:
        return obj.n_entries


@admin.register(UnknownExpression)
class UnknownExpressionAdmin(admin.ModelAdmin):
    list_display = ("text", "language", "position")
    list_filter = ("language",)
    search_fields = ("text",)


class TemplateVersionInline(admin.StackedInline):
    model = TemplateVersion
    extra = 0
    can_delete = False
    show_change_link = True
    ordering = ("-number",)
    fields = (
        "number",
        "status",
        "language",
        *TemplateVersion.TEXT_FIELDS,
        "placeholders",
        "placeholder_groups",
        "target_placeholder",
        "pairing",
        "proper_noun",
        "concept",
        "created_by",
        "created_at",
    )
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Template)
class TemplateAdmin(admin.ModelAdmin):
    list_display = ("external_id", "dataset", "category", "question_index", "variant", "position")
    list_filter = ("dataset", "category")
    search_fields = ("external_id", "question_index", "versions__ambiguous_context")
    list_select_related = ("dataset", "category")
    inlines = [TemplateVersionInline]


@admin.register(TemplateVersion)
class TemplateVersionAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "template",
        "number",
        "language",
        "status",
        "pairing",
        "proper_noun",
        "transformation_type",
        "created_by",
        "created_at",
    )
    list_filter = (
        "status",
        "language",
        "pairing",
        "proper_noun",
        "transformation_type",
        "template__category",
        "template__dataset",
    )
    search_fields = ("template__external_id", "ambiguous_context", "disambiguating_context")
    list_select_related = ("template", "template__dataset", "created_by")
    raw_id_fields = ("template", "concept")


@admin.register(Instance)
class InstanceAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "question_index",
        "example_id",
        "dataset",
        "category",
        "language",
        "context_condition",
        "question_polarity",
        "pairing",
        "label",
        "retired_at",
    )
    list_filter = (
        "dataset",
        "category",
        "language",
        "context_condition",
        "question_polarity",
        "pairing",
        "proper_noun",
    )
    search_fields = ("question_index", "context", "question")
    list_select_related = ("dataset", "category")
    show_full_result_count = False  # instance tables are large; skip the second COUNT(*)


@admin.register(SentencePair)
class SentencePairAdmin(admin.ModelAdmin):
    list_display = ("external_id", "dataset", "language", "category", "direction", "sent_more")
    list_filter = ("dataset", "language", "category", "direction")
    search_fields = ("external_id", "sent_more", "sent_less", "target_group")
    raw_id_fields = ("parallel",)


@admin.register(StereotypeTuple)
class StereotypeTupleAdmin(admin.ModelAdmin):
    list_display = ("identity_term", "attribute", "dataset", "language", "category", "polarity")
    list_filter = ("dataset", "language", "category", "polarity")
    search_fields = ("identity_term", "attribute")


class ContextSentenceInline(admin.TabularInline):
    model = ContextSentence
    extra = 1
    fields = ("kind", "position", "text")


@admin.register(ContextSet)
class ContextSetAdmin(admin.ModelAdmin):
    list_display = ("external_id", "dataset", "language", "category", "target_group", "context")
    list_filter = ("dataset", "language", "category")
    search_fields = ("external_id", "context", "sentences__text")
    inlines = [ContextSentenceInline]


@admin.register(Finding)
class FindingAdmin(admin.ModelAdmin):
    """Import findings: written by imports; an admin may only change the review status."""

    list_display = ("kind", "dataset", "file", "line", "field", "status", "message")
    list_filter = ("dataset", "kind", "status")
    search_fields = ("message", "original", "file")
    readonly_fields = (
        "dataset",
        "template_version",
        "sentence_pair",
        "context_sentence",
        "file",
        "line",
        "field",
        "kind",
        "message",
        "original",
        "created_at",
    )

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False
