"""Release pages, included at the site root (namespace "releases")."""

from django.urls import path

from . import views, views_card, views_provenance

app_name = "releases"

urlpatterns = [
    path("datasets/<int:pk>/releases/", views.release_list, name="list"),
    path("datasets/<int:pk>/releases/new/", views.release_create, name="create"),
    path("releases/<int:pk>/", views.release_detail, name="detail"),
    path("datasets/<int:pk>/card/", views_card.dataset_card_edit, name="card-edit"),
    path("instances/<int:pk>/provenance/", views_provenance.instance_provenance, name="provenance"),
]
