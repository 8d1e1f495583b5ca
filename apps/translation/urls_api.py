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
        "translation-jobs/<int:pk>/cancel/",
        api.TranslationJobCancelApi.as_view(),
        name="translation-job-cancel",
    ),
    path(
        "translation-jobs/<int:pk>/resume/",
        api.TranslationJobResumeApi.as_view(),
        name="translation-job-resume",
    ),
    path(
        "translated-strings/",
        api.TranslatedStringListApi.as_view(),
        name="translated-string-list",
    ),
    path("corrections/", api.CorrectionListApi.as_view(), name="correction-list"),
]
