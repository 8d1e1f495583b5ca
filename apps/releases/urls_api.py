from django.urls import path

from . import api

urlpatterns = [
    path("releases/", api.ReleaseListApi.as_view(), name="release-list"),
    path("releases/<int:pk>/", api.ReleaseDetailApi.as_view(), name="release-detail"),
    path("releases/<int:pk>/export/", api.ReleaseExportApi.as_view(), name="release-export"),
    path(
        "datasets/<int:pk>/releases/",
        api.DatasetReleaseCreateApi.as_view(),
        name="dataset-release-create",
    ),
    path(
        "datasets/<int:pk>/releases/preview/",
        api.DatasetReleasePreviewApi.as_view(),
        name="dataset-release-preview",
    ),
    path("datasets/<int:pk>/export/", api.DatasetExportApi.as_view(), name="dataset-export"),
]
