"""Catalog writes, as modules named for their jobs:

* datasets: creating a dataset, or finding it by name;
* dataset_card: the dataset card's licence, names and texts (issue 22);
* concepts: categories and stereotype concepts (with their evidence);
* templates: creating and editing templates (each edit a new version), and validating content;
* instances: instantiation (the plan, the stale versions, the COPY of the rows, the job);
* findings: reviewing import findings;
* adaptation: a dataset's source benchmark, adapting or removing each source template;
* vocabulary: vocabularies (group lists, proper names, definite forms) and unknown answers;
* sentence_review: recording sentence-review decisions on context sentences.

The public names are re-exported here: callers write `from apps.catalog import services` or
`from apps.catalog.services import template_create`, whichever module holds it.
"""

from .adaptation import (
    adaptation_link,
    adaptation_links_replace,
    adaptation_remove,
    adaptation_restore,
    adaptation_start,
    dataset_source_set,
)
from .concepts import (
    category_create,
    category_get_or_create,
    concept_create,
    concept_survey_counts_set,
    evidence_add,
    evidence_validate,
)
from .dataset_card import dataset_card_update
from .datasets import dataset_create, dataset_get_or_create
from .findings import finding_kind_status_set, finding_status_set
from .instances import (
    ORIGINAL_DEFAULT_COLUMNS,
    ORIGINAL_INSTANCE_COLUMNS,
    InstantiationPlan,
    TemplatePlan,
    # bench/p1_instantiate.py measures the row generator against its baselines.
    _instance_rows,
    _unknown_expressions,
    dataset_instantiate,
    dataset_instantiate_async,
    instantiation_pending,
    instantiation_plan,
    instantiation_stale,
    instantiation_stale_for_release,
)
from .sentence_review import context_sentence_review_record
from .templates import (
    TEMPLATE_CONTENT_FIELDS,
    TEMPLATE_VERSION_IDENTITY_FIELDS,
    NewTemplate,
    TemplateEditConflict,
    template_bulk_create,
    template_create,
    template_edit,
    template_problems,
)
from .vocabulary import (
    unknown_expression_create,
    unknown_expression_delete,
    vocabulary_create,
    vocabulary_entries_replace,
    vocabulary_revision_restore,
)

__all__ = [
    "ORIGINAL_DEFAULT_COLUMNS",
    "ORIGINAL_INSTANCE_COLUMNS",
    "TEMPLATE_CONTENT_FIELDS",
    "TEMPLATE_VERSION_IDENTITY_FIELDS",
    "InstantiationPlan",
    "NewTemplate",
    "TemplateEditConflict",
    "TemplatePlan",
    "_instance_rows",
    "_unknown_expressions",
    "adaptation_link",
    "adaptation_links_replace",
    "adaptation_remove",
    "adaptation_restore",
    "adaptation_start",
    "category_create",
    "category_get_or_create",
    "concept_create",
    "concept_survey_counts_set",
    "evidence_add",
    "evidence_validate",
    "context_sentence_review_record",
    "dataset_card_update",
    "dataset_create",
    "dataset_get_or_create",
    "dataset_source_set",
    "dataset_instantiate",
    "dataset_instantiate_async",
    "finding_kind_status_set",
    "finding_status_set",
    "instantiation_pending",
    "instantiation_plan",
    "instantiation_stale",
    "instantiation_stale_for_release",
    "template_bulk_create",
    "template_create",
    "template_edit",
    "template_problems",
    "unknown_expression_create",
    "unknown_expression_delete",
    "vocabulary_create",
    "vocabulary_entries_replace",
    "vocabulary_revision_restore",
]
