"""Fixtures of the translation tests.

Every test that translates uses the real engines: tiny random-weight IndicTrans2-shaped
CTranslate2 models (`tiny_model_dirs`) and the real default MiniLM embedder, configured through
settings (`real_engines`). Service tests run them in-process and drive the job message by
message (`inline_queue`), so that redelivery and crashes can be staged exactly; end-to-end tests
run them in a real Celery worker process with Redis.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from apps.catalog.models import Dataset
from apps.catalog.services import dataset_instantiate
from apps.translation import engines, services
from apps.translation.models import ENGLISH_TAG, LANGUAGE_TAGS, TranslationSource
from tests.factories import DatasetFactory, TemplateVersionFactory
from tests.workers import WorkerProcess
from worker.engines.tiny import build_tiny_indictrans2


@dataclass
class InlineQueue:
    """Records the dispatches instead of sending them to the broker; `drain` runs the real task
    bodies (the services the Celery tasks call) in-process, in order, so that lost and
    redelivered messages can be staged exactly."""

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
    """Runs the real task bodies in-process, in order, on `drain`: no broker, no worker."""
    queue = InlineQueue()
    monkeypatch.setattr(
        services.dispatch, "start_send", lambda *, job: queue.messages.append(("start", job.pk))
    )
    monkeypatch.setattr(
        services.dispatch,
        "chunks_send",
        lambda *, job, chunk_ids: queue.messages.extend(("chunk", i) for i in chunk_ids),
    )
    monkeypatch.setattr(
        services.dispatch,
        "assembly_send",
        lambda *, job: queue.messages.append(("assemble", job.pk)),
    )
    return queue


@dataclass
class TranslateSpy:
    """Counts the calls to the real `services.translate_texts` and calls through to it."""

    real: Callable[..., list[tuple[str, str, float]]]
    calls: list[tuple[str, list[str]]] = field(default_factory=list)

    @property
    def strings_translated(self) -> int:
        return sum(len(texts) for _, texts in self.calls)

    def __call__(self, *, job, language: str, texts: list[str]) -> list[tuple[str, str, float]]:
        self.calls.append((language, list(texts)))
        return self.real(job=job, language=language, texts=texts)


@pytest.fixture
def real_engines(settings, tiny_model_dirs: dict[str, Path]) -> dict[str, Path]:
    """The tiny real translation models and the default MiniLM embedder, on the CPU. The
    engines' per-process cache is keyed by path and device, so each loads once per session."""
    settings.KASAUTI_MODELS = {
        "indictrans2_en_indic": str(tiny_model_dirs["en-indic"]),
        "indictrans2_indic_en": str(tiny_model_dirs["indic-en"]),
        "embedder": "",
        "device": "cpu",
        "compute_type": "default",
    }
    return tiny_model_dirs


@pytest.fixture
def translate_spy(monkeypatch, real_engines) -> TranslateSpy:
    spy = TranslateSpy(real=services.chunks.translate_texts)
    monkeypatch.setattr(services.chunks, "translate_texts", spy)
    return spy


def real_scores(texts: list[str], language: str) -> list[float]:
    """What the real engines score `texts` in `language`: the embedder's cosine of each text
    with its back-translation. For choosing thresholds inside the real scores."""
    tag = LANGUAGE_TAGS[language]
    forward = engines.translator(engines.EN_INDIC).translate(texts, ENGLISH_TAG, tag)
    back = engines.translator(engines.INDIC_EN).translate(forward, tag, ENGLISH_TAG)
    return [float(score) for score in engines.embedder().cosine_pairs(texts, back)]


def threshold_inside(dataset: Dataset, languages: list[str]) -> float:
    """A threshold halfway between the two middle real scores of the dataset's strings, so a
    job with it has strings on both sides. Needs the `real_engines` fixture."""
    texts = services.sources_collect(dataset=dataset, source=TranslationSource.INSTANCES).unique
    scores = sorted(score for language in languages for score in real_scores(texts, language))
    middle = len(scores) // 2
    threshold = (scores[middle - 1] + scores[middle]) / 2
    assert scores[0] < threshold < scores[-1] and 0.0 <= threshold <= 1.0, scores
    return threshold


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
        )
        env.update(self.extra_env)
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
