"""IndiCASA contrastive losses on hand-computed inputs, the split by context, a short CPU
training run on the offline all-MiniLM-L6-v2, and the MLP head."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from apps.evaluation.metrics.indicasa import delta_sim, macro_f1
from worker.engines.contrastive import (
    ContextGroup,
    build_mlp_head,
    loss_function,
    nt_xent_loss,
    ntb_xent_loss,
    pairwise_loss,
    predict_mlp_head,
    split_contexts,
    train_contrastive,
    train_mlp_head,
    triplet_loss,
)
from worker.engines.embedder import Embedder


def t(rows):
    return torch.tensor(rows, dtype=torch.float64)


def softplus(x):
    return math.log1p(math.exp(x))


# E1: two identical stereotypes (cos 1), one anti-stereotype orthogonal to both (cos 0, 0).
E1 = (t([[1, 0], [2, 0]]), t([[0, 1]]))
# E2: positive cos((1,0),(.6,.8)) = .6; negatives .8 and .96.
E2 = (t([[1, 0], [0.6, 0.8]]), t([[0.8, 0.6]]))


def test_nt_xent_by_hand():
    assert float(nt_xent_loss(*E1, temperature=1.0)) == pytest.approx(math.log(math.e + 2) - 1)
    expected = -1.2 + math.log(math.exp(1.2) + math.exp(1.6) + math.exp(1.92))
    assert float(nt_xent_loss(*E2, temperature=0.5)) == pytest.approx(expected)


def test_ntb_xent_by_hand():
    assert float(ntb_xent_loss(*E1, temperature=1.0)) == pytest.approx(softplus(-1) + math.log(2))
    expected = softplus(-1.2) + (softplus(1.6) + softplus(1.92)) / 2
    assert float(ntb_xent_loss(*E2, temperature=0.5)) == pytest.approx(expected)


def test_pairwise_and_triplet_by_hand():
    assert float(pairwise_loss(*E2, margin=0.5)) == pytest.approx(0.4 + (0.3 + 0.46) / 2)
    assert float(triplet_loss(*E2, margin=0.3)) == pytest.approx((0.5 + 0.66) / 2)
    # Anti-stereotype pairs are positives too: perfect separation costs nothing.
    s, a = t([[1, 0], [1, 0]]), t([[0, 1], [0, 1]])
    assert float(pairwise_loss(s, a, margin=0.5)) == 0.0
    assert float(triplet_loss(s, a, margin=0.3)) == 0.0
    assert float(nt_xent_loss(s, a, temperature=1.0)) == pytest.approx(math.log(math.e + 4) - 1)


def test_a_context_without_positive_pairs():
    s, a = t([[1, 0]]), t([[0.6, 0.8]])
    assert nt_xent_loss(s, a) is None and triplet_loss(s, a) is None
    assert float(ntb_xent_loss(s, a, temperature=0.5)) == pytest.approx(softplus(1.2))
    assert float(pairwise_loss(s, a, margin=0.5)) == pytest.approx(0.1)


def test_temperature_and_margin_are_parameters():
    assert float(loss_function("nt_xent", temperature=0.1)(*E2)) != float(
        loss_function("nt_xent", temperature=1.0)(*E2)
    )
    with pytest.raises(ValueError, match="Unknown contrastive loss 'infonce'"):
        loss_function("infonce")


CONTEXTS = [
    ContextGroup(
        f"c{i}",
        category,
        (f"The {group} family is {bad}.", f"Every {group} person is {bad}."),
        (f"The {group} family is {good}.", f"Every {group} person is {good}."),
    )
    for i, (category, group, bad, good) in enumerate(
        [
            ("caste", "Dalit", "dirty", "clean"),
            ("caste", "Brahmin", "arrogant", "humble"),
            ("religion", "Muslim", "violent", "peaceful"),
            ("religion", "Hindu", "intolerant", "tolerant"),
            ("gender", "woman's", "weak", "strong"),
            ("gender", "man's", "rude", "gentle"),
        ]
    )
]


def test_split_is_by_context_and_seeded():
    train, held = split_contexts(CONTEXTS, seed=3)
    assert len(train) == 5 and len(held) == 1
    assert not {c.key for c in train} & {c.key for c in held}
    assert split_contexts(list(reversed(CONTEXTS)), seed=3) == (train, held)


def test_short_training_lowers_the_loss_and_keeps_the_best_checkpoint(tmp_path):
    def delta(contexts):
        return delta_sim(contexts).delta

    seen = []
    result = train_contrastive(
        CONTEXTS,
        output_dir=tmp_path,
        delta_sim=delta,
        loss="ntb_xent",
        temperature=0.5,
        epochs=3,
        learning_rate=1e-4,
        contexts_per_step=8,
        seed=0,
        progress=lambda done, total: seen.append((done, total)),
    )
    assert seen[-1] == (3, 3)
    assert len(result.step_losses) == 3
    assert result.step_losses[-1] < result.step_losses[0]
    assert [row["epoch"] for row in result.history] == [0, 1, 2, 3]
    deltas = [row["delta_sim"] for row in result.history]
    assert result.best_delta_sim == max(deltas)
    assert result.best_epoch == deltas.index(max(deltas))
    assert (result.checkpoint / "modules.json").is_file()
    # The checkpoint is the best epoch's encoder: re-encoding the held-out contexts with it
    # gives the recorded best Δsim.
    embedder = Embedder(result.checkpoint, device="cpu")
    held = [c for c in CONTEXTS if c.key in result.held_out_keys]
    pairs = [
        (embedder.encode(list(c.stereotypes)), embedder.encode(list(c.anti_stereotypes)))
        for c in held
    ]
    assert delta_sim(pairs).delta == pytest.approx(result.best_delta_sim, abs=1e-4)


def test_training_needs_a_held_out_context(tmp_path):
    with pytest.raises(ValueError, match="at least two context sets"):
        train_contrastive(CONTEXTS[:1], output_dir=tmp_path, delta_sim=lambda c: 0.0)


def test_mlp_head_shape_and_learning():
    head = build_mlp_head(384)
    assert [m.weight.shape for m in head if hasattr(m, "weight")] == [(192, 384), (1, 192)]
    rng = np.random.default_rng(0)
    x = np.vstack([rng.normal(2, 0.5, size=(20, 8)), rng.normal(-2, 0.5, size=(20, 8))])
    y = [1] * 20 + [0] * 20
    trained = train_mlp_head(x, y, epochs=200, learning_rate=1e-2, seed=0)
    assert macro_f1(y, predict_mlp_head(trained, x)) == pytest.approx(1.0)
