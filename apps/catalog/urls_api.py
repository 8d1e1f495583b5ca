from django.urls import path

from . import api, api_instances, api_items, api_templates
from .api_adaptation import AdaptationReportApi
from .api_findings import FindingDetailApi, FindingListApi
from .api_imports import BenchmarkImportApi

urlpatterns = [
    path("categories/", api.CategoryListApi.as_view(), name="category-list"),
    path("concepts/", api.ConceptListApi.as_view(), name="concept-list"),
    path("concepts/<int:pk>/", api.ConceptDetailApi.as_view(), name="concept-detail"),
    path("datasets/", api.DatasetListApi.as_view(), name="dataset-list"),
    path("datasets/<int:pk>/", api.DatasetDetailApi.as_view(), name="dataset-detail"),
    path(
        "datasets/<int:pk>/instantiation-plan/",
        api.DatasetInstantiationPlanApi.as_view(),
        name="dataset-instantiation-plan",
    ),
    path(
        "datasets/<int:pk>/adaptation-report/",
        AdaptationReportApi.as_view(),
        name="dataset-adaptation-report",
    ),
    path(
        "datasets/<int:pk>/instantiate/",
        api.DatasetInstantiateApi.as_view(),
        name="dataset-instantiate",
    ),
    path("templates/", api_templates.TemplateListApi.as_view(), name="template-list"),
    path("templates/preview/", api_templates.TemplatePreviewApi.as_view(), name="template-preview"),
    path("templates/<int:pk>/", api_templates.TemplateDetailApi.as_view(), name="template-detail"),
    path(
        "templates/<int:pk>/versions/",
        api_templates.TemplateVersionListApi.as_view(),
        name="template-versions",
    ),
    path("instances/", api_instances.InstanceListApi.as_view(), name="instance-list"),
    path("instances/<int:pk>/", api_instances.InstanceDetailApi.as_view(), name="instance-detail"),
    path("vocabularies/", api.VocabularyListApi.as_view(), name="vocabulary-list"),
    path(
        "unknown-expressions/",
        api.UnknownExpressionListApi.as_view(),
        name="unknown-expression-list",
    ),
    path("sentence-pairs/", api_items.SentencePairListApi.as_view(), name="sentence-pair-list"),
    path("tuples/", api_items.TupleListApi.as_view(), name="tuple-list"),
    path("context-sets/", api_items.ContextSetListApi.as_view(), name="context-set-list"),
    path("imports/", BenchmarkImportApi.as_view(), name="benchmark-import"),
    path("findings/", FindingListApi.as_view(), name="finding-list"),
    path("findings/<int:pk>/", FindingDetailApi.as_view(), name="finding-detail"),
]
