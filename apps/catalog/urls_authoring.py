"""The studio's authoring pages, included by apps/catalog/urls.py ("web:" namespace)."""

urlpatterns: list = []
