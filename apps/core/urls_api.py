from django.urls import path

from . import api

urlpatterns = [
    path("jobs/", api.JobListApi.as_view(), name="job-list"),
    path("jobs/<int:pk>/", api.JobDetailApi.as_view(), name="job-detail"),
    path("jobs/<int:pk>/cancel/", api.JobCancelApi.as_view(), name="job-cancel"),
    path("jobs/<int:pk>/resume/", api.JobResumeApi.as_view(), name="job-resume"),
]
