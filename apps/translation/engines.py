"""The model engines as a worker process uses them: configured from settings.KASAUTI_MODELS,
loaded once per process and kept (loading IndicTrans2 takes seconds to minutes; a chunk must not
pay for it).

`model_versions()` is the cheap part the orchestrator needs: it validates the directories and
computes the cache keys without loading any weights, so a missing model fails the job before
anything is written.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from worker.engines import embedder as embedder_module
from worker.engines import translator as translator_module
from worker.engines.embedder import Embedder
from worker.engines.translator import Translator

EN_INDIC = "indictrans2_en_indic"
INDIC_EN = "indictrans2_indic_en"

# (kind, path, device, compute_type) -> loaded engine. Per process: a prefork child loads its
# own copy on first use, as CUDA contexts cannot be shared across fork anyway.
_loaded: dict[tuple[str, str, str, str], Any] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class ModelVersions:
    forward: str
    backward: str
    embedder: str


def _config() -> dict[str, str]:
    return settings.KASAUTI_MODELS


def embedder_path() -> Path:
    configured = _config().get("embedder") or ""
    return Path(configured) if configured else embedder_module.default_model_path()


def embedder_version(path: Path) -> str:
    """Cache key of an embedding model: its MODEL_VERSION file if present, else a digest of its
    configuration and the size of its weights (cheap, and stable across machines)."""
    root = embedder_module.validate_model_dir(path)
    pinned = root / translator_module.VERSION_FILE
    if pinned.is_file():
        return pinned.read_text(encoding="utf-8").strip()
    digest = hashlib.sha256()
    for name in ("modules.json", "config.json", "model.safetensors", "pytorch_model.bin"):
        file = root / name
        if not file.is_file():
            continue
        digest.update(name.encode())
        if name.endswith(".json"):
            digest.update(file.read_bytes())
        else:
            digest.update(str(file.stat().st_size).encode())
    return f"{root.name}-{digest.hexdigest()[:12]}"


def model_versions() -> ModelVersions:
    """Validate the configured model directories and return their cache keys. Raises
    ModelConfigurationError (naming the path and the README section) when one is unusable."""
    config = _config()
    forward = translator_module.validate_model_dir(config[EN_INDIC])
    backward = translator_module.validate_model_dir(config[INDIC_EN])
    return ModelVersions(
        forward=translator_module.compute_model_version(forward),
        backward=translator_module.compute_model_version(backward),
        embedder=embedder_version(embedder_path()),
    )


def translator(kind: str) -> Translator:
    """The en->indic (EN_INDIC) or indic->en (INDIC_EN) translator of this process."""
    config = _config()
    key = (kind, str(config[kind]), config.get("device", "auto"), config.get("compute_type", ""))
    with _lock:
        if key not in _loaded:
            _loaded[key] = Translator(key[1], device=key[2], compute_type=key[3] or "default")
        return _loaded[key]


def embedder() -> Embedder:
    config = _config()
    key = ("embedder", str(embedder_path()), config.get("device", "auto"), "")
    with _lock:
        if key not in _loaded:
            _loaded[key] = Embedder(key[1], device=key[2])
        return _loaded[key]


def clear_cache() -> None:
    """Forget loaded engines (tests that change the configuration)."""
    with _lock:
        _loaded.clear()
