"""Metrics of a BBQ-style run, recomputed from its stored predictions.

The formulas are in apps.evaluation.metrics.bbq (plain Python: BharatBBQ eqs. 1-6, BBQ's s_DIS
and s_AMB, the difference-of-accuracies bias score); this module only turns stored rows into
`BBQItem`s and groups them: overall, by category, by language, by category x language, by
category x language x context condition, and by noun type (BharatBBQ §6.3). Every group carries
its counts (n_amb, n_dis); an undefined figure is None with its reason, never a fake 0."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db import transaction

from apps.catalog.models import ContextCondition, NounForm, Pairing

from ..models import EvaluationRun, Prediction

if TYPE_CHECKING:
    from ..metrics.bbq import BBQItem

# Kasauti's option roles (apps.catalog.models.OptionRole) in the metric module's terms.
ROLE = {"stereotyped": "target", "non_stereotyped": "non_target", "unknown": "unknown"}


def noun_type(*, noun_form: str, proper_noun: bool) -> str:
    if noun_form == NounForm.PROPER_NAME:
        return "proper"
    if noun_form in (NounForm.COMMON_NOUN, NounForm.GROUP_LABEL):
        return "common"
    return "proper" if proper_noun else "common"


def bbq_item(
    *,
    category: str,
    language: str,
    context_condition: str,
    question_polarity: str,
    noun_form: str,
    proper_noun: bool,
    label: int,
    option_roles: list[str],
    pairing: str,
    prediction: int | None,
) -> BBQItem:
    """One stored instance (its field values) and a prediction as the metric module's item.

    A disambiguated item carries the pairing its benchmark states (BharatBBQ's Pairing, EsBBQ's
    question_type, derived from the gold answer for BBQ): the benchmark's own code scores NP and
    NNP by that field, even where it disagrees with the roles (a `likely-mislabel` finding)."""
    from ..metrics.bbq import NNP, NP, BBQItem

    stated = None
    if context_condition == ContextCondition.DISAMBIGUATED:
        stated = NP if pairing == Pairing.STEREOTYPICAL else NNP
    return BBQItem(
        category=category,
        language=language,
        context_condition=context_condition,
        question_polarity=question_polarity,
        noun_type=noun_type(noun_form=noun_form, proper_noun=proper_noun),
        label=label,
        roles=tuple(ROLE.get(role, role) for role in option_roles),
        prediction=prediction,
        pairing=stated,
    )


def run_bbq_items(*, run: EvaluationRun) -> list:
    rows = (
        # An imported answer that matched no option has no choice (prediction None): the metric
        # module counts it as n_unanswered and leaves it out of every denominator.
        Prediction.objects.filter(run=run)
        .order_by("id")
        .values_list(
            "chosen",
            "instance__category__name",
            "instance__language",
            "instance__context_condition",
            "instance__question_polarity",
            "instance__noun_form",
            "instance__proper_noun",
            "instance__label",
            "instance__option_roles",
            "instance__pairing",
        )
        .iterator(chunk_size=5000)
    )
    return [
        bbq_item(
            category=category,
            language=language,
            context_condition=condition,
            question_polarity=polarity,
            noun_form=noun_form,
            proper_noun=proper,
            label=label,
            option_roles=roles,
            pairing=pairing,
            prediction=chosen,
        )
        for (
            chosen,
            category,
            language,
            condition,
            polarity,
            noun_form,
            proper,
            label,
            roles,
            pairing,
        ) in rows
    ]


def run_metrics(*, run: EvaluationRun) -> dict[str, Any]:
    """Recompute a run's metrics from its predictions and store them on the run."""
    from ..metrics.bbq import bbq_results

    results = {**bbq_results(run_bbq_items(run=run)), "predictions": run.predictions.count()}
    with transaction.atomic():
        EvaluationRun.objects.filter(pk=run.pk).update(results=results)
    run.results = results
    return results


def run_metrics_compat(*, run: EvaluationRun, compat: str) -> dict[str, Any]:
    """A run's figures under a named compatibility option, computed, not stored: the run keeps
    the paper's figures. `bharatbbq-main-py`: the rows BharatBBQ's Metrics/main.py main()
    scores (apps.evaluation.metrics.bbq.main_py_rows; predictions in the order imported)."""
    from ..metrics.bbq import MAIN_PY_COMPAT, bbq_results, main_py_rows

    if compat != MAIN_PY_COMPAT:
        raise ValueError(f"unknown compatibility option {compat!r}; known: {MAIN_PY_COMPAT}")
    items = main_py_rows(run_bbq_items(run=run))
    return {**bbq_results(items), "compat": compat, "rows_scored": len(items)}
