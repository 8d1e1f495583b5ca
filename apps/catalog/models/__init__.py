"""The benchmark catalog: what a bias benchmark is made of.

Reading order for a newcomer: Category -> StereotypeConcept -> Dataset -> Template /
TemplateVersion -> Instance. The other benchmark kinds (SentencePair, StereotypeTuple,
ContextSet) hang off a Dataset as well. Releases live in apps.releases.

The tables live in modules by what they hold (concepts, datasets, templates, instances, items,
findings); every model is re-exported here, so `from apps.catalog.models import Instance` and
Django's app registry see one module.
"""

from .adaptation import Adaptation
from .concepts import Category, ConceptSource, EvidenceReference, StereotypeConcept
from .datasets import (
    AUTONYMS,
    LANGUAGE_NAMES,
    Dataset,
    UnknownExpression,
    Vocabulary,
    VocabularyEntry,
    VocabularyRevision,
)
from .findings import Finding, FindingReview
from .instances import ContextCondition, Instance, OptionRole, QuestionPolarity
from .items import ContextSentence, ContextSet, SentencePair, StereotypeTuple
from .templates import (
    NounForm,
    Pairing,
    ReviewStatus,
    Template,
    TemplateVersion,
    TransformationType,
)

__all__ = [
    "Adaptation",
    "AUTONYMS",
    "LANGUAGE_NAMES",
    "Category",
    "ConceptSource",
    "ContextCondition",
    "ContextSentence",
    "ContextSet",
    "Dataset",
    "EvidenceReference",
    "Finding",
    "FindingReview",
    "Instance",
    "NounForm",
    "OptionRole",
    "Pairing",
    "QuestionPolarity",
    "ReviewStatus",
    "SentencePair",
    "StereotypeConcept",
    "StereotypeTuple",
    "Template",
    "TemplateVersion",
    "TransformationType",
    "UnknownExpression",
    "Vocabulary",
    "VocabularyEntry",
    "VocabularyRevision",
]
