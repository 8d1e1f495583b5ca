"""IndiCASA contrastive encoder training and the MLP bias detector ("Contrastive Learning",
"Bias Detection System").

Plain Python (torch + sentence-transformers): no Django, no ``apps`` import. The held-out
score (Δsim) is passed in as a function, so the one definition in
``apps.evaluation.metrics.indicasa`` is the one used.

Losses, on the encodings of one context's stereotype sentences S and anti-stereotype sentences
A (cosine similarities; positive pairs are the unordered same-class pairs S–S and A–A, negative
pairs every S × A pair), following the paper and the authors' code:

* ``nt_xent``: for each positive pair k, −log(exp(s_k/τ) / (exp(s_k/τ) + Σ_neg exp(s_n/τ))),
  averaged over the positive pairs (the authors' form: the negatives of the whole context form
  the denominator of every positive);
* ``ntb_xent``: binary cross-entropy of σ(s/τ) against the pair label over all unordered pairs,
  mean over positives plus mean over negatives (the paper's weighting 1/N_pos, 1/N_neg). For a
  negative pair the term is −log(1 − σ(s/τ)), as the authors' code computes it (the paper's
  printed −log σ((1 − s)/τ) is a different function; the code's is the one their results used);
* ``pairwise``: mean over positives of (1 − s) plus mean over negatives of max(0, s − m);
* ``triplet``: mean over every (positive, negative) combination of max(0, s_neg − s_pos + m).

A context without any positive pair (one sentence per class) gives no ``nt_xent`` / ``triplet``
term and is skipped for those losses.

Training: the contexts are split 80/20 *by context* with a seeded shuffle; each step takes
``contexts_per_step`` training contexts (seeded order per epoch) and averages their losses;
after every epoch the encoder encodes the held-out contexts and Δsim is computed; the best
epoch's encoder (epoch 0 = before training counts too) is saved with ``save()`` as a
sentence-transformers directory that ``worker.engines.embedder.Embedder`` loads.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from worker.engines.embedder import default_model_path, validate_model_dir
from worker.engines.errors import ModelConfigurationError

LOSSES = ("nt_xent", "ntb_xent", "pairwise", "triplet")


# ----------------------------------------------------------------------------------------------
# Losses
# ----------------------------------------------------------------------------------------------
def _pair_similarities(stereos, antis):
    """(positive similarities, negative similarities) as 1-D tensors."""
    import torch
    import torch.nn.functional as F

    s = F.normalize(stereos, dim=-1)
    a = F.normalize(antis, dim=-1)
    positives = []
    for group in (s, a):
        if len(group) >= 2:
            sims = group @ group.T
            i, j = torch.triu_indices(len(group), len(group), offset=1)
            positives.append(sims[i, j])
    pos = torch.cat(positives) if positives else s.new_zeros(0)
    neg = (s @ a.T).reshape(-1)
    return pos, neg


def nt_xent_loss(stereos, antis, *, temperature: float = 0.5):
    import torch

    pos, neg = _pair_similarities(stereos, antis)
    if pos.numel() == 0:
        return None
    logits = torch.cat([pos[:, None], neg[None, :].expand(len(pos), -1)], dim=1) / temperature
    return (torch.logsumexp(logits, dim=1) - logits[:, 0]).mean()


def ntb_xent_loss(stereos, antis, *, temperature: float = 0.5):
    import torch.nn.functional as F

    pos, neg = _pair_similarities(stereos, antis)
    terms = []
    if pos.numel():
        terms.append(F.softplus(-pos / temperature).mean())  # −log σ(s/τ)
    if neg.numel():
        terms.append(F.softplus(neg / temperature).mean())  # −log(1 − σ(s/τ))
    return sum(terms) if terms else None


def pairwise_loss(stereos, antis, *, margin: float = 0.5):
    pos, neg = _pair_similarities(stereos, antis)
    terms = []
    if pos.numel():
        terms.append((1 - pos).mean())
    if neg.numel():
        terms.append((neg - margin).clamp(min=0).mean())
    return sum(terms) if terms else None


def triplet_loss(stereos, antis, *, margin: float = 0.3):
    pos, neg = _pair_similarities(stereos, antis)
    if pos.numel() == 0 or neg.numel() == 0:
        return None
    return (neg[None, :] - pos[:, None] + margin).clamp(min=0).mean()


def loss_function(name: str, *, temperature: float = 0.5, margin: float = 0.5) -> Callable:
    if name == "nt_xent":
        return lambda s, a: nt_xent_loss(s, a, temperature=temperature)
    if name == "ntb_xent":
        return lambda s, a: ntb_xent_loss(s, a, temperature=temperature)
    if name == "pairwise":
        return lambda s, a: pairwise_loss(s, a, margin=margin)
    if name == "triplet":
        return lambda s, a: triplet_loss(s, a, margin=margin)
    raise ValueError(f"Unknown contrastive loss {name!r}; choose one of {', '.join(LOSSES)}")


# ----------------------------------------------------------------------------------------------
# Data
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ContextGroup:
    key: str
    category: str
    stereotypes: tuple[str, ...]
    anti_stereotypes: tuple[str, ...]


def split_contexts(
    contexts: Sequence[ContextGroup], *, seed: int = 0, train_fraction: float = 0.8
) -> tuple[list[ContextGroup], list[ContextGroup]]:
    """Seeded split by context (never a context on both sides); at least one held out when
    there are two or more contexts."""
    ordered = sorted(contexts, key=lambda c: c.key)
    random.Random(seed).shuffle(ordered)
    n_train = round(train_fraction * len(ordered))
    if len(ordered) >= 2:
        n_train = min(max(n_train, 1), len(ordered) - 1)
    return ordered[:n_train], ordered[n_train:]


# ----------------------------------------------------------------------------------------------
# Encoder training
# ----------------------------------------------------------------------------------------------
@dataclass
class TrainingResult:
    checkpoint: Path
    best_epoch: int
    best_delta_sim: float | None
    history: list[dict] = field(default_factory=list)  # one row per epoch, epoch 0 = untrained
    step_losses: list[float] = field(default_factory=list)
    train_keys: list[str] = field(default_factory=list)
    held_out_keys: list[str] = field(default_factory=list)


def load_encoder(model_path: str | Path | None = None, *, device: str = "cpu"):
    root = validate_model_dir(model_path or default_model_path())
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    try:
        return SentenceTransformer(str(root), device=device, local_files_only=True)
    except (OSError, ValueError, RuntimeError) as exc:
        raise ModelConfigurationError(
            f"Could not load encoder from {root}: {exc}", path=root
        ) from exc


def _encode_grad(model, texts: Sequence[str]):
    prepare = getattr(model, "preprocess", None) or model.tokenize  # renamed in v5.x
    features = prepare(list(texts))
    features = {k: v.to(model.device) if hasattr(v, "to") else v for k, v in features.items()}
    return model(features)["sentence_embedding"]


def encode_contexts(model, contexts: Sequence[ContextGroup]) -> list[tuple[np.ndarray, np.ndarray]]:
    """(stereotype encodings, anti-stereotype encodings) per context, unit length, no grad."""
    texts = [t for c in contexts for t in (*c.stereotypes, *c.anti_stereotypes)]
    if not texts:
        return []
    vectors = model.encode(
        texts, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
    out = []
    cursor = 0
    for c in contexts:
        s = vectors[cursor : cursor + len(c.stereotypes)]
        cursor += len(c.stereotypes)
        a = vectors[cursor : cursor + len(c.anti_stereotypes)]
        cursor += len(c.anti_stereotypes)
        out.append((s, a))
    return out


def train_contrastive(
    contexts: Sequence[ContextGroup],
    *,
    output_dir: str | Path,
    delta_sim: Callable[[list[tuple[np.ndarray, np.ndarray]]], float | None],
    model_path: str | Path | None = None,
    loss: str = "ntb_xent",
    temperature: float = 0.5,
    margin: float = 0.5,
    epochs: int = 3,
    learning_rate: float = 2e-5,
    contexts_per_step: int = 8,
    seed: int = 0,
    device: str = "cpu",
    progress: Callable[[int, int], None] | None = None,
) -> TrainingResult:
    import torch

    criterion = loss_function(loss, temperature=temperature, margin=margin)
    train, held_out = split_contexts(contexts, seed=seed)
    if not train or not held_out:
        raise ValueError(
            f"Contrastive training needs at least two context sets (one held out), got "
            f"{len(contexts)}"
        )
    torch.manual_seed(seed)
    model = load_encoder(model_path, device=device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
    checkpoint = Path(output_dir) / "best"
    rng = random.Random(seed)
    steps_per_epoch = (len(train) + contexts_per_step - 1) // contexts_per_step
    total_steps = epochs * steps_per_epoch
    result = TrainingResult(
        checkpoint=checkpoint,
        best_epoch=0,
        best_delta_sim=None,
        train_keys=[c.key for c in train],
        held_out_keys=[c.key for c in held_out],
    )

    def evaluate(epoch: int, train_loss: float | None) -> None:
        model.eval()
        value = delta_sim(encode_contexts(model, held_out))
        result.history.append({"epoch": epoch, "train_loss": train_loss, "delta_sim": value})
        if value is not None and (result.best_delta_sim is None or value > result.best_delta_sim):
            result.best_delta_sim = value
            result.best_epoch = epoch
            model.save(str(checkpoint))
        elif epoch == 0:
            model.save(str(checkpoint))

    evaluate(0, None)
    done = 0
    for epoch in range(1, epochs + 1):
        order = list(train)
        rng.shuffle(order)
        model.train()
        epoch_losses = []
        for start in range(0, len(order), contexts_per_step):
            batch = order[start : start + contexts_per_step]
            terms = []
            for context in batch:
                embeddings = _encode_grad(model, [*context.stereotypes, *context.anti_stereotypes])
                n_s = len(context.stereotypes)
                value = criterion(embeddings[:n_s], embeddings[n_s:])
                if value is not None:
                    terms.append(value)
            if terms:
                step_loss = torch.stack(terms).mean()
                optimizer.zero_grad()
                step_loss.backward()
                optimizer.step()
                result.step_losses.append(float(step_loss.detach()))
                epoch_losses.append(float(step_loss.detach()))
            done += 1
            if progress:
                progress(done, total_steps)
        evaluate(epoch, float(np.mean(epoch_losses)) if epoch_losses else None)
    return result


# ----------------------------------------------------------------------------------------------
# MLP bias detector (384 → 192 → 1 for all-MiniLM-L6-v2)
# ----------------------------------------------------------------------------------------------
def build_mlp_head(dimension: int):
    from torch import nn

    return nn.Sequential(
        nn.Linear(dimension, dimension // 2), nn.ReLU(), nn.Linear(dimension // 2, 1), nn.Sigmoid()
    )


def train_mlp_head(
    embeddings: np.ndarray,
    labels: Sequence[int],
    *,
    epochs: int = 100,
    learning_rate: float = 1e-3,
    seed: int = 0,
):
    """Full-batch training with binary cross-entropy; the encoder stays frozen (its
    encodings are the input). Label 1 = stereotype, 0 = anti-stereotype."""
    import torch

    torch.manual_seed(seed)
    x = torch.as_tensor(np.asarray(embeddings), dtype=torch.float32)
    y = torch.as_tensor(list(labels), dtype=torch.float32)[:, None]
    head = build_mlp_head(x.shape[1])
    optimizer = torch.optim.Adam(head.parameters(), lr=learning_rate)
    loss_fn = torch.nn.BCELoss()
    head.train()
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = loss_fn(head(x), y)
        loss.backward()
        optimizer.step()
    head.eval()
    return head


def predict_mlp_head(head, embeddings: np.ndarray) -> list[int]:
    import torch

    with torch.inference_mode():
        probs = head(torch.as_tensor(np.asarray(embeddings), dtype=torch.float32))[:, 0]
    return [int(p > 0.5) for p in probs.tolist()]
