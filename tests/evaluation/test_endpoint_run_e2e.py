"""End to end: one BBQ-style run scored with the tiny GPT-2 locally and the same run scored
through a registered endpoint model whose server (tests/support_openai_server.py, the OpenAI
completions protocol in a thread on 127.0.0.1) scores with that same model. The endpoint run
makes the same prediction on every item, with log-likelihoods equal to 1e-4, and its requests
went several at a time, several prompts per request (KASAUTI_EVAL_ENDPOINT_CONCURRENCY and
KASAUTI_EVAL_ENDPOINT_BATCH)."""

from __future__ import annotations

import pytest

pytest.importorskip("worker.engines.lm_scorer")

from apps.evaluation.models import ModelEntry, ModelKind, Prediction  # noqa: E402
from apps.evaluation.services.runs import run_create  # noqa: E402
from tests.evaluation.bbq_data import bbq_release  # noqa: E402
from tests.evaluation.run_jobs import run_job_execute  # noqa: E402
from tests.support_openai_server import OpenAICompletionsServer  # noqa: E402

pytestmark = pytest.mark.django_db


def _progress(done: int, total: int | None = None) -> None:
    pass


@pytest.fixture(scope="module")
def server(tiny_gpt2_dir):
    # Each request waits (at most 0.25 s) for a second one: a client sending several at once
    # is seen doing so whatever the machine's load.
    with OpenAICompletionsServer(
        tiny_gpt2_dir, model_name="tiny-gpt2-served", gather=2, gather_wait=0.25
    ) as s:
        yield s


@pytest.mark.parametrize("shots", [0, 2])
def test_an_endpoint_run_predicts_what_the_local_run_predicts(
    server, tiny_gpt2_dir, settings, shots
):
    server.reset()
    settings.KASAUTI_EVAL_ENDPOINT_HOSTS = [f"127.0.0.1:{server.port}"]
    settings.KASAUTI_EVAL_ENDPOINT_CONCURRENCY = 4
    settings.KASAUTI_EVAL_ENDPOINT_BATCH = 4
    release = bbq_release()  # 2 categories x English and Hindi x 4 = 16 items
    local_model = ModelEntry.objects.create(
        name="tiny-gpt2", kind=ModelKind.CAUSAL_LM, path=str(tiny_gpt2_dir)
    )
    served = ModelEntry.objects.create(
        name="tiny-gpt2 (served)",
        kind=ModelKind.ENDPOINT,
        endpoint_url=f"{server.url}/v1",
        endpoint_model="tiny-gpt2-served",
    )
    local = run_create(release=release, model=local_model, shots=shots, batch_size=16)
    remote = run_create(release=release, model=served, shots=shots, batch_size=16)
    run_job_execute(run=local, progress=_progress)
    run_job_execute(run=remote, progress=_progress)
    local.refresh_from_db()
    remote.refresh_from_db()
    assert local.status == remote.status == "complete"
    assert remote.prompt_example == local.prompt_example
    assert remote.model_info["kind"] == "endpoint"
    assert remote.model_info["url"] == f"{server.url}/v1/completions"

    mine = {p.instance_id: p for p in Prediction.objects.filter(run=local)}
    theirs = {p.instance_id: p for p in Prediction.objects.filter(run=remote)}
    assert len(mine) == 16 and mine.keys() == theirs.keys()
    for instance_id, p in mine.items():
        q = theirs[instance_id]
        assert q.chosen == p.chosen, instance_id
        assert q.n_tokens == p.n_tokens
        assert q.sum_logprobs == pytest.approx(p.sum_logprobs, abs=1e-4)
        assert q.mean_logprobs == pytest.approx(p.mean_logprobs, abs=1e-4)
    assert remote.results["overall"] == local.results["overall"]
    # Every option of every item was asked for once (the two categories share their texts).
    asked = [r["prompt"] for r in server.requests]
    texts = [t for prompt in asked for t in ([prompt] if isinstance(prompt, str) else prompt)]
    assert len(texts) == 16 * 3 and len(set(texts)) == 8 * 3
    assert set(server.statuses) == {200}

    # The run's endpoint settings (KASAUTI_EVAL_ENDPOINT_CONCURRENCY, _BATCH) reach the scorer:
    # several requests in flight at once (never more than the setting), several prompts in a
    # request.
    sizes = [len(r["prompt"]) if isinstance(r["prompt"], list) else 1 for r in server.requests]
    assert (1 < server.max_in_flight <= 4, max(sizes)) == (True, 4), (
        f"in flight at most {server.max_in_flight}, prompts per request {sorted(set(sizes))}"
    )
