"""Sentence scores for CrowS-Pairs (IndiBias §6.1): masked-LM pseudo-log-likelihood P(U|M) with
word-level masking, and the length-normalised log-probability of a causal LM.

Plain Python (torch + transformers): no Django, no ``apps`` import.

P(U|M) (Nangia et al. 2020, as IndiBias uses it): the two sentences of a pair are split into
words (whitespace tokens, after Unicode NFC); the words the two share, in order (difflib's
longest matching blocks), are U, the others M. For each word u in U, *all sub-tokens of u* are
replaced by the mask token at once and the model's log-probabilities of u's original sub-tokens
are summed; score(S) = Σ_u log P(u | U∖u, M) / |C| where |C| is the number of sub-tokens in U.
Word-level masking matters for Hindi: a Devanagari word is often split into pieces that other
words share (IndiBias Figure 3), and token-level masking would leak the rest of the word.

Every masked copy of every sentence is scored in batches (sorted by length, padded), one forward
pass per batch; only the masked rows of the logits go through log-softmax.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from worker.engines.errors import ModelConfigurationError

_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


@dataclass(frozen=True)
class SentenceScore:
    sum_logprob: float
    n_tokens: int  # |C|: sub-tokens scored

    @property
    def score(self) -> float | None:
        """Normalised score; ``None`` when nothing could be scored (no shared word)."""
        return self.sum_logprob / self.n_tokens if self.n_tokens else None


def split_words(sentence: str) -> list[tuple[int, int]]:
    """Character spans of the whitespace-separated words of ``sentence``."""
    spans: list[tuple[int, int]] = []
    start = None
    for i, char in enumerate(sentence):
        if char.isspace():
            if start is not None:
                spans.append((start, i))
                start = None
        elif start is None:
            start = i
    if start is not None:
        spans.append((start, len(sentence)))
    return spans


def shared_words(first: str, second: str) -> tuple[list[int], list[int]]:
    """Indices of the unmodified words (U) of each sentence: difflib's matching blocks over
    the two word sequences."""
    words1 = [first[s:e] for s, e in split_words(first)]
    words2 = [second[s:e] for s, e in split_words(second)]
    matcher = difflib.SequenceMatcher(None, words1, words2, autojunk=False)
    u1: list[int] = []
    u2: list[int] = []
    for block in matcher.get_matching_blocks():
        u1.extend(range(block.a, block.a + block.size))
        u2.extend(range(block.b, block.b + block.size))
    return u1, u2


def _validate_dir(path: str | Path, what: str) -> Path:
    root = Path(path)
    if not root.is_dir():
        raise ModelConfigurationError(
            f"{what} directory does not exist: {root} (only local directories are accepted, "
            "not hub names)",
            path=root,
        )
    if not (root / "config.json").is_file():
        raise ModelConfigurationError(f"Malformed {what} directory, missing config.json", path=root)
    if not any((root / name).is_file() for name in _WEIGHT_FILES):
        raise ModelConfigurationError(
            f"Malformed {what} directory, no weights ({' or '.join(_WEIGHT_FILES)})", path=root
        )
    return root


def weights_sha256(root: Path) -> str:
    digest = hashlib.sha256()
    for name in _WEIGHT_FILES:
        path = root / name
        if path.is_file():
            with path.open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
            break
    return digest.hexdigest()


class MaskedLMScorer:
    """Pseudo-log-likelihood scoring with a local Hugging Face masked LM directory."""

    def __init__(
        self,
        model_path: str | Path,
        *,
        device: str = "cpu",
        dtype: str = "float32",
        batch_size: int = 32,
    ) -> None:
        self.model_path = _validate_dir(model_path, "Masked language model")
        self.device = device
        self.dtype = dtype
        self.batch_size = batch_size
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        try:
            self.tokenizer = AutoTokenizer.from_pretrained(
                str(self.model_path), local_files_only=True
            )
            self.model = AutoModelForMaskedLM.from_pretrained(
                str(self.model_path), local_files_only=True, dtype=getattr(torch, dtype)
            )
        except (OSError, ValueError) as exc:
            raise ModelConfigurationError(
                f"Could not load a masked language model from {self.model_path}: {exc}",
                path=self.model_path,
            ) from exc
        if not getattr(self.tokenizer, "is_fast", False):
            raise ModelConfigurationError(
                "The masked LM needs a fast tokenizer (tokenizer.json) for word-level masking",
                path=self.model_path,
            )
        if self.tokenizer.mask_token_id is None:
            raise ModelConfigurationError(
                "The tokenizer has no mask token: not a masked language model",
                path=self.model_path,
            )
        self.model.to(device)
        self.model.eval()
        self._torch = torch

    def model_info(self) -> dict:
        config = self.model.config
        return {
            "name": getattr(config, "name_or_path", "") or self.model_path.name,
            "path": str(self.model_path),
            "revision": getattr(config, "_commit_hash", None),
            "sha256": weights_sha256(self.model_path),
            "dtype": self.dtype,
            "device": self.device,
            "kind": "masked_lm",
        }

    # -- tokenisation -------------------------------------------------------------------------
    def encode_words(self, sentence: str) -> tuple[list[int], list[list[int]]]:
        """Token ids of ``sentence`` and, per whitespace word, the positions of its sub-tokens."""
        spans = split_words(sentence)
        encoded = self.tokenizer(
            sentence, return_offsets_mapping=True, return_special_tokens_mask=True
        )
        ids = list(encoded["input_ids"])
        limit = getattr(self.tokenizer, "model_max_length", None) or 10**9
        if len(ids) > min(limit, 10**6):
            raise ValueError(f"Sentence is {len(ids)} tokens, longer than the model's {limit}")
        groups: list[list[int]] = [[] for _ in spans]
        word = 0
        for position, ((start, end), special) in enumerate(
            zip(encoded["offset_mapping"], encoded["special_tokens_mask"], strict=True)
        ):
            if special or end <= start:
                continue
            last = end - 1
            while word < len(spans) and spans[word][1] <= last:
                word += 1
            if word < len(spans) and spans[word][0] <= last:
                groups[word].append(position)
        return ids, groups

    def mask_word(self, ids: Sequence[int], positions: Sequence[int]) -> list[int]:
        """``ids`` with every sub-token of one word (its ``positions``) replaced by the mask."""
        masked = list(ids)
        for p in positions:
            masked[p] = self.tokenizer.mask_token_id
        return masked

    # -- scoring ------------------------------------------------------------------------------
    def score_words(self, requests: Sequence[tuple[str, Sequence[int]]]) -> list[SentenceScore]:
        """For each (sentence, word indices): Σ over the words of log P(word's sub-tokens | the
        rest, the word masked as a whole), and the number of sub-tokens scored."""
        torch = self._torch
        variants: list[tuple[int, list[int], list[int], list[int]]] = []
        for index, (sentence, words) in enumerate(requests):
            ids, groups = self.encode_words(unicodedata.normalize("NFC", sentence))
            for word in words:
                positions = groups[word]
                if not positions:
                    continue
                masked = self.mask_word(ids, positions)
                variants.append((index, masked, positions, [ids[p] for p in positions]))
        sums = [0.0] * len(requests)
        counts = [0] * len(requests)
        variants.sort(key=lambda v: len(v[1]))
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        with torch.inference_mode():
            for start in range(0, len(variants), self.batch_size):
                batch = variants[start : start + self.batch_size]
                width = max(len(v[1]) for v in batch)
                input_ids = torch.full((len(batch), width), pad, dtype=torch.long)
                attention = torch.zeros((len(batch), width), dtype=torch.long)
                rows, cols, targets = [], [], []
                for b, (_, masked, positions, originals) in enumerate(batch):
                    input_ids[b, : len(masked)] = torch.tensor(masked)
                    attention[b, : len(masked)] = 1
                    rows.extend([b] * len(positions))
                    cols.extend(positions)
                    targets.extend(originals)
                logits = self.model(
                    input_ids=input_ids.to(self.device), attention_mask=attention.to(self.device)
                ).logits
                picked = logits[torch.tensor(rows), torch.tensor(cols)].float()
                logprobs = torch.log_softmax(picked, dim=-1)
                values = logprobs[torch.arange(len(targets)), torch.tensor(targets)].tolist()
                cursor = 0
                for index, _, positions, _ in batch:
                    sums[index] += sum(values[cursor : cursor + len(positions)])
                    counts[index] += len(positions)
                    cursor += len(positions)
        return [SentenceScore(s, n) for s, n in zip(sums, counts, strict=True)]

    def pseudo_log_likelihood(self, sentences: Sequence[str]) -> list[SentenceScore]:
        """Every word masked in turn (the full PLL)."""
        requests = [(s, range(len(split_words(s)))) for s in sentences]
        return self.score_words(requests)

    def pair_scores(
        self, pairs: Sequence[tuple[str, str]]
    ) -> list[tuple[SentenceScore, SentenceScore]]:
        """P(U|M) of both sentences of each pair, normalised by |C| (``SentenceScore.score``)."""
        requests: list[tuple[str, Sequence[int]]] = []
        for first, second in pairs:
            first = unicodedata.normalize("NFC", first)
            second = unicodedata.normalize("NFC", second)
            u1, u2 = shared_words(first, second)
            requests.append((first, u1))
            requests.append((second, u2))
        scores = self.score_words(requests)
        return [(scores[2 * i], scores[2 * i + 1]) for i in range(len(pairs))]


class CausalPairScorer:
    """CrowS scores for a causal LM: Σ log P(token | preceding tokens) / n_tokens per sentence,
    from ``worker.engines.lm_scorer.CausalLMScorer.sentence_logprob`` (or anything with that
    method, such as the endpoint client)."""

    def __init__(self, scorer) -> None:
        self.scorer = scorer

    def model_info(self) -> dict:
        info = dict(self.scorer.model_info())
        info.setdefault("kind", "causal_lm")
        return info

    def pair_scores(
        self, pairs: Sequence[tuple[str, str]]
    ) -> list[tuple[SentenceScore, SentenceScore]]:
        texts: list[str] = []
        for first, second in pairs:
            texts.append(unicodedata.normalize("NFC", first))
            texts.append(unicodedata.normalize("NFC", second))
        results = [SentenceScore(float(s), int(n)) for s, n in self.scorer.sentence_logprob(texts)]
        return [(results[2 * i], results[2 * i + 1]) for i in range(len(pairs))]


class ClsEncoder:
    """Sentence encodings for SEAT from a (masked) transformer encoder: the final hidden state
    of the first token ([CLS]), as IndiBias Appendix B describes; batched, unit length."""

    def __init__(self, model_path: str | Path, *, device: str = "cpu", batch_size: int = 32):
        self.model_path = _validate_dir(model_path, "Encoder model")
        self.device = device
        self.batch_size = batch_size
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from transformers import AutoModel, AutoTokenizer

        try:
            self.tokenizer = AutoTokenizer.from_pretrained(
                str(self.model_path), local_files_only=True
            )
            self.model = AutoModel.from_pretrained(str(self.model_path), local_files_only=True)
        except (OSError, ValueError) as exc:
            raise ModelConfigurationError(
                f"Could not load an encoder from {self.model_path}: {exc}", path=self.model_path
            ) from exc
        self.model.to(device).eval()
        self._torch = torch

    @property
    def dimension(self) -> int:
        return int(self.model.config.hidden_size)

    def model_info(self) -> dict:
        return {
            "name": self.model_path.name,
            "path": str(self.model_path),
            "sha256": weights_sha256(self.model_path),
            "device": self.device,
            "kind": "masked_lm",
            "pooling": "cls",
        }

    def encode(self, texts: Sequence[str]):
        import numpy as np

        torch = self._torch
        out = []
        with torch.inference_mode():
            for start in range(0, len(texts), self.batch_size):
                batch = [
                    unicodedata.normalize("NFC", t) for t in texts[start : start + self.batch_size]
                ]
                encoded = self.tokenizer(batch, return_tensors="pt", padding=True, truncation=True)
                hidden = self.model(**encoded.to(self.device)).last_hidden_state[:, 0]
                out.append(torch.nn.functional.normalize(hidden.float(), dim=-1).cpu().numpy())
        return np.concatenate(out) if out else np.zeros((0, self.dimension), dtype=np.float32)


class CausalSentenceScorer:
    """Σ log P(token | preceding tokens) and the token count of whole sentences with a local
    causal LM (IndiBias §6.1 for decoder models: score = sum / n_tokens). The tokenizer's BOS
    (or EOS, GPT-2's document separator) is put in front, so the first word is scored too.
    Sentences are batched (right padding; padded positions are masked out)."""

    def __init__(
        self,
        model_path: str | Path,
        *,
        device: str = "cpu",
        dtype: str = "float32",
        batch_size: int = 16,
    ) -> None:
        self.model_path = _validate_dir(model_path, "Causal language model")
        self.device = device
        self.dtype = dtype
        self.batch_size = batch_size
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        try:
            self.tokenizer = AutoTokenizer.from_pretrained(
                str(self.model_path), local_files_only=True
            )
            self.model = AutoModelForCausalLM.from_pretrained(
                str(self.model_path), local_files_only=True, dtype=getattr(torch, dtype)
            )
        except (OSError, ValueError) as exc:
            raise ModelConfigurationError(
                f"Could not load a causal language model from {self.model_path}: {exc}",
                path=self.model_path,
            ) from exc
        start = self.tokenizer.bos_token_id
        if start is None:
            start = self.tokenizer.eos_token_id
        if start is None:
            raise ModelConfigurationError(
                "The tokenizer has neither a BOS nor an EOS token to start sentences with",
                path=self.model_path,
            )
        self.start_id = start
        self.model.to(device).eval()
        self._torch = torch

    def model_info(self) -> dict:
        return {
            "name": self.model_path.name,
            "path": str(self.model_path),
            "sha256": weights_sha256(self.model_path),
            "dtype": self.dtype,
            "device": self.device,
            "kind": "causal_lm",
        }

    def sentence_logprob(self, texts: Sequence[str]) -> list[tuple[float, int]]:
        torch = self._torch
        encoded = [
            [self.start_id]
            + self.tokenizer(unicodedata.normalize("NFC", t), add_special_tokens=False)["input_ids"]
            for t in texts
        ]
        results: list[tuple[float, int]] = [(0.0, 0)] * len(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                batch = order[start : start + self.batch_size]
                width = max(len(encoded[i]) for i in batch)
                ids = torch.full((len(batch), width), self.start_id, dtype=torch.long)
                mask = torch.zeros((len(batch), width), dtype=torch.long)
                for row, i in enumerate(batch):
                    ids[row, : len(encoded[i])] = torch.tensor(encoded[i])
                    mask[row, : len(encoded[i])] = 1
                logits = self.model(
                    input_ids=ids.to(self.device), attention_mask=mask.to(self.device)
                ).logits.float()
                logprobs = torch.log_softmax(logits[:, :-1], dim=-1)
                picked = logprobs.gather(2, ids[:, 1:, None].to(self.device))[:, :, 0]
                picked = picked * mask[:, 1:].to(self.device)
                for row, i in enumerate(batch):
                    results[i] = (float(picked[row].sum()), len(encoded[i]) - 1)
        return results
