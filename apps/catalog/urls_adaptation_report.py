"""The studio's adaptation_report pages, included by apps/catalog/urls.py ("web:" namespace)."""

urlpatterns: list = []
