"""The studio's export pages, included by apps/catalog/urls.py ("web:" namespace)."""

urlpatterns: list = []
