"""Causal language-model scoring: option log-likelihoods for multiple-choice items (BharatBBQ
Appendix C) and sentence log-probabilities (CrowS-Pairs with a causal LM).

Option scoring (``CausalLMScorer.score_options``) computes every shared piece of text once:

* identical prompts are scored once, with the union of their options;
* items of one prefix group (``groups``: runs.py ``item_prompt`` gives the template, the
  languages and the two solved examples) share a prompt prefix: the token-level longest common
  prefix of the group's prompt ids, one token short of the shortest prompt (every item keeps at
  least one token of its own). Its key/value cache is computed ONCE, at batch 1, and kept (an
  LRU of ``max_cached_prefixes`` per scorer, so a run that scores a group over many calls
  computes it once);
* per length-sorted batch of a group's items, two forward passes:

  1. the items' suffixes (prompt tokens after the prefix), left-padded so every prompt ends at
     the last column, on a copy of the prefix cache per item (attention mask
     ``[ones(prefix) | suffix mask]``, position ids continuing from the prefix length), with
     ``logits_to_keep=1``: only the next-token distribution after each prompt's last token
     (which scores every option's first token; a 128k vocabulary times every prompt position
     would be gigabytes on a real model);
  2. the options of all items, right-padded, each row on a copy of its item's cache
     (``Cache.reorder_cache`` with repeated indices), with position ids continuing from the
     prompt's true length and an attention mask that hides the suffix padding.

Items without a group to share with (a group of one, or a common prefix shorter than
``min_shared_prefix`` tokens) run the same two passes on their whole prompts. Memory: the kept
batch-1 prefix caches; per batch, the prefix copied once per item plus the suffixes, and that
cache repeated once per option for the option pass. Batches back off on GPU out-of-memory
(worker/engines/backoff.py).

Tokenisation follows lm-evaluation-harness: the prompt is encoded alone (with the tokenizer's
usual special tokens, e.g. Llama's BOS) and an option's tokens are the tail of the encoding of
``prompt + option`` after the prompt's tokens, so a word that the tokenizer would join across
the boundary is scored the way the model reads the whole text. The prefix is cut from those
token ids, so sharing never changes what is scored: the result equals one full, uncached
forward pass per option (tests check 1e-4 on a tiny GPT-2, English and Devanagari).

Device and dtype are arguments (``device="cuda"``, ``dtype="bfloat16"`` on a GPU; a run takes
both from its model entry): every tensor is created on ``self.device``; nothing calls
``.cuda()``.
"""

from __future__ import annotations

import hashlib
import os
import unicodedata
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path

from worker.engines.backoff import map_batches
from worker.engines.errors import ModelConfigurationError

DTYPES = ("float32", "float16", "bfloat16", "auto")
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf")


@dataclass(frozen=True, slots=True)
class OptionScore:
    sum_logprob: float
    n_tokens: int

    @property
    def mean_logprob(self) -> float:
        return self.sum_logprob / self.n_tokens if self.n_tokens else float("-inf")


@dataclass(frozen=True, slots=True)
class OptionScores:
    """The scores of one item's options, in the item's option order."""

    options: tuple[OptionScore, ...]

    @property
    def sum_logprob(self) -> list[float]:
        return [o.sum_logprob for o in self.options]

    @property
    def mean_logprob(self) -> list[float]:
        return [o.mean_logprob for o in self.options]

    @property
    def n_tokens(self) -> list[int]:
        return [o.n_tokens for o in self.options]

    def best(self, *, by: str = "mean") -> int:
        values = self.mean_logprob if by == "mean" else self.sum_logprob
        return max(range(len(values)), key=values.__getitem__)


def _torch_dtype(dtype: str):
    import torch

    if dtype not in DTYPES:
        raise ModelConfigurationError(f"unknown dtype {dtype!r}; use one of {DTYPES}")
    return "auto" if dtype == "auto" else getattr(torch, dtype)


