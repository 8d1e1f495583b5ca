"""Release pages, included at the site root (namespace "releases")."""

from django.urls import path

from . import views

app_name = "releases"

urlpatterns = [
    path("datasets/<int:pk>/releases/", views.release_list, name="list"),
    path("datasets/<int:pk>/releases/new/", views.release_create, name="create"),
]
