"""The studio's vocabulary pages, included by apps/catalog/urls.py ("web:" namespace)."""

urlpatterns: list = []
