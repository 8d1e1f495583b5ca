"""Releases are read-only everywhere, the admin included: they are made by release_create."""

from __future__ import annotations

from django.contrib import admin

from .models import Release, ReleaseFile


class ReadOnlyMixin:
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReleaseFileInline(ReadOnlyMixin, admin.TabularInline):
    model = ReleaseFile
    fields = ["kind", "format", "rows", "size", "sha256", "path"]
    readonly_fields = fields
    extra = 0


@admin.register(Release)
class ReleaseAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["dataset", "number", "created_by", "created_at"]
    list_filter = ["dataset"]
    readonly_fields = ["dataset", "number", "notes", "created_by", "created_at", "counts"]
    inlines = [ReleaseFileInline]
    actions = None
