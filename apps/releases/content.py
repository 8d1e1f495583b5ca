"""What a release contains (`Release.content`), kind by kind, and what it leaves out and why.

* **reviewed** (the default): only what passed review, read from catalog fields (releases
  import neither annotation nor translation):
  - instances of approved template versions; a translation also needs its review facts to
    say it passed the similarity check or was corrected;
  - tuples whose votes make them stereotypical (apps.catalog.review.tuple_verdict: >= 2 of 3,
    a strict majority for other numbers of voters); published votes count as votes;
  - context sets: the sentences the last review tier (social science) kept or fixed; a set
    with no such stereotype or no such anti-stereotype sentence is left out;
  - sentence pairs: none. Kasauti has no review step for pairs (they only come from
    published imports), so a "reviewed" release cannot vouch for any (docs/releases.md).
* **as_published**: every live row of every kind, whatever its review state.

`content_facts(...).counts(mode)` is what a release records in `Release.counts`, exclusions
included; the release page shows it for both modes before a release is made (content_preview).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Exists, Max, Min, OuterRef, Q, QuerySet

from apps.catalog.models import (
    ContextSentence,
    ContextSet,
    Dataset,
    Instance,
    ReviewStatus,
    SentencePair,
)
from apps.catalog.review import SENTENCE_STATES, TupleVerdict, sentence_passed, tuple_verdict
from apps.core.errors import KasautiError

from .models import TABLE_KINDS, ContentMode, FileKind

REVIEWED_TRANSLATION = ("passed", "corrected")

_APPROVED_Q = Q(template_version__status=ReviewStatus.APPROVED)
_REVIEWED_INSTANCE_Q = _APPROVED_Q & (
    Q(source_instance__isnull=True) | Q(review__status__in=REVIEWED_TRANSLATION)
)

# Why a reviewed release leaves a row out, per kind: the keys of `counts["excluded"]`, in the
# order the page lists them, with their wording there.
EXCLUSION_REASONS: dict[str, dict[str, str]] = {
    "instances": {
        "template_not_approved": "template version not approved",
        "translation_flagged": "translation neither passed the similarity check nor corrected",
    },
    "sentence_pairs": {
        "not_reviewed": "sentence pairs have no review step in Kasauti",
    },
    "tuples": {
        TupleVerdict.NOT_VOTED: "not voted on",
        TupleVerdict.NOT_STEREOTYPICAL: "votes do not make it stereotypical",
    },
    "context_sets": {
        "no_stereotype_left": "no stereotype sentence passed review",
        "no_anti_stereotype_left": "no anti-stereotype sentence passed review",
        "no_sentence_left": "no sentence passed review",
    },
    "context_sentences": {
        "not_reviewed": "not reviewed",
        "awaiting_social_science_review": "kept or fixed by language review, awaiting "
        "social-science review",
        "dropped_in_language_review": "dropped in language review",
        "dropped_in_social_science_review": "dropped in social-science review",
        "set_left_out": "passed review, but its context set is left out",
    },
}
KIND_LABELS = {
    "instances": "Instances",
    "sentence_pairs": "Sentence pairs",
    "tuples": "Tuples",
    "context_sets": "Context sets",
    "context_sentences": "Context-set sentences",
}


def kind_rows(counts: dict[str, Any], kind: str) -> int:
    """How many rows of a file kind a release's counts hold (instances count as "total")."""
    return counts.get("total" if kind == FileKind.INSTANCES else kind, 0)


def kinds_without_rows(counts: dict[str, Any]) -> list[str]:
    """The table kinds a release holds none of: no file is written for them (an empty file
    in three formats says nothing the counts do not)."""
    return [kind for kind in TABLE_KINDS if not kind_rows(counts, kind)]


def content_check(content: str) -> None:
    if content not in ContentMode.values:
        raise KasautiError(f"content: {content!r} is not one of reviewed, as_published")


def _reviewed(content: str) -> bool:
    content_check(content)
    return content == ContentMode.REVIEWED


def live_instances(*, dataset: Dataset, content: str = ContentMode.REVIEWED) -> QuerySet[Instance]:
    """The live instances a release of `dataset` takes."""
    qs = Instance.objects.filter(dataset=dataset, retired_at__isnull=True)
    return qs.filter(_REVIEWED_INSTANCE_Q) if _reviewed(content) else qs


