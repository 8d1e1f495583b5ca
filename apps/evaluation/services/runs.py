"""BBQ-style multiple-choice runs: log-likelihood scoring of each option (BharatBBQ App. C).

`run_create` checks everything that can be checked before a GPU is busy (the model directory
exists, the release has disambiguated contexts, a prompt template exists for every language)
and queues an `evaluate` job; `run_execute` is that job's work (run through the one lifecycle,
services/lifecycle.py): it renders each item's prompt from the template, scores the three
options as continuations with the local causal LM (worker.engines.lm_scorer, the shared prompt
computed once per item) or an OpenAI-compatible endpoint (worker.engines.endpoint), writes one
`Prediction` per item batch by batch, and then the metrics. Writing is idempotent: a resumed
or redelivered job scores only the items that have no prediction yet. Until the last item is
scored the run is `running`, then `partial` if the job stops (cancelled, failed): its numbers
are never shown as those of the release.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction

from apps.catalog.models import ContextCondition, Dataset, Instance
from apps.releases.models import Release
from worker.engines.errors import ModelConfigurationError

from ..models import (
    EvaluationRun,
    InstructionLanguage,
    ModelEntry,
    ModelKind,
    Prediction,
    PromptTemplate,
    RunKind,
)
from ..prompt_rules import option_continuations, shot_pool, shots_for
from ..registry import evaluation_kind_get
from .lifecycle import EvaluationInputError, evaluation_run_create
from .metrics import run_metrics
from .prompts import prompt_render, prompt_template_check, templates_for

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from worker.engines.endpoint import EndpointScorer
    from worker.engines.lm_scorer import CausalLMScorer

Progress = Callable[..., None]


def run_items(*, dataset: Dataset, release: Release | None) -> QuerySet[Instance]:
    """The instances a run scores: the release's, or the dataset's live ones, in id order."""
    if release is not None:
        items = Instance.objects.filter(memberships__release=release)
    else:
        items = Instance.objects.filter(dataset=dataset, retired_at__isnull=True)
    return items.order_by("id")


# Two-shot examples are drawn from the first items of the run (in id order): the same pool for a
# run and for its lm-evaluation-harness export (services/exports.py), so both score one text.
SHOT_POOL_ITEMS = 400


def run_shot_pool(*, dataset: Dataset, release: Release | None, shots: int) -> dict[str, list]:
    """The solved examples a `shots`-shot run (or export) draws from, per language."""
    if not shots:
        return {}
    return shot_pool(run_items(dataset=dataset, release=release)[:SHOT_POOL_ITEMS])


def item_prompt(
    *, instance: Instance, templates: dict[str, PromptTemplate], pool: dict[str, list]
) -> tuple[str, list[str], tuple]:
    """(prompt, option continuations, prefix group) of one item. Items of one group share the
    prompt up to their own context (the instruction and the same solved examples), which the
    scorer computes once (worker.engines.lm_scorer, shared-prefix scoring)."""
    template = templates.get(instance.language) or next(iter(templates.values()))
    shots = shots_for(instance, pool, template.shots)
    prompt = prompt_render(
        template=template,
        context=instance.context,
        question=instance.question,
        answers=instance.answers,
        shots=shots,
    )
    group = (template.name, template.instruction_language, instance.language, *shots)
    return prompt, option_continuations(instance.answers), group


def model_check(*, model: ModelEntry) -> None:
    """A model that cannot be scored with fails here, with the path or URL it was given."""
    if model.kind not in evaluation_kind_get(RunKind.BBQ_MC).model_kinds:
        raise EvaluationInputError(
            f"model {model.name!r} is a {model.get_kind_display().lower()}; multiple-choice "
            "runs need a causal language model or a completions endpoint"
        )
    problem = model.files_problem()
    if problem:
        raise EvaluationInputError(problem)


def _template_snapshot(template: PromptTemplate) -> dict[str, Any]:
    return {
        "name": template.name,
        "shots": template.shots,
        "instruction_language": template.instruction_language,
        "text": template.text,
        "example_text": template.example_text,
    }


def _resolve_templates(
    *,
    languages: list[str],
    prompt_template: PromptTemplate | None,
    shots: int,
    instruction_language: str,
) -> dict[str, PromptTemplate]:
    if prompt_template is not None:
        if prompt_template.shots != shots:
            raise EvaluationInputError(
                f"prompt template {prompt_template.name!r} is {prompt_template.shots}-shot, "
                f"not {shots}-shot"
            )
        prompt_template_check(template=prompt_template)
        return {language: prompt_template for language in languages}
    return templates_for(
        languages=languages, shots=shots, instruction_language=instruction_language
    )


def run_create(
    *,
    model: ModelEntry,
    release: Release | None = None,
    dataset: Dataset | None = None,
    prompt_template: PromptTemplate | None = None,
    shots: int = 0,
    instruction_language: str = InstructionLanguage.ENGLISH,
    batch_size: int | None = None,
    created_by=None,
) -> EvaluationRun:
    """Check and queue a multiple-choice run of `model` on a release (or a dataset's live
    instances). Every problem is raised here, before anything is written."""
    if release is None and dataset is None:
        raise EvaluationInputError("choose a release (or a dataset) to evaluate on")
    if release is not None and dataset is not None and release.dataset_id != dataset.pk:
        raise EvaluationInputError(f"release {release.pk} is not a release of {dataset.name!r}")
    dataset = dataset or release.dataset
    if shots not in (0, 2):
        raise EvaluationInputError(f"shots must be 0 or 2, not {shots}")
    if instruction_language not in InstructionLanguage.values:
        raise EvaluationInputError(
            f"instruction language must be one of {', '.join(InstructionLanguage.values)}"
        )
    batch_size = batch_size or settings.KASAUTI_EVAL_BATCH_SIZE
    if not 1 <= batch_size <= 1024:
        raise EvaluationInputError("batch size must be between 1 and 1024")
    model_check(model=model)
    where = f"release {release.number} of {dataset.name!r}" if release else repr(dataset.name)
    items = run_items(dataset=dataset, release=release)
    conditions = set(items.values_list("context_condition", flat=True).distinct())
    if not conditions:
        raise EvaluationInputError(f"{where} has no instances to evaluate")
    if ContextCondition.DISAMBIGUATED not in conditions:
        raise EvaluationInputError(
            f"{where} has no disambiguated contexts (only ambiguous ones): Acc_D, BS_D, SBS_D "
            "and s_DIS would all be undefined; release the dataset with its disambiguated "
            "instances"
        )
    languages = sorted(set(items.values_list("language", flat=True).distinct()))
    templates = _resolve_templates(
        languages=languages,
        prompt_template=prompt_template,
        shots=shots,
        instruction_language=instruction_language,
    )
    return evaluation_run_create(
        kind=RunKind.BBQ_MC,
        dataset=dataset,
        release=release,
        model=model,
        model_label=model.name,
        prompt_template=prompt_template or next(iter(templates.values())),
        shots=shots,
        instruction_language=instruction_language,
        prompt_text={lang: _template_snapshot(t) for lang, t in templates.items()},
        params={
            "batch_size": batch_size,
            "languages": languages,
            "scoring": "mean log-probability per token of each option (BharatBBQ App. C)",
        },
        title=f"Evaluate {model.name} on {where} ({shots}-shot)",
        unit="items",
        created_by=created_by,
    )


def scorer_load(*, model: ModelEntry) -> EndpointScorer | CausalLMScorer:
    """The engine for a model entry; a configuration problem is a domain error (no retry)."""
    try:
        if model.kind == ModelKind.ENDPOINT:
            from worker.engines.endpoint import EndpointScorer

            return EndpointScorer(
                model.endpoint_url,
                model=model.endpoint_model or model.name,
                timeout=settings.KASAUTI_EVAL_ENDPOINT_TIMEOUT,
                retries=settings.KASAUTI_EVAL_ENDPOINT_RETRIES,
                concurrency=settings.KASAUTI_EVAL_ENDPOINT_CONCURRENCY,
                prompts_per_request=settings.KASAUTI_EVAL_ENDPOINT_BATCH,
                allowed_hosts=settings.KASAUTI_EVAL_ENDPOINT_HOSTS,
            )
        from worker.engines.lm_scorer import load_causal_lm

        path = model.resolved_path()
        key = (str(path), model.device, model.dtype, _directory_stamp(path))
        if key not in _LOADED:
            _LOADED.clear()  # one model at a time: a GPU holds one
            _LOADED[key] = load_causal_lm(path, device=model.device, dtype=model.dtype)
        return _LOADED[key]
    except ModelConfigurationError as exc:
        raise EvaluationInputError(str(exc)) from exc


# The causal LM a worker process loaded last, kept for the next part or run with the same
# model (loading a real model takes seconds to minutes; a run split into parts loads it per
# part otherwise). Keyed by the directory's files and their times: changed weights load again.
_LOADED: dict[tuple, CausalLMScorer] = {}


def _directory_stamp(path) -> tuple:
    try:
        return tuple(sorted((f.name, f.stat().st_mtime_ns) for f in path.iterdir()))
    except OSError:
        return ()


def _option_lists(scores) -> tuple[list[float], list[float], list[int]]:
    """(sum, mean, n_tokens) per option from the engine's OptionScores."""
    options = getattr(scores, "options", scores)
    if hasattr(options, "sum_logprob") and isinstance(options.sum_logprob, list | tuple):
        return (
            [float(v) for v in options.sum_logprob],
            [float(v) for v in options.mean_logprob],
            [int(v) for v in options.n_tokens],
        )
    return (
        [float(o.sum_logprob) for o in options],
        [float(o.mean_logprob) for o in options],
        [int(o.n_tokens) for o in options],
    )


