from django.contrib import admin

from .models import (
    CorrectionItem,
    CorrectionRevision,
    TranslatedString,
    TranslationChunk,
    TranslationJob,
)


@admin.register(TranslationJob)
class TranslationJobAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "dataset",
        "status",
        "phase",
        "done_strings",
        "total_strings",
        "core_job",
    ]
    list_filter = ["core_job__status", "source"]
    list_select_related = ["dataset", "core_job"]
    readonly_fields = [field.name for field in TranslationJob._meta.fields]


@admin.register(TranslationChunk)
class TranslationChunkAdmin(admin.ModelAdmin):
    list_display = ["id", "job", "language", "index", "size", "status", "attempts", "translated"]
    list_filter = ["status", "language"]


@admin.register(TranslatedString)
class TranslatedStringAdmin(admin.ModelAdmin):
    list_display = ["id", "language", "source_text", "translation", "similarity", "passed"]
    list_filter = ["language", "passed"]
    search_fields = ["source_text", "translation"]


class CorrectionRevisionInline(admin.TabularInline):
    model = CorrectionRevision
    extra = 0
    readonly_fields = ["previous_text", "text", "status", "note", "author", "created_at"]
    can_delete = False


@admin.register(CorrectionItem)
class CorrectionItemAdmin(admin.ModelAdmin):
    list_display = ["id", "kind", "language", "status", "reason"]
    list_filter = ["kind", "status", "language"]
    inlines = [CorrectionRevisionInline]
    raw_id_fields = ["translated_string", "instance", "job"]
