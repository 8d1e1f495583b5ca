"""Pages of the translation workflow, under /translation/ (namespace "translation")."""

from django.urls import path

from . import views

app_name = "translation"

urlpatterns = [
    path("jobs/", views.job_list, name="jobs"),
    path("jobs/new/", views.job_new, name="job-new"),
    path("jobs/<int:pk>/", views.job_detail, name="job"),
]
