from django.urls import path

from . import api

urlpatterns = [
    path("translation-jobs/", api.TranslationJobListApi.as_view(), name="translation-job-list"),
    path(
        "translation-jobs/<int:pk>/",
        api.TranslationJobDetailApi.as_view(),
        name="translation-job-detail",
    ),
    path(
        "translated-strings/",
        api.TranslatedStringListApi.as_view(),
        name="translated-string-list",
    ),
    path("corrections/", api.CorrectionListApi.as_view(), name="correction-list"),
]
