"""Suggestions: for each answer waiting in a survey's coding queue, the closest concepts of the
survey's dataset by embedding similarity, with the configured sentence-transformers model (the
one translation filtering uses: apps.translation.engines.embedder()).

What is embedded (decided here, documented in docs/surveys/coding.md):
* an answer: what the coder reads (Answer.display_text: the free text, or "group: attribute"
  for a tuple), preceded by the picked group labels in the answer's language when the text
  does not already name a group typed in ("मुसलमान: ..."), since a respondent who picked
  "Muslims" and typed "they are ..." means the group;
* a concept: its statement, then its target groups and attribute in brackets when there are
  any ("Andalusians are lazy (Andalusians; lazy)"), so concepts worded alike but aimed at
  different groups separate.

Vectors are L2-normalised, so cosine is a matrix product; the top k per answer come from
numpy's argpartition, then a sort of those k. Each text is embedded once per run (identical
texts share one vector); concepts are embedded once, not per answer batch.

Idempotent and resumable: suggestions of a batch of answers are replaced (deleted and
written) in one transaction per batch, so a run that crashed half-way and runs again
recomputes everything cleanly; nothing else is written.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from django.db import connection, transaction

from apps.catalog.models import StereotypeConcept
from apps.core.errors import KasautiError
from apps.core.models import Job
from worker.engines.errors import ModelConfigurationError

from ..models import Answer, AnswerSuggestion, Survey
from ..questionnaire import Questionnaire

TOP_K = 5
# Answers whose suggestions are written per transaction (and per progress report).
WRITE_BATCH = 2000
# Rows of the similarity matrix computed at once (answers x concepts float32).
SCORE_BATCH = 4096

Embed = Callable[[Sequence[str]], np.ndarray]


def concept_embedding_text(*, concept: StereotypeConcept) -> str:
    statement = (concept.statement or "").strip()
    extra = "; ".join(
        part
        for part in (", ".join(g for g in concept.target_groups or [] if g), concept.attribute)
        if part
    )
    return f"{statement} ({extra})" if extra else statement


def answer_embedding_text(*, answer: Answer, questionnaire: Questionnaire | None = None) -> str:
    text = answer.display_text.strip()
    if answer.group_keys and not answer.group_text and questionnaire is not None:
        labels = [questionnaire.group_label(answer.category_key, key) for key in answer.group_keys]
        labels = [label for label in labels if label and label not in text]
        if labels:
            return f"{', '.join(labels)}: {text}"
    return text


def suggestions_top_k(
    *, answers: np.ndarray, concepts: np.ndarray, k: int = TOP_K
) -> tuple[np.ndarray, np.ndarray]:
    """(indices, scores), each (len(answers), min(k, len(concepts))), best first, for unit
    vectors: cosine = dot product."""
    n, m = len(answers), len(concepts)
    k = min(k, m)
    indices = np.zeros((n, k), dtype=np.int64)
    scores = np.zeros((n, k), dtype=np.float32)
    if not n or not k:
        return indices, scores
    for start in range(0, n, SCORE_BATCH):
        sims = answers[start : start + SCORE_BATCH] @ concepts.T
        if k < m:
            part = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        else:
            part = np.broadcast_to(np.arange(m), (len(sims), m))
        part_scores = np.take_along_axis(sims, part, axis=1)
        order = np.argsort(-part_scores, axis=1, kind="stable")
        indices[start : start + len(sims)] = np.take_along_axis(part, order, axis=1)
        scores[start : start + len(sims)] = np.take_along_axis(part_scores, order, axis=1)
    np.clip(scores, -1.0, 1.0, out=scores)
    return indices, scores


def _embed_unique(embed: Embed, texts: Sequence[str]) -> np.ndarray:
    """Embed each distinct text once; rows in `texts` order."""
    unique = list(dict.fromkeys(texts))
    vectors = embed(unique)
    if len(unique) == len(texts):
        return vectors
    position = {text: i for i, text in enumerate(unique)}
    return vectors[[position[text] for text in texts]]


def configured_embed() -> Embed:
    """The configured embedder's encode; a missing or broken model is the project's clear
    ModelConfigurationError (path and README section), turned into a KasautiError so the job
    fails with it at once instead of retrying."""
    from apps.translation import engines

    try:
        embedder = engines.embedder()
    except ModelConfigurationError as exc:
        raise KasautiError(f"cannot compute suggestions: {exc}") from exc

    def embed(texts: Sequence[str]) -> np.ndarray:
        import torch

        with torch.inference_mode():
            return embedder.encode(list(texts))

    return embed


def _write(rows: list[tuple[int, int, int, float]], answer_ids: list[int]) -> None:
    with transaction.atomic():
        AnswerSuggestion.objects.filter(answer_id__in=answer_ids).delete()
        if not rows:
            return
        if connection.vendor == "postgresql":
            table = AnswerSuggestion._meta.db_table
            with connection.cursor() as cursor:
                raw = cursor.cursor  # psycopg 3 under Django's wrapper
                columns = "answer_id, concept_id, rank, score"
                with raw.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
        else:  # pragma: no cover - the project runs on PostgreSQL
            AnswerSuggestion.objects.bulk_create(
                AnswerSuggestion(answer_id=a, concept_id=c, rank=r, score=s) for a, c, r, s in rows
            )


def suggestions_compute(
    *,
    survey: Survey,
    k: int = TOP_K,
    embed: Embed | None = None,
    progress: Callable[..., None] | None = None,
    answer_ids: Sequence[int] | None = None,
) -> dict[str, Any]:
    """Compute and store the top-k concepts for every pending answer of `survey` (or only
    `answer_ids`, still pending ones) against every concept of the survey's dataset. Returns
    counts and timings (seconds) for the job page and the benchmark."""
    timings: dict[str, float] = {}
    started = time.perf_counter()
    answers_qs = Answer.objects.filter(survey=survey, status=Answer.Status.PENDING)
    if answer_ids is not None:
        answers_qs = answers_qs.filter(pk__in=list(answer_ids))
    answers = list(
        answers_qs.only(
            "id",
            "version_id",
            "category_key",
            "group_keys",
            "group_text",
            "text",
            "attribute",
            "language",
        ).order_by("id")
    )
    concepts = list(
        StereotypeConcept.objects.filter(dataset=survey.dataset_id)
        .only("id", "statement", "target_groups", "attribute")
        .order_by("id")
    )
    versions = {
        v.pk: v.content for v in survey.versions.filter(pk__in={a.version_id for a in answers})
    }
    questionnaires: dict[tuple[int, str], Questionnaire] = {}

    def questionnaire(answer: Answer) -> Questionnaire:
        key = (answer.version_id, answer.language)
        if key not in questionnaires:
            questionnaires[key] = Questionnaire(versions[answer.version_id], answer.language)
        return questionnaires[key]

    answer_texts = [
        answer_embedding_text(answer=a, questionnaire=questionnaire(a)) for a in answers
    ]
    concept_texts = [concept_embedding_text(concept=c) for c in concepts]
    timings["load"] = time.perf_counter() - started
    total = len(answers)
    if progress:
        progress(0, total)
    if not answers:
        return {
            "survey": survey.slug,
            "answers": 0,
            "concepts": len(concepts),
            "suggestions": 0,
            "timings": timings,
        }
    if not concepts:
        # Nothing to suggest: clear stale suggestions of these answers, write none.
        for start in range(0, total, WRITE_BATCH):
            _write([], [a.pk for a in answers[start : start + WRITE_BATCH]])
        if progress:
            progress(total, total)
        return {
            "survey": survey.slug,
            "answers": total,
            "concepts": 0,
            "suggestions": 0,
            "timings": timings,
        }
    embed = embed or configured_embed()
    mark = time.perf_counter()
    # One encode call for every text: sentence-transformers sorts a call's texts by length
    # (little padding), and a text that is both an answer and a concept is embedded once.
    vectors = _embed_unique(embed, [*concept_texts, *answer_texts])
    concept_vectors, answer_vectors = vectors[: len(concepts)], vectors[len(concepts) :]
    timings["embed"] = time.perf_counter() - mark
    mark = time.perf_counter()
    indices, scores = suggestions_top_k(answers=answer_vectors, concepts=concept_vectors, k=k)
    timings["top_k"] = time.perf_counter() - mark
    mark = time.perf_counter()
    concept_ids = np.array([c.pk for c in concepts], dtype=np.int64)
    written = 0
    for start in range(0, total, WRITE_BATCH):
        batch = answers[start : start + WRITE_BATCH]
        rows = []
        for offset, answer in enumerate(batch):
            row = start + offset
            for rank, (index, score) in enumerate(
                zip(concept_ids[indices[row]].tolist(), scores[row].tolist(), strict=True),
                start=1,
            ):
                rows.append((answer.pk, index, rank, round(score, 4)))
        _write(rows, [a.pk for a in batch])
        written += len(rows)
        if progress:
            progress(start + len(batch), total)
    timings["write"] = time.perf_counter() - mark
    timings["total"] = time.perf_counter() - started
    return {
        "survey": survey.slug,
        "answers": total,
        "concepts": len(concepts),
        "suggestions": written,
        "timings": {key: round(value, 3) for key, value in timings.items()},
    }


def suggestions_compute_async(*, survey: Survey, requested_by=None) -> Job:
    """Queue the suggestion job for `survey` (one core Job); a job for the survey that is
    still queued or running is returned instead of a second one."""
    from apps.core.services import job_create, job_dispatch

    from ..jobs import SUGGESTIONS

    with transaction.atomic():
        running = (
            Job.objects.filter(
                kind=SUGGESTIONS,
                params__survey_id=survey.pk,
                status__in=[Job.Status.QUEUED, Job.Status.RUNNING],
            )
            .order_by("-id")
            .first()
        )
        if running is not None:
            return running
        job = job_create(
            kind=SUGGESTIONS,
            title=f"Suggest concepts for survey {survey.slug}",
            params={"survey_id": survey.pk, "survey_slug": survey.slug},
            unit="answers",
            created_by=requested_by,
        )
        return job_dispatch(job=job)
