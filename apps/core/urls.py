"""Job pages (namespace "jobs"): one list and one page for every kind of background job."""

from django.urls import path

from . import views

app_name = "jobs"

urlpatterns = [
    path("", views.job_list, name="list"),
    path("<int:pk>/", views.job_detail, name="detail"),
    path("<int:pk>/cancel/", views.job_cancel, name="cancel"),
    path("<int:pk>/resume/", views.job_resume, name="resume"),
]
