"""Page URLs, included at the site root. Namespaced ("web:") so that page names never clash
with the API's route names."""

from django.urls import include, path

from . import views

app_name = "web"

urlpatterns = [
    path("", views.home, name="home"),
    path("import/", views.benchmark_import_page, name="import"),
    path("datasets/<int:pk>/", views.dataset_detail, name="dataset"),
    path("datasets/<int:pk>/instantiate/", views.dataset_instantiate, name="dataset-instantiate"),
    path("datasets/<int:pk>/instances/", views.instance_list, name="instances"),
    path("datasets/<int:pk>/findings/", views.dataset_findings, name="findings"),
    path(
        "datasets/<int:pk>/findings/review-kind/",
        views.finding_kind_review,
        name="findings-review-kind",
    ),
    path(
        "datasets/<int:pk>/findings/<int:finding_pk>/review/",
        views.finding_review,
        name="finding-review",
    ),
    path(
        "datasets/<int:pk>/compare-published/",
        views.dataset_compare_published,
        name="dataset-compare-published",
    ),
    path("templates/<int:pk>/", views.template_detail, name="template"),
    path("concepts/", views.concept_list, name="concepts"),
    path("concepts/<int:pk>/", views.concept_detail, name="concept"),
    path("concepts/<int:pk>/evidence/", views.concept_evidence_add, name="concept-evidence-add"),
    path(
        "concepts/<int:pk>/evidence/<int:evidence_pk>/validate/",
        views.concept_evidence_validate,
        name="concept-evidence-validate",
    ),
    path("datasets/<int:pk>/inclusion/", views.dataset_inclusion, name="dataset-inclusion"),
    # The adaptation and authoring studio (docs/studio/): each part's pages in a module of its own.
    path("", include("apps.catalog.urls_authoring")),
    path("", include("apps.catalog.urls_board")),
    path("", include("apps.catalog.urls_vocabulary")),
    path("", include("apps.catalog.urls_export")),
    path("", include("apps.catalog.urls_adaptation_report")),
]
