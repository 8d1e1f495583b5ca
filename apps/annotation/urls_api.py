from django.urls import path

from . import api

urlpatterns = [
    path("annotation/campaigns/", api.CampaignListApi.as_view(), name="annotation-campaigns"),
    path("annotation/campaigns/<int:pk>/", api.CampaignDetailApi.as_view()),
    path("annotation/campaigns/<int:pk>/agreement/", api.CampaignAgreementApi.as_view()),
    path("annotation/campaigns/<int:pk>/calibration/", api.CampaignCalibrationApi.as_view()),
    path("annotation/campaigns/<int:pk>/next/", api.NextAssignmentApi.as_view()),
    path("annotation/assignments/<int:pk>/", api.AssignmentDetailApi.as_view()),
    path("annotation/assignments/<int:pk>/judgements/", api.JudgementCreateApi.as_view()),
    path("annotation/assignments/<int:pk>/undo/", api.JudgementUndoApi.as_view()),
    path("annotation/adjudication/", api.AdjudicationQueueApi.as_view()),
    path("annotation/items/<int:pk>/", api.ItemDetailApi.as_view()),
    path("annotation/items/<int:pk>/decision/", api.ItemDecisionApi.as_view()),
    path("annotation/annotators/", api.AnnotatorListApi.as_view()),
    path("annotation/annotators/<int:pk>/", api.AnnotatorDetailApi.as_view()),
    path("annotation/sentences/<int:pk>/history/", api.SentenceHistoryApi.as_view()),
    path("annotation/datasets/<int:pk>/table3/", api.Table3Api.as_view()),
    path("annotation/corrections/<int:pk>/", api.CorrectionApi.as_view()),
]
