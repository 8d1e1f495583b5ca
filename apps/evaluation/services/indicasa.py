"""IndiCASA contrastive encoder training on a dataset's context sets (the free-text bias score
of a generative model is services/indicasa_generate.py).

Training (``indicasa_train``): ``worker.engines.contrastive.train_contrastive`` with the chosen
loss, split 80/20 by context (seeded), Δsim on the held-out contexts per epoch
(``metrics.indicasa.delta_sim``), the best epoch's encoder saved under
``KASAUTI_MODEL_ROOT/indicasa/run-<id>/best`` and registered as a sentence-encoder model entry
(so a generation run can classify with it). Then the MLP head (d → d/2 → 1) is trained on the
training contexts' sentences, once on the untrained ("vanilla") encoder and once on the
contrastive one, and scored by macro-F1 on the held-out contexts' sentences, overall and per
category (the paper's Table 4 comparison). One ``ItemResult`` per context: its split and, for
held-out contexts, its own Δsim under the best encoder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings

from apps.catalog.models import ContextSentence, ContextSet, Dataset

from ..metrics.indicasa import delta_sim, macro_f1
from ..models import EvaluationRun, ItemResult, ModelEntry, ModelKind, RunKind
from ..registry import evaluation_kind_get
from .lifecycle import (
    EvaluationInputError,
    Progress,
    evaluation_run_create,
    evaluation_run_finish,
    model_kind_require,
)

LOSSES = ("nt_xent", "ntb_xent", "pairwise", "triplet")


def _context_groups(*, dataset: Dataset, languages: list[str] | None):
    from worker.engines.contrastive import ContextGroup

    sets = ContextSet.objects.filter(dataset=dataset).select_related("category")
    if languages:
        sets = sets.filter(language__in=languages)
    sets = sets.prefetch_related("sentences").order_by("external_id", "language")
    groups = []
    for cs in sets:
        # A sentence a reviewer dropped (IndiCASA's validation tiers) never trains the encoder.
        dropped = ContextSentence.ReviewDecision.DROP
        sentences = [s for s in cs.sentences.all() if s.review_decision != dropped]
        stereo = tuple(s.text for s in sentences if s.kind == ContextSentence.Kind.STEREOTYPE)
        anti = tuple(s.text for s in sentences if s.kind == ContextSentence.Kind.ANTI_STEREOTYPE)
        if stereo and anti:
            groups.append(
                ContextGroup(f"{cs.external_id}:{cs.language}", cs.category.name, stereo, anti)
            )
    return groups


def indicasa_train_run_create(
    *,
    dataset: Dataset,
    model: ModelEntry | None = None,
    loss: str = "ntb_xent",
    temperature: float = 0.5,
    margin: float = 0.5,
    epochs: int = 3,
    learning_rate: float = 2e-5,
    contexts_per_step: int = 8,
    mlp_epochs: int = 100,
    languages: list[str] | None = None,
    seed: int = 0,
    created_by=None,
) -> EvaluationRun:
    if model is not None:
        model_kind_require(
            model=model,
            kinds=evaluation_kind_get(RunKind.INDICASA_TRAIN).model_kinds,
            what="IndiCASA training",
        )
    if loss not in LOSSES:
        raise EvaluationInputError(f"Unknown loss {loss!r}; choose one of {', '.join(LOSSES)}")
    if temperature <= 0 or not 0 < margin < 1 or epochs < 1 or contexts_per_step < 1:
        raise EvaluationInputError(
            "temperature must be > 0, margin in (0, 1), epochs and contexts_per_step >= 1"
        )
    groups = _context_groups(dataset=dataset, languages=languages)
    if len(groups) < 2:
        raise EvaluationInputError(
            f"Dataset {dataset.name!r} has {len(groups)} context set(s) with both stereotype and "
            "anti-stereotype sentences; training needs at least two (one is held out)"
        )
    params = {
        "loss": loss,
        "temperature": temperature,
        "margin": margin,
        "epochs": epochs,
        "learning_rate": learning_rate,
        "contexts_per_step": contexts_per_step,
        "mlp_epochs": mlp_epochs,
        "languages": languages or [],
        "seed": seed,
        "contexts": len(groups),
    }
    label = model.name if model else "all-MiniLM-L6-v2 (default)"
    return evaluation_run_create(
        kind=RunKind.INDICASA_TRAIN,
        dataset=dataset,
        model=model,
        model_label=label,
        params=params,
        title=f"IndiCASA encoder ({loss}): {label} on {dataset.name}",
        unit="steps",
        created_by=created_by,
    )


def _mlp_scores(encoder, train, held_out, *, epochs: int, seed: int) -> dict[str, Any]:
    from worker.engines.contrastive import predict_mlp_head, train_mlp_head

    def flatten(groups):
        texts, labels, categories = [], [], []
        for g in groups:
            for text in g.stereotypes:
                texts.append(text), labels.append(1), categories.append(g.category)
            for text in g.anti_stereotypes:
                texts.append(text), labels.append(0), categories.append(g.category)
        return texts, labels, categories

    train_texts, train_labels, _ = flatten(train)
    test_texts, test_labels, test_categories = flatten(held_out)
    head = train_mlp_head(encoder(train_texts), train_labels, epochs=epochs, seed=seed)
    predicted = predict_mlp_head(head, encoder(test_texts))
    by_category = {}
    for category in sorted(set(test_categories)):
        idx = [i for i, c in enumerate(test_categories) if c == category]
        by_category[category] = {
            "macro_f1": macro_f1([test_labels[i] for i in idx], [predicted[i] for i in idx]),
            "n": len(idx),
        }
    return {
        "overall": {"macro_f1": macro_f1(test_labels, predicted), "n": len(test_labels)},
        "by_category": by_category,
    }


def indicasa_train_run_execute(*, run: EvaluationRun, progress: Progress) -> dict[str, Any]:
    from worker.engines.contrastive import encode_contexts, load_encoder, train_contrastive
    from worker.engines.embedder import default_model_path

    p = run.params
    groups = _context_groups(dataset=run.dataset, languages=p.get("languages") or None)
    if len(groups) < 2:
        raise EvaluationInputError("Fewer than two usable context sets remain")
    base = run.model.resolved_path() if run.model else None
    device = run.model.device if run.model else "cpu"
    output = Path(settings.KASAUTI_MODEL_ROOT) / "indicasa" / f"run-{run.pk}"
    steps_seen: dict[str, int] = {}
    trained = train_contrastive(
        groups,
        output_dir=output,
        delta_sim=lambda contexts: delta_sim(contexts).delta,
        model_path=base,
        loss=p["loss"],
        temperature=p["temperature"],
        margin=p["margin"],
        epochs=p["epochs"],
        learning_rate=p["learning_rate"],
        contexts_per_step=p["contexts_per_step"],
        seed=p["seed"],
        device=device,
        progress=lambda done, steps: (
            steps_seen.update(total=steps),
            progress(done, steps + 2),
        ),
    )
    total = steps_seen.get("total", 0)
    held_keys = set(trained.held_out_keys)
    train = [g for g in groups if g.key not in held_keys]
    held = [g for g in groups if g.key in held_keys]

    def encoder_of(model):
        return lambda texts: model.encode(
            texts, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )

    vanilla = load_encoder(base, device=device)
    mlp_vanilla = _mlp_scores(
        encoder_of(vanilla), train, held, epochs=p["mlp_epochs"], seed=p["seed"]
    )
    progress(total + 1, total + 2)
    best = load_encoder(trained.checkpoint, device=device)
    mlp_contrastive = _mlp_scores(
        encoder_of(best), train, held, epochs=p["mlp_epochs"], seed=p["seed"]
    )
    per_context = encode_contexts(best, held)
    items = [
        ItemResult(
            item_key=g.key,
            category=g.category,
            language=g.key.rsplit(":", 1)[1],
            payload={
                "split": "held_out" if g.key in held_keys else "train",
                "n_stereotypes": len(g.stereotypes),
                "n_anti_stereotypes": len(g.anti_stereotypes),
            },
        )
        for g in groups
    ]
    by_key = {item.item_key: item for item in items}
    for group, pair in zip(held, per_context, strict=True):
        by_key[group.key].payload["delta_sim"] = delta_sim([pair]).as_dict()
    entry, _ = ModelEntry.objects.update_or_create(
        name=f"indicasa-encoder-run-{run.pk}",
        defaults={
            "kind": ModelKind.SENTENCE_ENCODER,
            "path": str(trained.checkpoint),
            "device": device,
            "notes": f"IndiCASA contrastive encoder ({p['loss']}) trained by run {run.pk}",
        },
    )
    results = {
        "history": trained.history,
        "step_losses": trained.step_losses,
        "initial_delta_sim": trained.history[0]["delta_sim"],
        "best_epoch": trained.best_epoch,
        "best_delta_sim": trained.best_delta_sim,
        "checkpoint": str(trained.checkpoint),
        "encoder_model_id": entry.pk,
        "split": {"train": len(train), "held_out": len(held)},
        "mlp": {"vanilla": mlp_vanilla, "contrastive": mlp_contrastive},
    }
    model_info = {
        "name": run.model_label,
        "base_path": str(base or default_model_path()),
        "device": device,
        "kind": "sentence_encoder",
    }
    evaluation_run_finish(run=run, results=results, model_info=model_info, items=items)
    progress(total + 2, total + 2)
    return {
        "run_id": run.pk,
        "best_epoch": trained.best_epoch,
        "best_delta_sim": trained.best_delta_sim,
        "macro_f1": mlp_contrastive["overall"]["macro_f1"],
    }