def _templates_of(run: EvaluationRun) -> dict[str, PromptTemplate]:
    """The templates as the run recorded them (editing a template later changes nothing)."""
    return {
        language: PromptTemplate(
            name=snap["name"],
            shots=snap["shots"],
            instruction_language=snap["instruction_language"],
            text=snap["text"],
            example_text=snap["example_text"],
        )
        for language, snap in run.prompt_text.items()
    }


def _score_batch(*, run, scorer, instances, templates, pool, batch_size) -> list[Prediction]:
    prompts, groups = [], []
    for instance in instances:
        prompt, options, group = item_prompt(instance=instance, templates=templates, pool=pool)
        prompts.append((prompt, options))
        groups.append(group)
    if not run.prompt_example and prompts:
        run.prompt_example = prompts[0][0]
        EvaluationRun.objects.filter(pk=run.pk).update(prompt_example=run.prompt_example)
    try:
        scored = scorer.score_options(prompts, batch_size=batch_size, groups=groups)
    except ModelConfigurationError as exc:
        raise EvaluationInputError(str(exc)) from exc
    except (TimeoutError, ConnectionError, OSError) as exc:
        raise EvaluationInputError(
            f"the model {run.model_label!r} did not answer: {type(exc).__name__}: {exc}"
        ) from exc
    rows = []
    for instance, scores in zip(instances, scored, strict=True):
        sums, means, counts = _option_lists(scores)
        rows.append(
            Prediction(
                run=run,
                instance=instance,
                item_key=instance.source_id or str(instance.example_id),
                chosen=max(range(len(means)), key=means.__getitem__),
                sum_logprobs=sums,
                mean_logprobs=means,
                n_tokens=counts,
            )
        )
    return rows