def load_causal_lm(
    path: str | Path, *, device: str = "cpu", dtype: str = "float32"
) -> CausalLMScorer:
    """A scorer for the causal LM saved in ``path`` (a transformers directory), loaded offline."""
    path = Path(path)
    if not path.is_dir():
        raise ModelConfigurationError("Causal LM directory not found", path=path)
    if not (path / "config.json").is_file():
        raise ModelConfigurationError(
            "Causal LM directory has no config.json (not a transformers model)", path=path
        )
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch_dtype = _torch_dtype(dtype)
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(
            str(path), local_files_only=True, dtype=torch_dtype
        )
    except (OSError, ValueError, KeyError) as exc:
        raise ModelConfigurationError(
            f"Cannot load a causal LM: {type(exc).__name__}: {exc}", path=path
        ) from exc
    try:
        model = model.to(device).eval()
    except (RuntimeError, AssertionError) as exc:  # e.g. "Torch not compiled with CUDA"
        raise ModelConfigurationError(f"Cannot use device {device!r}: {exc}", path=path) from exc
    return CausalLMScorer(model, tokenizer, path=path, device=device, dtype=dtype)


def _shared_prefix(prompts: list[list[int]]) -> tuple[int, ...]:
    """The longest common prefix of token-id lists, one token short of the shortest list (so
    every prompt keeps at least one token after it)."""
    shortest = min(len(p) for p in prompts)
    common = os.path.commonprefix(prompts)  # works on any sequences, element by element
    return tuple(common[: min(len(common), shortest - 1)])


