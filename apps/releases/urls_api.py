from django.urls import path

from . import api, api_card, api_hub, api_provenance

urlpatterns = [
    path("releases/", api.ReleaseListApi.as_view(), name="release-list"),
    path("releases/<int:pk>/", api.ReleaseDetailApi.as_view(), name="release-detail"),
    path("releases/<int:pk>/export/", api.ReleaseExportApi.as_view(), name="release-export"),
    path("releases/<int:pk>/hub/", api_hub.ReleaseHubApi.as_view(), name="release-hub"),
    path(
        "instances/<int:pk>/provenance/",
        api_provenance.InstanceProvenanceApi.as_view(),
        name="instance-provenance",
    ),
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
    path("datasets/<int:pk>/card/", api_card.DatasetCardApi.as_view(), name="dataset-card"),
]