# Items handed to the scorer at once: a multiple of the batch size, so that the prompt prefix a
# group of items shares (instruction, solved examples) is computed once per window, not once
# per batch; progress and cancellation are seen after each window.
WINDOW_BATCHES = 16


def run_items_score(*, run: EvaluationRun, ids: list[int], progress: Callable[[int], None]) -> int:
    """Score the items `ids` of `run` that have no prediction yet and store their predictions
    window by window (idempotent: a prediction is keyed by run and instance, and a row another
    worker wrote meanwhile is kept). `progress(n)` is called with the items scored so far.
    Returns how many items this call scored."""
    done = set(
        Prediction.objects.filter(run=run, instance_id__in=ids).values_list(
            "instance_id", flat=True
        )
    )
    todo = [pk for pk in ids if pk not in done]
    if not todo:
        return 0
    templates = _templates_of(run)
    pool = run_shot_pool(dataset=run.dataset, release=run.release, shots=run.shots)
    batch_size = int(run.params.get("batch_size") or settings.KASAUTI_EVAL_BATCH_SIZE)
    scorer = scorer_load(model=run.model)
    EvaluationRun.objects.filter(pk=run.pk).update(model_info=scorer.model_info())
    window = batch_size * WINDOW_BATCHES
    scored = 0
    for start in range(0, len(todo), window):
        chunk = todo[start : start + window]
        by_id = Instance.objects.in_bulk(chunk)
        rows = _score_batch(
            run=run,
            scorer=scorer,
            instances=[by_id[pk] for pk in chunk],
            templates=templates,
            pool=pool,
            batch_size=batch_size,
        )
        with transaction.atomic():
            Prediction.objects.bulk_create(rows, ignore_conflicts=True)
        scored += len(chunk)
        progress(scored)
    return scored


def run_scored_count(*, run: EvaluationRun) -> int:
    """How many of the run's items have a prediction (what its progress counts)."""
    items = run_items(dataset=run.dataset, release=run.release)
    return Prediction.objects.filter(run=run, instance__in=items.values("id")).count()


def run_result(*, run: EvaluationRun) -> dict[str, Any]:
    """Compute and store the run's metrics; the job's result (what its summary lines show)."""
    run.refresh_from_db()
    results = run_metrics(run=run)
    return {
        "run_id": run.pk,
        "predictions": results.get("predictions", 0),
        "overall": results.get("overall", {}),
    }


def run_execute(*, run: EvaluationRun, progress: Progress) -> dict[str, Any] | None:
    """The `evaluate` job's work (see the module docstring). A run of at most
    KASAUTI_EVAL_CHUNK_ITEMS items left to score is scored here and returns the job's result;
    a larger one is split into parts, one child job each (services/parts.py), and returns None:
    the job stays running until the last part lands and computes the metrics."""
    from .parts import run_parts_dispatch

    if run.model is None:
        raise EvaluationInputError(f"run {run.pk} has no model to score with")
    model_check(model=run.model)
    ids = list(run_items(dataset=run.dataset, release=run.release).values_list("id", flat=True))
    total = len(ids)
    already = run_scored_count(run=run)
    progress(already, total)
    todo = total - already
    if todo > settings.KASAUTI_EVAL_CHUNK_ITEMS or (todo and run.job.children.exists()):
        run_parts_dispatch(run=run, ids=ids)
        return None
    run_items_score(run=run, ids=ids, progress=lambda n: progress(already + n, total))
    return run_result(run=run)