class CausalLMScorer:
    # A group shares its prefix when it has at least this many tokens (below it, one more
    # forward pass and a cache copy per batch cost more than they save).
    min_shared_prefix = 16
    # Prefix caches kept across calls (runs.py scores a run in many calls of a batch each).
    max_cached_prefixes = 8

    def __init__(self, model, tokenizer, *, path: Path, device: str, dtype: str) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.path = Path(path)
        self.device = device
        self.dtype = dtype
        self._weights_sha256: str | None = None
        start = tokenizer.bos_token_id
        self.start_id = start if start is not None else tokenizer.eos_token_id
        self.pad_id = tokenizer.pad_token_id
        if self.pad_id is None:
            self.pad_id = self.start_id if self.start_id is not None else 0
        # Shared-prefix scoring (score_options): the kept prefix caches, most recent last.
        self._prefixes: OrderedDict[tuple[int, ...], object] = OrderedDict()
        self._batch_cap: int | None = None  # the batch size an out-of-memory left, if any

    # ---------------------------------------------------------------- tokenisation
    def _encode(self, text: str, *, special: bool) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=special)["input_ids"])

    def _split(self, prompt: str, options: Sequence[str]) -> tuple[list[int], list[list[int]]]:
        prompt = unicodedata.normalize("NFC", prompt)
        prompt_ids = self._encode(prompt, special=True)
        if not prompt_ids:
            if self.start_id is None:
                raise ModelConfigurationError(
                    "empty prompt and the tokenizer has no BOS/EOS token to start from",
                    path=self.path,
                )
            prompt_ids = [self.start_id]
            prompt = ""
        conts = []
        for option in options:
            whole = self._encode(prompt + unicodedata.normalize("NFC", option), special=True)
            cont = whole[len(prompt_ids) :] if prompt else whole
            if not cont:
                raise ValueError(f"option {option!r} has no tokens after the prompt")
            conts.append(cont)
        return prompt_ids, conts

    # ---------------------------------------------------------------- option scoring
    def score_options(
        self,
        items: Sequence[tuple[str, Sequence[str]]],
        *,
        batch_size: int = 8,
        groups: Sequence[Hashable] | None = None,
    ) -> list[OptionScores]:
        """Σ log P(option tokens | prompt) and token counts for every option of every item.

        ``groups`` (one hashable per item, e.g. runs.py ``item_prompt``'s (template,
        instruction language, item language, *shots)) says which items share a prompt prefix;
        without it the items are grouped automatically (see ``_auto_groups``). Per group the
        shared prefix is the token-level longest common prefix of its members' prompt ids,
        shortened by one token when it is a whole prompt (every item keeps >= 1 suffix token).
        A group shares it when it has >= 2 items and the prefix has >= ``min_shared_prefix``
        tokens; the other items are scored with their whole prompts, as one pool. Batches are
        length-sorted within each group (longest suffix first) and back off on GPU
        out-of-memory (worker/engines/backoff.py; the smaller size is kept for later calls).
        """
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if groups is not None and len(groups) != len(items):
            raise ValueError(f"{len(groups)} groups for {len(items)} items")
        # Identical prompts are scored once, with the union of their options (lm-eval, too,
        # computes identical requests once); `where` maps every item back.
        unique: dict[tuple[int, ...], int] = {}
        encoded: list[tuple[list[int], list[list[int]]]] = []
        unique_groups: list[Hashable] = []
        where: list[tuple[int, list[int]]] = []
        for index, (prompt, options) in enumerate(items):
            ids, conts = self._split(prompt, options)
            u = unique.setdefault(tuple(ids), len(encoded))
            if u == len(encoded):
                encoded.append((ids, []))
                unique_groups.append(groups[index] if groups is not None else None)
            known = encoded[u][1]
            for cont in conts:
                if cont not in known:
                    known.append(cont)
            where.append((u, [known.index(cont) for cont in conts]))
        prompts = [ids for ids, _ in encoded]
        if groups is None:
            members = self._auto_groups(prompts)
        else:
            by_group: dict[Hashable, list[int]] = {}
            for index, group in enumerate(unique_groups):
                by_group.setdefault(group, []).append(index)
            members = list(by_group.values())
        plan: list[tuple[tuple[int, ...], list[int]]] = []
        unshared: list[int] = []
        for indices in members:
            shared = _shared_prefix([prompts[i] for i in indices])
            if len(indices) >= 2 and len(shared) >= self.min_shared_prefix:
                plan.append((shared, indices))
            else:
                unshared.extend(indices)
        if unshared:
            plan.append(((), unshared))

        results: list[OptionScores | None] = [None] * len(encoded)
        for shared, indices in plan:
            prefix = self._prefix(shared, n_items=len(indices)) if shared else None
            length = len(prefix[0]) if prefix else 0
            # Longest suffixes first: batches of similar length waste less padding (as lm-eval).
            order = sorted(indices, key=lambda i: -len(prompts[i]))
            size = min(batch_size, self._batch_cap or batch_size)
            scored, used = map_batches(
                lambda chunk, prefix=prefix, length=length: self._score_batch(
                    [encoded[i] for i in chunk], prefix=prefix, length=length
                ),
                order,
                batch_size=size,
            )
            if used < size:  # out of memory at `size`: later batches and calls stay below it
                self._batch_cap = used
            for index, scores in zip(order, scored, strict=True):
                results[index] = scores
        return [
            OptionScores(tuple(results[u].options[j] for j in picks))  # type: ignore[union-attr]
            for u, picks in where
        ]

    def _auto_groups(self, prompts: list[list[int]]) -> list[list[int]]:
        """Groups for ``groups=None``: the prompts sorted by their token ids, cut wherever two
        neighbours share fewer than ``min_shared_prefix`` tokens. Items with different
        instructions (templates) fall into different groups, each sharing its own prefix;
        prompts that start with their own text (no instruction) share nothing. Callers that
        know the structure (two-shot examples) pass ``groups`` and get the longer prefixes."""
        order = sorted(range(len(prompts)), key=prompts.__getitem__)
        members: list[list[int]] = []
        for previous, index in zip([None, *order], order, strict=False):
            if (
                previous is None
                or len(_shared_prefix([prompts[previous], prompts[index]])) < self.min_shared_prefix
            ):
                members.append([index])
            else:
                members[-1].append(index)
        return members

    def _prefix(self, shared: tuple[int, ...], *, n_items: int):
        """(prefix ids, its key/value cache at batch 1) for a group; computed once and kept in
        a small LRU (``max_cached_prefixes``), so a run that scores one group over many calls
        computes it once. A kept prefix that is a common prefix of the group's prompts is
        reused when the extra suffix tokens it leaves (per item) cost less than computing the
        group's own, longer prefix again."""
        import torch

        kept = [k for k in self._prefixes if len(k) <= len(shared) and shared[: len(k)] == k]
        best = max(kept, key=len, default=None)
        if best is not None and (
            best == shared or (len(shared) - len(best)) * n_items <= len(shared)
        ):
            self._prefixes.move_to_end(best)
            return best, self._prefixes[best]

        def prefix_pass(batch: list[tuple[int, ...]]) -> list:
            with torch.inference_mode():
                out = self.model(
                    input_ids=torch.tensor(batch, dtype=torch.long, device=self.device),
                    use_cache=True,
                    logits_to_keep=1,
                )
            return [out.past_key_values]

        # Through the back-off at batch 1: out of memory here is the clear error, not a crash.
        (cache,), _ = map_batches(prefix_pass, [shared], batch_size=1)
        self._prefixes[shared] = cache
        while len(self._prefixes) > self.max_cached_prefixes:
            self._prefixes.popitem(last=False)
        return shared, cache

    def _batch_cache(self, cache, rows: int):
        """A new cache holding the prefix's keys/values for ``rows`` items (one copy per row;
        the kept batch-1 cache is never written: DynamicLayer.update concatenates)."""
        from transformers import DynamicCache

        return DynamicCache(
            ddp_cache_data=[
                (
                    keys.expand(rows, -1, -1, -1),
                    values.expand(rows, -1, -1, -1),
                    *([sliding] if sliding is not None else []),
                )
                for keys, values, sliding in cache
            ]
        )

    def _score_batch(
        self,
        batch: list[tuple[list[int], list[list[int]]]],
        *,
        prefix=None,
        length: int = 0,
    ) -> list[OptionScores]:
        """One batch of items: their prompt suffixes (the tokens after the group's shared
        prefix of ``length`` tokens, or whole prompts without a prefix) in one pass, then all
        their options in a second pass on a copy of each item's cache."""
        import torch

        device = self.device
        n = len(batch)
        suffixes = [ids[length:] for ids, _ in batch]
        prompt_lens = [len(ids) for ids, _ in batch]
        s_max = max(len(s) for s in suffixes)
        # Suffixes are LEFT-padded so every prompt ends at the last column: the first pass keeps
        # the logits of that column only (logits_to_keep=1), not prompt x vocabulary floats.
        s_ids = torch.full((n, s_max), self.pad_id, dtype=torch.long)
        s_mask = torch.zeros((n, s_max), dtype=torch.long)
        for row, ids in enumerate(suffixes):
            s_ids[row, s_max - len(ids) :] = torch.tensor(ids)
            s_mask[row, s_max - len(ids) :] = 1
        rows = [(item, cont) for item, (_, conts) in enumerate(batch) for cont in conts]
        o_max = max(len(cont) for _, cont in rows)
        o_ids = torch.full((len(rows), o_max), self.pad_id, dtype=torch.long)
        o_mask = torch.zeros((len(rows), o_max), dtype=torch.long)
        for row, (_, cont) in enumerate(rows):
            o_ids[row, : len(cont)] = torch.tensor(cont)
            o_mask[row, : len(cont)] = 1
        owner = torch.tensor([item for item, _ in rows], dtype=torch.long)
        # Options continue from each prompt's true length.
        positions = torch.tensor([prompt_lens[item] for item, _ in rows]).unsqueeze(
            1
        ) + torch.arange(o_max)
        s_ids, s_mask, o_ids, o_mask = (t.to(device) for t in (s_ids, s_mask, o_ids, o_mask))
        owner, positions = owner.to(device), positions.to(device)
        ones = torch.ones((n, length), dtype=torch.long, device=device)
        p_mask = torch.cat([ones, s_mask], dim=1)  # prefix | suffix padding

        with torch.inference_mode():
            first = self.model(
                input_ids=s_ids,
                attention_mask=p_mask,
                position_ids=length + (torch.cumsum(s_mask, 1) - 1).clamp(min=0),
                past_key_values=self._batch_cache(prefix[1], n) if prefix else None,
                use_cache=True,
                logits_to_keep=1,
            )
            cache = first.past_key_values
            # The distribution after each prompt's last real token, one row per option.
            head = first.logits[owner, -1].float().log_softmax(-1)  # (rows, vocab)
            cache.reorder_cache(owner)
            second = self.model(
                input_ids=o_ids,
                attention_mask=torch.cat([p_mask[owner], o_mask], dim=1),
                position_ids=positions,
                past_key_values=cache,
                use_cache=True,
            )
            # Position t of the option pass predicts option token t + 1.
            tail = second.logits[:, :-1].float().log_softmax(-1)
            first_lp = head.gather(1, o_ids[:, :1]).squeeze(1)
            rest_lp = tail.gather(2, o_ids[:, 1:].unsqueeze(-1)).squeeze(-1) * o_mask[:, 1:]
            # Summed in float64: a float32 sum near -50 rounds to 4e-6 steps.
            sums = (first_lp.double() + rest_lp.double().sum(1)).tolist()

        scores: list[list[OptionScore]] = [[] for _ in batch]
        for row, (item, cont) in enumerate(rows):
            scores[item].append(OptionScore(sum_logprob=float(sums[row]), n_tokens=len(cont)))
        return [OptionScores(tuple(s)) for s in scores]

    # ---------------------------------------------------------------- sentences
    def sentence_logprob(
        self, texts: Sequence[str], *, batch_size: int = 16
    ) -> list[tuple[float, int]]:
        """(Σ log P(token | BOS, preceding tokens), number of tokens) per text. The start token
        (BOS, else EOS) conditions the first token, so every token of the text is scored."""
        import torch

        encoded = []
        for text in texts:
            ids = self._encode(unicodedata.normalize("NFC", text), special=False)
            if self.start_id is not None:
                ids = [self.start_id, *ids]
            encoded.append(ids)
        out: list[tuple[float, int]] = []
        for start in range(0, len(encoded), batch_size):
            chunk = encoded[start : start + batch_size]
            width = max(len(ids) for ids in chunk)
            ids_t = torch.full((len(chunk), width), self.pad_id, dtype=torch.long)
            mask = torch.zeros((len(chunk), width), dtype=torch.long)
            for row, ids in enumerate(chunk):
                ids_t[row, : len(ids)] = torch.tensor(ids)
                mask[row, : len(ids)] = 1
            ids_t, mask = ids_t.to(self.device), mask.to(self.device)
            with torch.inference_mode():
                logits = self.model(input_ids=ids_t, attention_mask=mask).logits
                lp = logits[:, :-1].float().log_softmax(-1)
                token_lp = lp.gather(2, ids_t[:, 1:].unsqueeze(-1)).squeeze(-1) * mask[:, 1:]
                sums = token_lp.sum(1).tolist()
            out.extend((float(s), len(ids) - 1) for s, ids in zip(sums, chunk, strict=True))
        return out

    # ---------------------------------------------------------------- provenance
    def weights_sha256(self) -> str:
        """SHA-256 over the weight files (name + bytes, sorted by name); computed once."""
        if self._weights_sha256 is None:
            digest = hashlib.sha256()
            for file in sorted(p for p in self.path.iterdir() if p.suffix in WEIGHT_SUFFIXES):
                digest.update(file.name.encode())
                with file.open("rb") as fh:
                    for block in iter(lambda: fh.read(1 << 20), b""):
                        digest.update(block)
            self._weights_sha256 = digest.hexdigest()
        return self._weights_sha256

    def model_info(self) -> dict:
        config = self.model.config
        revision = getattr(config, "_commit_hash", None)
        if revision is None and self.path.parent.name == "snapshots":
            revision = self.path.name  # a Hugging Face cache snapshot directory
        return {
            "kind": "causal_lm",
            "name": self.path.name,
            "path": str(self.path),
            "architecture": (getattr(config, "architectures", None) or [type(self.model).__name__])[
                0
            ],
            "revision": revision,
            "sha256": self.weights_sha256(),
            "dtype": self.dtype,
            "device": str(self.device),
            "parameters": sum(p.numel() for p in self.model.parameters()),
        }
