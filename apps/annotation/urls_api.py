from django.urls import path

from . import api, api_adjudication, api_corrections, api_people, api_reports

urlpatterns = [
    path("annotation/campaigns/", api.CampaignListApi.as_view(), name="annotation-campaigns"),
    path("annotation/campaigns/<int:pk>/", api.CampaignDetailApi.as_view()),
    path("annotation/campaigns/<int:pk>/agreement/", api.CampaignAgreementApi.as_view()),
    path("annotation/campaigns/<int:pk>/calibration/", api.CampaignCalibrationApi.as_view()),
    path("annotation/campaigns/<int:pk>/next/", api.NextAssignmentApi.as_view()),
    path("annotation/assignments/<int:pk>/", api.AssignmentDetailApi.as_view()),
    path("annotation/assignments/<int:pk>/judgements/", api.JudgementCreateApi.as_view()),
    path("annotation/assignments/<int:pk>/undo/", api.JudgementUndoApi.as_view()),
    path("annotation/adjudication/", api_adjudication.AdjudicationQueueApi.as_view()),
    path("annotation/items/<int:pk>/", api_adjudication.ItemDetailApi.as_view()),
    path("annotation/items/<int:pk>/decision/", api_adjudication.ItemDecisionApi.as_view()),
    path("annotation/annotators/", api_people.AnnotatorListApi.as_view()),
    path("annotation/annotators/<int:pk>/", api_people.AnnotatorDetailApi.as_view()),
    path("annotation/sentences/<int:pk>/history/", api_adjudication.SentenceHistoryApi.as_view()),
    path("annotation/datasets/<int:pk>/table3/", api_reports.Table3Api.as_view()),
    path("annotation/corrections/<int:pk>/", api_corrections.CorrectionApi.as_view()),
]
