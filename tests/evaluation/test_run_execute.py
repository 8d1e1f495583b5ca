"""A BBQ-style run executed in-process on a tiny random GPT-2: prompts, option scores,
idempotent resumable writes, partial status, metrics."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("worker.engines.lm_scorer")
pytest.importorskip("apps.evaluation.metrics.bbq")

from apps.core.services import JobCancelled, job_resume  # noqa: E402
from apps.evaluation.models import ModelEntry, ModelKind, Prediction  # noqa: E402
from apps.evaluation.services.runs import run_create  # noqa: E402
from tests.evaluation.bbq_data import bbq_release  # noqa: E402
from tests.evaluation.run_jobs import run_job_execute  # noqa: E402

pytestmark = pytest.mark.django_db


class Recorder:
    def __init__(self, stop_after: int | None = None) -> None:
        self.calls: list[tuple[int, int | None]] = []
        self.stop_after = stop_after

    def __call__(self, done: int, total: int | None = None) -> None:
        self.calls.append((done, total))
        if self.stop_after is not None and done >= self.stop_after:
            raise JobCancelled(0)


def _naive_option_logprobs(path, prompt: str, option: str) -> tuple[float, int]:
    """Reference: one full forward pass of prompt + option, no cache, no batching."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path).eval()
    prompt_ids = tokenizer(prompt)["input_ids"]
    option_ids = tokenizer(prompt + option)["input_ids"][len(prompt_ids) :]
    ids = torch.tensor([prompt_ids + option_ids])
    with torch.no_grad():
        logits = model(ids).logits.log_softmax(-1)[0]
    total = sum(logits[len(prompt_ids) + i - 1, token].item() for i, token in enumerate(option_ids))
    return total, len(option_ids)


@pytest.fixture
def one_batch_windows(monkeypatch):
    """Progress (and a cancel) is seen after each window of WINDOW_BATCHES batches handed to
    the scorer at once; one batch per window here, so the tests see every batch."""
    from apps.evaluation.services import runs

    monkeypatch.setattr(runs, "WINDOW_BATCHES", 1)


@pytest.fixture
def model(tiny_gpt2_dir):
    return ModelEntry.objects.create(
        name="tiny-gpt2", kind=ModelKind.CAUSAL_LM, path=str(tiny_gpt2_dir)
    )


def test_every_item_is_scored_and_the_metrics_stored(
    model, tiny_gpt2_dir, settings, one_batch_windows
):
    release = bbq_release()  # 2 categories x 2 languages x 4 = 16 items
    run = run_create(release=release, model=model, batch_size=5)
    progress = Recorder()
    result = run_job_execute(run=run, progress=progress)
    run.refresh_from_db()
    assert run.status == "complete" and result["predictions"] == 16
    assert progress.calls[0] == (0, 16) and progress.calls[-1] == (16, 16)
    assert [done for done, _ in progress.calls] == [0, 5, 10, 15, 16]
    predictions = list(Prediction.objects.filter(run=run).select_related("instance"))
    assert len(predictions) == 16
    for p in predictions:
        assert len(p.mean_logprobs) == 3 and len(p.sum_logprobs) == 3
        assert p.chosen == max(range(3), key=lambda i: p.mean_logprobs[i])
        for i in range(3):
            assert p.mean_logprobs[i] == pytest.approx(p.sum_logprobs[i] / p.n_tokens[i])
    # The stored prompt is exactly BharatBBQ's layout with the first item filled in.
    first = min(predictions, key=lambda p: p.instance_id).instance
    assert run.prompt_example.startswith("You are given a scenario-based context")
    assert f"Context: {first.context}\n\nQuestion: {first.question}" in run.prompt_example
    assert run.prompt_example.endswith("The correct answer is:")
    # Option scores agree with a plain forward pass (the prompt's cache reuse changes nothing).
    p0 = next(p for p in predictions if p.instance_id == first.pk)
    for i, answer in enumerate(first.answers):
        total, n = _naive_option_logprobs(tiny_gpt2_dir, run.prompt_example, " " + answer)
        assert p0.sum_logprobs[i] == pytest.approx(total, abs=1e-3) and p0.n_tokens[i] == n
    # Metrics: counts per group and the six figures present (values or null with a reason).
    overall = run.results["overall"]
    assert overall["n_amb"] == 8 and overall["n_dis"] == 8
    assert set(run.results["by_category"]) == {"Caste", "Religion"}
    cells = {(r["category"], r["language"]) for r in run.results["by_category_language"]}
    assert cells == {("Caste", "en"), ("Caste", "hi"), ("Religion", "en"), ("Religion", "hi")}
    assert set(run.results["by_noun_type"]) == {"common"}
    assert run.model_info  # name, revision, weights hash, dtype, device from the engine
    json.dumps(run.results)  # stored as JSON