def released_sentence_pairs(*, dataset_id: int, content: str) -> QuerySet[SentencePair]:
    qs = SentencePair.objects.filter(dataset_id=dataset_id)
    return qs.none() if _reviewed(content) else qs


def tuple_released(*, votes: list[int] | None, content: str) -> bool:
    """Tuples are few (IndiBias has 300) and their votes a JSON list, so the rule runs in
    Python, the same function the annotation screens use."""
    return not _reviewed(content) or tuple_verdict(votes) == TupleVerdict.STEREOTYPICAL


def released_context_sets(*, dataset_id: int, content: str) -> QuerySet[ContextSet]:
    qs = ContextSet.objects.filter(dataset_id=dataset_id)
    if not _reviewed(content):
        return qs
    passed = ContextSentence.objects.filter(sentence_passed(), context_set=OuterRef("pk"))
    return qs.filter(
        Exists(passed.filter(kind=ContextSentence.Kind.STEREOTYPE)),
        Exists(passed.filter(kind=ContextSentence.Kind.ANTI_STEREOTYPE)),
    )


def released_context_sentences(
    *, context_set_ids: list[int], content: str
) -> QuerySet[ContextSentence]:
    qs = ContextSentence.objects.filter(context_set_id__in=context_set_ids)
    return qs.filter(sentence_passed()) if _reviewed(content) else qs


@dataclass
class _ReviewFacts:
    """A dataset's rows counted by review state: one read per kind, from which the counts of
    either content mode follow (the release form shows both)."""

    # (category, language) -> (live instances, of approved versions, taken when reviewed)
    instances: dict[tuple[str, str], tuple[int, int, int]]
    # content mode -> the id range and count of the instances a release takes (what the
    # release fingerprint records of them), from the same read
    instance_marks: dict[str, dict[str, int | None]]
    sentence_pairs: int
    tuples: dict[str, int]  # TupleVerdict -> n
    sentences: dict[str, int]  # "all" and SENTENCE_STATES -> n
    sets: list[tuple[int, int]]  # per set: (stereotypes, anti-stereotypes) that passed

    @classmethod
    def read(cls, dataset: Dataset) -> _ReviewFacts:
        rows = list(
            Instance.objects.filter(dataset=dataset, retired_at__isnull=True)
            .values("category__name", "language")
            .annotate(
                all=Count("id"),
                approved=Count("id", filter=_APPROVED_Q),
                taken=Count("id", filter=_REVIEWED_INSTANCE_Q),
                low=Min("id"),
                high=Max("id"),
                taken_low=Min("id", filter=_REVIEWED_INSTANCE_Q),
                taken_high=Max("id", filter=_REVIEWED_INSTANCE_Q),
            )
            .order_by("category__name", "language")
        )
        instances = {
            (row["category__name"], row["language"]): (row["all"], row["approved"], row["taken"])
            for row in rows
        }
        instance_marks = {
            ContentMode.AS_PUBLISHED: _id_range(rows, "", "all"),
            ContentMode.REVIEWED: _id_range(rows, "taken_", "taken"),
        }
        tuples = dict.fromkeys(
            (TupleVerdict.STEREOTYPICAL, TupleVerdict.NOT_VOTED, TupleVerdict.NOT_STEREOTYPICAL),
            0,
        )
        for votes in dataset.tuples.values_list("votes", flat=True):
            tuples[tuple_verdict(votes)] += 1
        sentences = ContextSentence.objects.filter(context_set__dataset=dataset).aggregate(
            all=Count("id"),
            **{state: Count("id", filter=q) for state, q in SENTENCE_STATES.items()},
        )
        passed = sentence_passed("sentences__")
        sets = dataset.context_sets.annotate(
            s=Count(
                "sentences", filter=passed & Q(sentences__kind=ContextSentence.Kind.STEREOTYPE)
            ),
            a=Count(
                "sentences", filter=passed & Q(sentences__kind=ContextSentence.Kind.ANTI_STEREOTYPE)
            ),
        ).values_list("s", "a")
        return cls(
            instances=instances,
            instance_marks=instance_marks,
            sentence_pairs=dataset.sentence_pairs.count(),
            tuples=tuples,
            sentences=sentences,
            sets=list(sets),
        )

    def counts(self, content: str) -> dict[str, Any]:
        """What a release in this content mode takes, per kind, and how many rows it leaves
        out for each reason (all zero for as_published):

        {"total": n, "by_category_language": {cat: {lang: n}}, "sentence_pairs": n,
         "tuples": n, "context_sets": n, "context_sentences": n,
         "excluded": {"instances": {...}, "sentence_pairs": {...}, "tuples": {...},
                      "context_sets": {...}, "context_sentences": {...}}}"""
        reviewed = _reviewed(content)
        excluded = {kind: dict.fromkeys(reasons, 0) for kind, reasons in EXCLUSION_REASONS.items()}
        by_category_language: dict[str, dict[str, int]] = defaultdict(dict)
        for (category, language), (everything, approved, taken) in self.instances.items():
            n = taken if reviewed else everything
            if n:
                by_category_language[category][language] = n
            if reviewed:
                excluded["instances"]["template_not_approved"] += everything - approved
                excluded["instances"]["translation_flagged"] += approved - taken
        counts = {
            "total": sum(sum(languages.values()) for languages in by_category_language.values()),
            "by_category_language": dict(by_category_language),
            "sentence_pairs": self.sentence_pairs,
            "tuples": sum(self.tuples.values()),
            "context_sets": len(self.sets),
            "context_sentences": self.sentences["all"],
            "excluded": excluded,
        }
        if not reviewed:
            return counts
        counts["sentence_pairs"] = 0
        excluded["sentence_pairs"]["not_reviewed"] = self.sentence_pairs
        counts["tuples"] = self.tuples[TupleVerdict.STEREOTYPICAL]
        for verdict in (TupleVerdict.NOT_VOTED, TupleVerdict.NOT_STEREOTYPICAL):
            excluded["tuples"][verdict] = self.tuples[verdict]
        for state in SENTENCE_STATES:
            if state != "passed":
                excluded["context_sentences"][state] = self.sentences[state]
        counts["context_sets"] = counts["context_sentences"] = 0
        for stereotypes, anti_stereotypes in self.sets:
            if stereotypes and anti_stereotypes:
                counts["context_sets"] += 1
                counts["context_sentences"] += stereotypes + anti_stereotypes
                continue
            if not stereotypes and not anti_stereotypes:
                reason = "no_sentence_left"
            else:
                reason = "no_stereotype_left" if not stereotypes else "no_anti_stereotype_left"
            excluded["context_sets"][reason] += 1
            excluded["context_sentences"]["set_left_out"] += stereotypes + anti_stereotypes
        return counts


