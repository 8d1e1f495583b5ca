"""Fixtures of the translation tests.

Unit tests replace the models with a deterministic fake (`fake_engines`) and drive the job
in-process, message by message (`inline_queue`), so that redelivery and crashes can be staged
exactly. End-to-end tests use tiny real CTranslate2 models, the real MiniLM embedder, Redis and
a real Celery worker process.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from apps.catalog.models import Dataset
from apps.catalog.services import dataset_instantiate
from apps.translation import engines, services
from tests.factories import DatasetFactory, TemplateVersionFactory
from tests.workers import WorkerProcess
from worker.engines.tiny import build_tiny_indictrans2

FAKE_VERSIONS = engines.ModelVersions(forward="fwd-1", backward="bwd-1", embedder="emb-1")


@dataclass
class FakeEngines:
    """Translation = the upper-cased text; similarity 0.5 for texts containing
    "forgotten", else 0.9. `answers` maps an exact source text to a forced translation."""

    calls: list[tuple[str, list[str]]] = field(default_factory=list)
    answers: dict[str, str] = field(default_factory=dict)

    @property
    def strings_translated(self) -> int:
        return sum(len(texts) for _, texts in self.calls)

    def translate_texts(self, *, job, language: str, texts: list[str]):
        self.calls.append((language, list(texts)))
        return [
            (
                self.answers.get(text, text.upper()),
                text,
                0.5 if "forgotten" in text else 0.9,
            )
            for text in texts
        ]


@pytest.fixture
def fake_engines(monkeypatch) -> FakeEngines:
    fake = FakeEngines()
    monkeypatch.setattr(engines, "model_versions", lambda: FAKE_VERSIONS)
    monkeypatch.setattr(services, "translate_texts", fake.translate_texts)
    return fake


@dataclass
class InlineQueue:
    """Stands in for the broker: dispatches are recorded, `drain` runs them in order."""

    messages: list[tuple[str, int]] = field(default_factory=list)

    def drain(self, *, limit: int = 10_000, skip: Callable[[str, int], bool] | None = None):
        ran = 0
        while self.messages and ran < limit:
            kind, ident = self.messages.pop(0)
            if skip and skip(kind, ident):
                continue
            {
                "start": lambda i: services.translation_job_start(job_id=i),
                "chunk": lambda i: services.translation_chunk_run(chunk_id=i),
                "assemble": lambda i: services.translation_job_assemble(job_id=i),
            }[kind](ident)
            ran += 1
        return ran


@pytest.fixture
def inline_queue(monkeypatch) -> InlineQueue:
    queue = InlineQueue()
    monkeypatch.setattr(services, "_dispatch_start", lambda i: queue.messages.append(("start", i)))
    monkeypatch.setattr(
        services,
        "_dispatch_chunks",
        lambda ids: queue.messages.extend(("chunk", i) for i in ids),
    )
    monkeypatch.setattr(
        services, "_dispatch_assemble", lambda i: queue.messages.append(("assemble", i))
    )
    return queue


def make_dataset(*, templates: int = 1, distinct: bool = False) -> Dataset:
    """An instantiated dataset of `templates` factory templates (16 instances each). With
    `distinct`, each template has its own names, so fewer strings are shared."""
    dataset = DatasetFactory()
    for n in range(templates):
        extra = {}
        if distinct and n:
            extra["placeholders"] = {
                "NAME1": [f"farmer{n}", f"teacher{n}"],
                "NAME2": [f"doctor{n}", f"nurse{n}"],
            }
            extra["ambiguous_context"] = (
                f"In village {n}, a {{{{NAME1}}}} and a {{{{NAME2}}}} were waiting."
            )
        TemplateVersionFactory(template__dataset=dataset, **extra)
    dataset_instantiate(dataset=dataset)
    return dataset


@pytest.fixture(scope="session")
def tiny_model_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("translation_models")
    # eos_bias keeps random decoders short, so chunks take milliseconds.
    return {
        direction: build_tiny_indictrans2(root / direction, direction, eos_bias=4.0, seed=3)
        for direction in ("en-indic", "indic-en")
    }


class TranslationWorker(WorkerProcess):
    """A worker with the tiny models, small chunks and a short Redis visibility timeout."""

    def __init__(self, *, models: dict[str, Path], extra_env: dict[str, str], **kwargs) -> None:
        super().__init__(**kwargs)
        self.models = models
        self.extra_env = extra_env

    def env(self) -> dict[str, str]:
        env = super().env()
        env.update(
            DJANGO_SETTINGS_MODULE="kasauti.settings.test",
            KASAUTI_BROKER_RESTORE_INTERVAL="1",
            KASAUTI_INDICTRANS2_EN_INDIC_DIR=str(self.models["en-indic"]),
            KASAUTI_INDICTRANS2_INDIC_EN_DIR=str(self.models["indic-en"]),
            KASAUTI_EMBEDDER_DIR="",
            KASAUTI_DEVICE="cpu",
            # Longer than any task, model loading included: a message whose task is still
            # running must not be restored (with kombu 5.7 that stalled the consumer here).
            KASAUTI_BROKER_VISIBILITY_TIMEOUT="25",
            # Few threads: CI has two cores and the test process polls meanwhile.
            OMP_NUM_THREADS="1",
            **self.extra_env,
        )
        return env


@pytest.fixture
def translation_worker(django_db_serialized_rollback, transactional_db, tmp_path, tiny_model_dirs):
    """Factory of real worker processes (all stopped at the end), on the test database."""
    from tests.workers import purge_test_broker

    purge_test_broker()
    workers: list[TranslationWorker] = []

    def start(**extra_env: str) -> TranslationWorker:
        worker = TranslationWorker(
            models=tiny_model_dirs,
            extra_env=extra_env,
            log=tmp_path / f"worker{len(workers)}.log",
        )
        workers.append(worker)
        return worker.start(timeout=90)

    yield start
    for worker in workers:
        worker.stop()
