"""Admin: the model registry and prompt templates are edited here (prompt templates are data);
runs and their rows are read-only (a run is made by its services and never edited by hand)."""

from __future__ import annotations

from django.contrib import admin

from .models import EvaluationRun, ItemResult, ModelEntry, Prediction, PromptTemplate


@admin.register(ModelEntry)
class ModelEntryAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "path", "endpoint_url", "dtype", "device", "created_at"]
    list_filter = ["kind"]
    search_fields = ["name", "path", "endpoint_model"]


@admin.register(PromptTemplate)
class PromptTemplateAdmin(admin.ModelAdmin):
    list_display = ["name", "instruction_language", "language", "shots", "updated_at"]
    list_filter = ["instruction_language", "shots"]


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(EvaluationRun)
class EvaluationRunAdmin(ReadOnlyAdmin):
    list_display = ["id", "kind", "status", "dataset", "release", "model_label", "created_at"]
    list_filter = ["kind", "job__status"]
    list_select_related = ["job", "dataset", "release"]


@admin.register(Prediction)
class PredictionAdmin(ReadOnlyAdmin):
    list_display = ["run", "instance", "item_key", "chosen"]
    raw_id_fields = ["run", "instance"]


@admin.register(ItemResult)
class ItemResultAdmin(ReadOnlyAdmin):
    list_display = ["run", "item_key", "category", "language"]
    raw_id_fields = ["run"]
