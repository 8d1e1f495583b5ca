"""Jobs are written by the services and the worker; the admin only shows them."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from .models import Job


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "kind",
        "title",
        "status",
        "progress_done",
        "progress_total",
        "attempts",
        "recoveries",
        "heartbeat_at",
        "created_by",
        "created_at",
        "finished_at",
    )
    list_filter = ("kind", "status")
    search_fields = ("id", "title", "celery_task_id", "error")
    list_select_related = ("created_by",)
    date_hierarchy = "created_at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False
