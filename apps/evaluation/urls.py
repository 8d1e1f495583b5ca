"""Evaluation pages, under /evaluation/ (namespace "evaluation")."""

from django.urls import path

from . import views, views_bias, views_leaderboard

app_name = "evaluation"

urlpatterns = [
    path("", views.run_list, name="runs"),
    path("runs/new/", views.run_new, name="run-new"),
    path("runs/new/bias/", views_bias.bias_run_new, name="bias-run-new"),
    path("runs/<int:pk>/", views.run_detail, name="run"),
    path("import/", views.predictions_import_page, name="import"),
    path("compare/", views.run_compare, name="compare"),
    path("leaderboard/", views_leaderboard.leaderboard_page, name="leaderboard"),
    path(
        "leaderboard/evaluate-all/", views_leaderboard.evaluate_all, name="leaderboard-evaluate-all"
    ),
    path("models/", views.model_list, name="models"),
    path("models/new/", views.model_new, name="model-new"),
]
