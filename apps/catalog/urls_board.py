"""The studio's board pages, included by apps/catalog/urls.py ("web:" namespace)."""

urlpatterns: list = []