def _id_range(rows: list[dict[str, Any]], prefix: str, count: str) -> dict[str, int | None]:
    lows = [row[f"{prefix}low"] for row in rows if row[f"{prefix}low"] is not None]
    highs = [row[f"{prefix}high"] for row in rows if row[f"{prefix}high"] is not None]
    return {
        "low": min(lows, default=None),
        "high": max(highs, default=None),
        "n": sum(row[count] for row in rows),
    }


def content_facts(*, dataset: Dataset) -> _ReviewFacts:
    """The dataset's rows counted by review state, read once: `.counts(content)` is what a
    release in that mode records, `.instance_marks[content]` the id range and count of the instances
    that mode takes (the release fingerprint's)."""
    return _ReviewFacts.read(dataset)


def content_preview(*, dataset: Dataset) -> dict[str, dict[str, Any]]:
    """Both modes' counts, for the release form: what each choice would contain now (the
    dataset is read once)."""
    facts = _ReviewFacts.read(dataset)
    return {mode: facts.counts(mode) for mode in ContentMode.values}


def exclusion_lines(counts: dict[str, Any]) -> list[dict[str, Any]]:
    """The non-zero exclusions of a release's counts, worded for a page: [{"kind": label,
    "n": n, "reason": wording}]. Releases made before exclusions were recorded have none."""
    lines = []
    for kind, reasons in (counts.get("excluded") or {}).items():
        for reason, n in reasons.items():
            if n:
                lines.append(
                    {
                        "kind": KIND_LABELS.get(kind, kind),
                        "n": n,
                        "reason": EXCLUSION_REASONS.get(kind, {}).get(reason, reason),
                    }
                )
    return lines
