from django.urls import path

from . import views, views_manage

app_name = "annotation"

urlpatterns = [
    path("", views.campaign_list, name="campaigns"),
    path("campaigns/<int:pk>/", views.campaign_work, name="campaign-work"),
    path("campaigns/<int:pk>/at/<int:number>/", views.assignment_at, name="at"),
    path("assignments/<int:pk>/", views.assignment_work, name="assignment"),
    path("assignments/<int:pk>/undo/", views.assignment_undo, name="undo"),
    path("manage/campaigns/new/", views_manage.campaign_new, name="campaign-new"),
    path("manage/campaigns/<int:pk>/", views_manage.campaign_dashboard, name="dashboard"),
    path("manage/items/<int:pk>/", views_manage.item_adjudicate, name="adjudicate"),
    path("corrections/", views.correction_work, name="corrections"),
    path("manage/people/", views_manage.people, name="people"),
    path("manage/datasets/<int:pk>/table3/", views_manage.table3, name="table3"),
]
