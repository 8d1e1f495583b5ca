"""CrowS-Pairs bias percentage runs (IndiBias §6.1) on a dataset's sentence pairs.

A masked LM scores each sentence by word-masked P(U|M) (``worker.engines.masked_lm``), a causal
LM by its length-normalised log-probability (``CausalPairScorer`` over
``CausalSentenceScorer.sentence_logprob``). One ``ItemResult`` per pair keeps both scores,
their token counts and the difference score (Appendix C); the results are
``apps.evaluation.metrics.crows`` over all pairs: overall / per bias type / per language, mean
and standard deviation over the seeded 80 % samples (Table 2's layout).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from apps.catalog.models import Dataset, SentencePair

from ..metrics.crows import PairScore, crows_scores, difference_score
from ..models import EvaluationRun, ItemResult, ModelEntry, ModelKind, RunKind
from ..registry import evaluation_kind_get
from .lifecycle import (
    EvaluationInputError,
    Progress,
    evaluation_run_create,
    evaluation_run_finish,
    model_kind_require,
)

if TYPE_CHECKING:
    from worker.engines.masked_lm import CausalPairScorer, MaskedLMScorer

SCORING_CHUNK = 64  # pairs per engine call: the progress report and cancel check interval


def crows_run_create(
    *,
    dataset: Dataset,
    model: ModelEntry,
    languages: list[str] | None = None,
    runs: int = 5,
    fraction: float = 0.8,
    seed: int = 0,
    batch_size: int = 32,
    created_by=None,
) -> EvaluationRun:
    model_kind_require(
        model=model, kinds=evaluation_kind_get(RunKind.CROWS).model_kinds, what="A CrowS-Pairs run"
    )
    pairs = _pairs(dataset=dataset, languages=languages)
    if not pairs.exists():
        where = f" in {', '.join(languages)}" if languages else ""
        raise EvaluationInputError(f"Dataset {dataset.name!r} has no sentence pairs{where}")
    if runs < 1 or not 0 < fraction <= 1:
        raise EvaluationInputError("runs must be at least 1 and fraction in (0, 1]")
    params = {
        "languages": languages or [],
        "runs": runs,
        "fraction": fraction,
        "seed": seed,
        "batch_size": batch_size,
        "score": "P(U|M) word-masked" if model.kind == ModelKind.MASKED_LM else "mean log-prob",
    }
    return evaluation_run_create(
        kind=RunKind.CROWS,
        dataset=dataset,
        model=model,
        model_label=model.name,
        params=params,
        title=f"CrowS-Pairs: {model.name} on {dataset.name}",
        unit="pairs",
        created_by=created_by,
    )


def _pairs(*, dataset: Dataset, languages: list[str] | None):
    pairs = SentencePair.objects.filter(dataset=dataset).select_related("category")
    if languages:
        pairs = pairs.filter(language__in=languages)
    return pairs.order_by("language", "external_id")


def crows_scorer_load(*, model: ModelEntry, batch_size: int) -> MaskedLMScorer | CausalPairScorer:
    """The engine for the model entry (a masked LM or a causal LM directory)."""
    if model.kind == ModelKind.MASKED_LM:
        from worker.engines.masked_lm import MaskedLMScorer

        return MaskedLMScorer(
            model.resolved_path(), device=model.device, dtype=model.dtype, batch_size=batch_size
        )
    from worker.engines.masked_lm import CausalPairScorer, CausalSentenceScorer

    scorer = CausalSentenceScorer(
        model.resolved_path(), device=model.device, dtype=model.dtype, batch_size=batch_size
    )
    return CausalPairScorer(scorer)


def crows_run_execute(*, run: EvaluationRun, progress: Progress) -> dict[str, Any]:
    params = run.params
    pairs = list(_pairs(dataset=run.dataset, languages=params.get("languages") or None))
    if not pairs:
        raise EvaluationInputError(f"Dataset {run.dataset.name!r} has no sentence pairs")
    scorer = crows_scorer_load(model=run.model, batch_size=params.get("batch_size", 32))
    progress(0, len(pairs))
    scored: list[PairScore] = []
    items: list[ItemResult] = []
    unscorable = 0
    for start in range(0, len(pairs), SCORING_CHUNK):
        chunk = pairs[start : start + SCORING_CHUNK]
        results = scorer.pair_scores([(p.sent_more, p.sent_less) for p in chunk])
        for pair, (more, less) in zip(chunk, results, strict=True):
            payload = {
                "direction": pair.direction,
                "sent_more": pair.sent_more,
                "sent_less": pair.sent_less,
                "score_more": more.score,
                "score_less": less.score,
                "sum_more": more.sum_logprob,
                "sum_less": less.sum_logprob,
                "n_tokens_more": more.n_tokens,
                "n_tokens_less": less.n_tokens,
            }
            if more.score is None or less.score is None:
                # No shared word: P(U|M) has nothing to score. Counted, left out.
                unscorable += 1
                payload["unscorable"] = True
            else:
                score = PairScore(
                    pair_id=f"{pair.external_id}:{pair.language}",
                    bias_type=pair.category.name,
                    language=pair.language,
                    direction=pair.direction,
                    score_more=more.score,
                    score_less=less.score,
                )
                scored.append(score)
                payload["difference"] = difference_score(score)
                payload["prefers_stereotype"] = payload["difference"] > 0
            items.append(
                ItemResult(
                    item_key=f"{pair.external_id}:{pair.language}",
                    category=pair.category.name,
                    language=pair.language,
                    payload=payload,
                )
            )
        progress(min(start + SCORING_CHUNK, len(pairs)), len(pairs))
    results = crows_scores(
        scored, runs=params["runs"], fraction=params["fraction"], seed=params["seed"]
    )
    results["pairs"] = len(pairs)
    results["unscorable"] = unscorable
    evaluation_run_finish(run=run, results=results, model_info=scorer.model_info(), items=items)
    overall = results["overall"]
    return {
        "run_id": run.pk,
        "pairs": len(pairs),
        "unscorable": unscorable,
        "bias_percentage": overall["mean"],
        "std": overall["std"],
    }
