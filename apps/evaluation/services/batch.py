""" "Evaluate every registered model on this release": one action, one BBQ-style run per model,
each made and queued by `services.runs.run_create` (so each is checked exactly as a run started
on its own).

What is refused for all, and what for one model:

* A model that cannot be scored with (a masked LM or encoder, a missing weights directory, an
  endpoint host not allowed: `runs.model_check`) is skipped with its reason; so is a model that
  already has a queued or running run of this release in this setting (a second click).
* What every run would be refused for (a release without disambiguated items, no prompt template
  for a language, shots or instruction language not allowed) is refused once, before anything is
  written: the first model's `run_create` raises it, and then nothing has been created. A refusal
  that comes later can only concern that model (the release and the setting passed for an
  earlier one), so that model is skipped with it and the others are made.
* Each run commits (and is queued) on its own, so a broker that cannot be reached fails the run
  it was queuing and stops the batch there (what was made before is listed, the rest skipped
  with the reason); nothing is left queued that was never sent.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from apps.core.errors import BrokerUnavailable, KasautiError
from apps.core.models import Job
from apps.releases.models import Release

from ..models import EvaluationRun, InstructionLanguage, ModelEntry, RunKind
from .lifecycle import EvaluationInputError
from .runs import model_check, run_create

# A run of the same release and setting still waiting or working: evaluating again would
# score every item twice.
_IN_PROGRESS = (Job.Status.QUEUED, Job.Status.RUNNING)


@dataclass
class EvaluateAllOutcome:
    release: Release
    shots: int
    instruction_language: str
    created: list[EvaluationRun] = field(default_factory=list)
    # (model, why it was not evaluated)
    skipped: list[tuple[ModelEntry, str]] = field(default_factory=list)


def model_eligibility_list() -> list[tuple[ModelEntry, str | None]]:
    """Every registered model with the reason it cannot be evaluated now (None: it can)."""
    eligible = []
    for model in ModelEntry.objects.order_by("name"):
        try:
            model_check(model=model)
        except EvaluationInputError as exc:
            eligible.append((model, str(exc)))
        else:
            eligible.append((model, None))
    return eligible


def _run_in_progress(
    *, model: ModelEntry, release: Release, shots: int, instruction_language: str
) -> EvaluationRun | None:
    return (
        EvaluationRun.objects.filter(
            kind=RunKind.BBQ_MC,
            model=model,
            release=release,
            shots=shots,
            instruction_language=instruction_language,
            job__status__in=_IN_PROGRESS,
        )
        .order_by("-id")
        .first()
    )


def release_evaluate_all(
    *,
    release: Release,
    shots: int = 0,
    instruction_language: str = InstructionLanguage.ENGLISH,
    created_by=None,
) -> EvaluateAllOutcome:
    """One multiple-choice run per registered model that can be evaluated (see the module
    docstring for what is refused and what skipped). Raises EvaluationInputError, with nothing
    created, when no run can be made at all."""
    outcome = EvaluateAllOutcome(
        release=release, shots=shots, instruction_language=instruction_language
    )
    candidates = []
    for model, problem in model_eligibility_list():
        if problem:
            outcome.skipped.append((model, problem))
            continue
        running = _run_in_progress(
            model=model, release=release, shots=shots, instruction_language=instruction_language
        )
        if running is not None:
            outcome.skipped.append(
                (model, f"run {running.pk} of this release and setting is still {running.status}")
            )
            continue
        candidates.append(model)
    if not candidates:
        reasons = "; ".join(f"{model.name}: {why}" for model, why in outcome.skipped)
        raise EvaluationInputError(
            "no registered model can be evaluated on this release"
            + (f" ({reasons})" if reasons else ": register one on the models page")
        )
    for index, model in enumerate(candidates):
        try:
            run = run_create(
                model=model,
                release=release,
                shots=shots,
                instruction_language=instruction_language,
                created_by=created_by,
            )
        except BrokerUnavailable as exc:
            if not outcome.created:
                raise
            # This model's run exists, failed with the reason; the rest were not attempted.
            failed = EvaluationRun.objects.filter(job_id=exc.job_id).first()
            if failed is not None:
                outcome.created.append(failed)
            outcome.skipped.extend((later, str(exc)) for later in candidates[index + 1 :])
            break
        except KasautiError as exc:
            if not outcome.created:
                # The release or the setting: every model would be refused for it.
                raise EvaluationInputError(f"nothing was started: {exc}") from exc
            outcome.skipped.append((model, str(exc)))
        else:
            outcome.created.append(run)
    return outcome