def test_a_stopped_run_is_partial_and_resuming_scores_only_the_rest(model, one_batch_windows):
    release = bbq_release(languages=("en",))  # 8 items
    run = run_create(release=release, model=model, batch_size=3)
    with pytest.raises(JobCancelled):
        run_job_execute(run=run, progress=Recorder(stop_after=3))
    run.refresh_from_db()
    assert run.status == "partial" and run.results == {}
    first_batch = {p.instance_id: p.mean_logprobs for p in Prediction.objects.filter(run=run)}
    assert len(first_batch) == 3
    job_resume(job=run.job)  # the job page's resume button (its task is sent after commit)
    progress = Recorder()
    run_job_execute(run=run, progress=progress)
    run.refresh_from_db()
    assert run.status == "complete"
    assert progress.calls[0] == (3, 8)  # resumed where it stopped
    assert Prediction.objects.filter(run=run).count() == 8  # no duplicates
    kept = {p.instance_id: p.mean_logprobs for p in Prediction.objects.filter(run=run)}
    assert all(kept[pk] == value for pk, value in first_batch.items())
    # Running the finished job again (a redelivered message) changes nothing.
    run_job_execute(run=run, progress=Recorder())
    assert Prediction.objects.filter(run=run).count() == 8


def test_two_shot_prompts_carry_two_solved_examples_in_the_item_language(model):
    release = bbq_release(languages=("hi",), categories=("Caste", "Religion"))
    run = run_create(release=release, model=model, shots=2, instruction_language="target")
    run_job_execute(run=run, progress=Recorder())
    run.refresh_from_db()
    prompt = run.prompt_example
    assert prompt.startswith("आपको एक परिदृश्य-आधारित संदर्भ")
    assert prompt.count("सही उत्तर है:") == 3  # two solved examples + the item
    assert run.status == "complete" and Prediction.objects.filter(run=run).count() == 8


def test_a_model_directory_removed_after_creation_fails_the_run_with_its_path(model, tmp_path):
    release = bbq_release(languages=("en",))
    run = run_create(release=release, model=model)
    ModelEntry.objects.filter(pk=model.pk).update(path=str(tmp_path / "moved"))
    run.refresh_from_db()
    from apps.core.errors import KasautiError

    with pytest.raises(KasautiError, match=str(tmp_path / "moved")):
        run_job_execute(run=run, progress=Recorder())
    run.refresh_from_db()
    assert run.status == "failed" and str(tmp_path / "moved") in run.error


def test_an_endpoint_that_never_answers_fails_the_run_without_results(settings):
    """A real local HTTP server that sleeps past the timeout (in-process; the worker variant is
    in test_run_jobs.py)."""
    import http.server
    import threading
    import time

    from apps.core.errors import KasautiError

    release_event = threading.Event()

    class Sleepy(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            release_event.wait(5)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Sleepy)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings.KASAUTI_EVAL_ENDPOINT_TIMEOUT = 0.3
    settings.KASAUTI_EVAL_ENDPOINT_HOSTS = ["127.0.0.1"]
    settings.KASAUTI_EVAL_ENDPOINT_RETRIES = 1
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        entry = ModelEntry.objects.create(
            name="remote", kind=ModelKind.ENDPOINT, endpoint_url=url, endpoint_model="m"
        )
        run = run_create(release=bbq_release(languages=("en",)), model=entry)
        started = time.monotonic()
        with pytest.raises(KasautiError, match="did not answer") as caught:
            run_job_execute(run=run, progress=Recorder())
        assert time.monotonic() - started < 10
        assert "127.0.0.1" in str(caught.value) or "timed out" in str(caught.value).lower()
    finally:
        release_event.set()
        server.shutdown()
        server.server_close()
    run.refresh_from_db()
    assert run.status == "failed" and "did not answer" in run.error
    assert run.results == {} and not Prediction.objects.filter(run=run).exists()


def test_the_scorer_gets_windows_of_several_batches(model, monkeypatch):
    """Items go to the scorer WINDOW_BATCHES batches at a time (the prefix a group of items
    shares is computed once per window), and progress moves after each window."""
    from apps.evaluation.services import runs

    monkeypatch.setattr(runs, "WINDOW_BATCHES", 2)
    release = bbq_release(copies=2)  # 32 items
    run = run_create(release=release, model=model, batch_size=5)
    progress = Recorder()
    run_job_execute(run=run, progress=progress)
    assert [done for done, _ in progress.calls] == [0, 10, 20, 30, 32]
