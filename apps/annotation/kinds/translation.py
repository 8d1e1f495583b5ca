"""Translation adequacy and fluency (BharatBBQ Appendix A.1, Table 3): annotators score a
translated context or question 1-5 for each, with a one-sentence justification. Two kinds:
scoring samples the strings that passed the similarity threshold (stratified by category),
calibration samples every translated string across the similarity range (to choose that
threshold). Both feed the calibration report; scoring campaigns make Table 3."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from apps.catalog.models import Dataset, Instance
from apps.core.errors import KasautiError
from apps.translation.models import TranslatedString
from apps.translation.pipeline import text_hash
from apps.translation.selectors import string_verdicts

from ..models import CampaignItem, CampaignKind, ItemStatus
from ..rules import SCORES, Outcome, score_answer, text_answer
from ..sampling import range_sample, stratified_sample
from . import Kind

ADEQUACY_SCALE = {
    5: "All meaning preserved",
    4: "Most of the meaning preserved",
    3: "Much of the meaning preserved",
    2: "Little of the meaning preserved",
    1: "None of the meaning preserved",
}
FLUENCY_SCALE = {
    5: "Flawless language (native, natural, and error-free)",
    4: "Good language (minor issues but understandable and fluent)",
    3: "Non-native (awkward or foreign-sounding but understandable)",
    2: "Disfluent (ungrammatical or poorly formed)",
    1: "Incomprehensible",
}


class TranslationScoring(Kind):
    name = CampaignKind.TRANSLATION_SCORING.value
    label = CampaignKind.TRANSLATION_SCORING.label
    target = "translated_string"
    fields = {"adequacy": (SCORES, True), "fluency": (SCORES, True)}
    field_labels = {"adequacy": "Adequacy", "fluency": "Fluency"}
    form_fields = ("adequacy", "adequacy_reason", "fluency", "fluency_reason")
    work_template = "annotation/kinds/translation.html"
    guidelines_template = "annotation/kinds/translation_guidelines.html"
    keys_hint = "<kbd>1</kbd>–<kbd>5</kbd> score"
    feeds_calibration = True
    feeds_table3 = True
    # Scoring samples passed strings; calibration every translated one across the range.
    calibration = False

    def clean(self, answers: dict[str, Any]) -> dict[str, Any]:
        return {
            "adequacy": score_answer(answers, "adequacy"),
            "adequacy_reason": text_answer(answers, "adequacy_reason", required=True),
            "fluency": score_answer(answers, "fluency"),
            "fluency_reason": text_answer(answers, "fluency_reason", required=True),
        }

    def work_context(self) -> dict[str, Any]:
        return {
            "adequacy_scale": sorted(ADEQUACY_SCALE.items(), reverse=True),
            "fluency_scale": sorted(FLUENCY_SCALE.items(), reverse=True),
        }

    def outcome(self, *, item: CampaignItem, answers: Sequence[dict[str, Any]]) -> Outcome:
        return Outcome(
            ItemStatus.COMPLETE,
            {
                "adequacy": [a["adequacy"] for a in answers],
                "fluency": [a["fluency"] for a in answers],
                "adequacy_mean": statistics.fmean(a["adequacy"] for a in answers),
                "fluency_mean": statistics.fmean(a["fluency"] for a in answers),
            },
        )

    def targets(self, *, dataset, language, sample_size, seed, tier):
        if not language:
            raise KasautiError("language: required for translation scoring")
        return _translation_targets(
            dataset, language, per_segment=sample_size, seed=seed, calibration=self.calibration
        )


class Calibration(TranslationScoring):
    name = CampaignKind.CALIBRATION.value
    label = CampaignKind.CALIBRATION.label
    feeds_table3 = False
    calibration = True


def _translation_candidates(
    dataset: Dataset, language: str, *, passed_only: bool
) -> list[tuple[str, str, int]]:
    """(segment, source text, category id) for the dataset's English contexts and questions.
    Contexts are the ambiguous contexts: they are translated whole (a disambiguated context is
    translated as its ambiguous part plus the rest, and the rest alone is not a context)."""
    rows = (
        Instance.objects.filter(dataset=dataset, language="en", retired_at__isnull=True)
        .values_list("context_condition", "context", "question", "category_id")
        .order_by()
        .distinct()
    )
    seen: dict[tuple[str, str], int] = {}
    for condition, context, question, category_id in rows.iterator(chunk_size=5000):
        if condition == "ambig":
            seen.setdefault(("ctx", context), category_id)
        seen.setdefault(("qn", question), category_id)
    return [(segment, text, category) for (segment, text), category in seen.items()]


def _translation_targets(
    dataset: Dataset, language: str, *, per_segment: int, seed: int, calibration: bool
) -> tuple[list[dict[str, Any]], str]:
    """The sampled strings, and why there are none when there are none. Scoring samples the
    strings that passed: by the verdict of the newest finished job of the dataset that used
    the string (its own threshold), else the one stored with the string by the job that
    produced it. Calibration samples every translated string across the similarity range."""
    candidates = _translation_candidates(dataset, language, passed_only=not calibration)
    hashes = {text_hash(text) for _, text, _ in candidates}
    rows: list[TranslatedString] = []
    qs = TranslatedString.objects.filter(language=language).order_by("id")
    hash_list = sorted(hashes)
    for start in range(0, len(hash_list), 5000):
        rows.extend(qs.filter(text_hash__in=hash_list[start : start + 5000]))
    verdicts = (
        {}
        if calibration
        else string_verdicts(dataset_id=dataset.pk, string_ids=[row.pk for row in rows])
    )

    def passes(row: TranslatedString) -> bool:
        if row.pk in verdicts:
            return row.similarity >= verdicts[row.pk][1]
        return row.passed

    strings: dict[str, TranslatedString] = {}
    translated: set[str] = set()
    for row in rows:
        translated.add(row.text_hash)
        if calibration or passes(row):
            strings[row.text_hash] = row  # the newest models' row wins (ordered by id)
    targets = []
    for segment in ("ctx", "qn"):
        pool = [
            (category, strings[text_hash(text)])
            for seg, text, category in candidates
            if seg == segment and text_hash(text) in strings
        ]
        pool.sort(key=lambda row: row[1].pk)
        if calibration:
            # Across the range the similarities span, not in the pool's own proportions.
            chosen = range_sample(pool, key=lambda row: row[1].similarity, n=per_segment, seed=seed)
        else:
            chosen = stratified_sample(pool, n=per_segment, seed=seed)
        for category, string in sorted(chosen, key=lambda row: row[1].pk):
            targets.append(
                {
                    "translated_string": string,
                    "category_id": category,
                    "segment": segment,
                    "language": language,
                }
            )
    if targets:
        return targets, ""
    if not translated:
        return [], (
            f"no translation into {language} of its {len(hashes):,} English contexts and "
            "questions yet: run a translation job first"
        )
    judged = sorted({verdicts[row.pk] for row in rows if row.pk in verdicts}, reverse=True)
    by = "; ".join(f"job #{job_id} at threshold {threshold:g}" for job_id, threshold in judged)
    return [], (
        f"the translations into {language} passed 0 of {len(translated):,} contexts and "
        f"questions (judged by {by or 'the jobs that produced them'}) and a scoring campaign "
        "samples passed strings only: translate again at a lower threshold, or start a "
        "calibration campaign, which samples across the whole similarity range"
    )


TRANSLATION_SCORING = TranslationScoring()
CALIBRATION = Calibration()
