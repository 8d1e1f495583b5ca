"""Evaluation API routes, under /api/evaluation/."""

from django.urls import path

from . import api, api_bias, api_imports, api_leaderboard, api_runs

urlpatterns = [
    path("evaluation/models/", api.ModelEntryListApi.as_view(), name="evaluation-model-list"),
    path(
        "evaluation/models/<int:pk>/",
        api.ModelEntryDetailApi.as_view(),
        name="evaluation-model-detail",
    ),
    path(
        "evaluation/prompt-templates/",
        api.PromptTemplateListApi.as_view(),
        name="evaluation-prompt-template-list",
    ),
    path("evaluation/runs/", api_runs.RunListApi.as_view(), name="evaluation-run-list"),
    path(
        "evaluation/runs/compare/", api_runs.RunCompareApi.as_view(), name="evaluation-run-compare"
    ),
    path(
        "evaluation/runs/import/",
        api_imports.PredictionImportApi.as_view(),
        name="evaluation-run-import",
    ),
    path(
        "evaluation/runs/<int:pk>/", api_runs.RunDetailApi.as_view(), name="evaluation-run-detail"
    ),
    path(
        "evaluation/runs/<int:pk>/metrics/",
        api_runs.RunMetricsApi.as_view(),
        name="evaluation-run-metrics",
    ),
    path(
        "evaluation/runs/<int:pk>/predictions/",
        api_runs.RunPredictionListApi.as_view(),
        name="evaluation-run-predictions",
    ),
    path(
        "evaluation/runs/<int:pk>/download/",
        api_runs.RunDownloadApi.as_view(),
        name="evaluation-run-download",
    ),
    # The leaderboard (api_leaderboard.py, docs/evaluation.md "Leaderboard").
    path(
        "evaluation/leaderboard/",
        api_leaderboard.LeaderboardListApi.as_view(),
        name="evaluation-leaderboard",
    ),
    path(
        "evaluation/leaderboard/download/",
        api_leaderboard.LeaderboardDownloadApi.as_view(),
        name="evaluation-leaderboard-download",
    ),
    path(
        "evaluation/leaderboard/heatmaps/",
        api_leaderboard.LeaderboardHeatMapsApi.as_view(),
        name="evaluation-leaderboard-heatmaps",
    ),
    path(
        "evaluation/leaderboard/evaluate-all/",
        api_leaderboard.EvaluateAllApi.as_view(),
        name="evaluation-leaderboard-evaluate-all",
    ),
    # CrowS-Pairs, SEAT and IndiCASA runs (api_bias.py, docs/evaluation-bias.md).
    path("evaluation/crows/", api_bias.CrowsRunCreateApi.as_view(), name="evaluation-crows"),
    path("evaluation/seat/", api_bias.SeatRunCreateApi.as_view(), name="evaluation-seat"),
    path(
        "evaluation/indicasa/train/",
        api_bias.IndicasaTrainRunCreateApi.as_view(),
        name="evaluation-indicasa-train",
    ),
    path(
        "evaluation/indicasa/generate/",
        api_bias.IndicasaGenerateRunCreateApi.as_view(),
        name="evaluation-indicasa-generate",
    ),
]
