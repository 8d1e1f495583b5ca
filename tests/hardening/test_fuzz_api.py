"""A bounded schemathesis run over the whole OpenAPI schema, once with a researcher token and
once with an annotator token (issue 7, item 4): zero 5xx and zero schema violations.

The requests go through the real WSGI application (middleware, authentication, throttles,
PostgreSQL) in this process; writes commit (transactional_db), so a request that breaks the
database state shows up in the ones after it. The demo catalog is loaded first so that list
and detail operations have real rows to return. Each persona's run stops generating after
FUZZ_SECONDS (whatever it reached is then reported and checked)."""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections import Counter

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

pytestmark = [pytest.mark.django_db(transaction=True, serialized_rollback=True)]

FUZZ_SECONDS = float(os.environ.get("KASAUTI_FUZZ_SECONDS", "70"))
EXAMPLES = int(os.environ.get("KASAUTI_FUZZ_EXAMPLES", "12"))
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


class Tally:
    def __init__(self) -> None:
        self.requests = 0
        self.server_errors = 0
        self.violations: Counter[str] = Counter()
        self.examples: dict[str, str] = {}
        self.operations = 0

    def line(self, persona: str) -> str:
        return (
            f"schemathesis {persona}: {self.operations} operations, {self.requests} requests, "
            f"{self.server_errors} 5xx, {sum(self.violations.values())} schema violations"
        )


class TimeUp(Exception):
    """Stops hypothesis from generating more cases once the time share is spent."""


def has_input(operation) -> bool:
    """Whether there is anything to make invalid (no parameters and no body: nothing)."""
    return bool(operation.path_parameters or operation.query or operation.headers or operation.body)


def fuzz_operation(operation, mode, *, headers: dict, deadline: float, tally: Tally) -> None:
    """Up to EXAMPLES generated requests for one operation, until `deadline`."""
    from schemathesis.core.failures import FailureGroup

    calls = 0

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case) -> None:
        nonlocal calls
        # This operation's share of the time is spent; but every operation and mode gets
        # at least one request, however slow the machine.
        if calls and time.monotonic() > deadline:
            raise TimeUp
        calls += 1
        response = case.call(headers=headers)
        tally.requests += 1
        if response.status_code >= 500:
            tally.server_errors += 1
        try:
            case.validate_response(response, checks=CHECKS, headers=headers)
        except FailureGroup as group:
            for failure in group.exceptions:
                key = f"{operation.label}: {failure.title}"
                tally.violations[key] += 1
                tally.examples.setdefault(key, f"{response.status_code} {case.as_curl_command()}")

    # Unsatisfiable: the operation has no invalid variant to generate (nothing to break).
    with contextlib.suppress(Unsatisfiable, TimeUp):
        run()


def openapi_operations(openapi: dict) -> list[tuple[str, str]]:
    methods = {"get", "post", "put", "patch", "delete"}
    return [(m, path) for path, item in openapi["paths"].items() for m in item if m in methods]


def fuzz(openapi: dict, token: str, seconds: float) -> Tally:
    schema = schemathesis.openapi.from_dict(openapi)
    schema.app = get_wsgi_application()  # as schemathesis.openapi.from_wsgi does
    headers = {"Authorization": f"Token {token}"}
    tally = Tally()
    operations = [result.ok() for result in schema.get_all_operations()]
    end = time.monotonic() + seconds
    for index, operation in enumerate(operations):
        now = time.monotonic()
        # Every operation gets an equal share of the time left, so a slow one cannot starve
        # the ones after it; valid and invalid input split it.
        share = max(0.0, end - now) / (len(operations) - index)
        tally.operations += 1
        halfway, done = now + share / 2, now + share
        fuzz_operation(
            operation, GenerationMode.POSITIVE, headers=headers, deadline=halfway, tally=tally
        )
        if has_input(operation):
            fuzz_operation(
                operation, GenerationMode.NEGATIVE, headers=headers, deadline=done, tally=tally
            )
    return tally


@pytest.fixture(scope="module")
def openapi() -> dict:
    """The schema as clients get it from /api/schema/ (generated once, JSON round-tripped)."""
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.renderers import OpenApiJsonRenderer

    document = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(document))


@pytest.fixture
def demo_catalog(db):
    from apps.catalog.demo import demo_load

    demo_load()


@pytest.fixture
def rare_states(demo_catalog, researcher, settings, tmp_path):
    """Rows in the states random requests rarely produce, so that the responses that show
    them are checked against the schema too: a run with no release, job or creator (null
    fields), a job nobody started by hand, findings to page through, a Table 3 (a list), and
    a release made by no one (a command) with its files (one download per format, each with
    its own media type)."""
    from apps.catalog.models import Dataset, Finding
    from apps.catalog.services import dataset_instantiate
    from apps.core.services import job_create
    from apps.evaluation.models import EvaluationRun, RunKind
    from apps.releases.models import ContentMode
    from apps.releases.services import release_create

    settings.MEDIA_ROOT = tmp_path / "media"
    dataset = Dataset.objects.order_by("pk").first()
    dataset_instantiate(dataset=dataset)
    release = release_create(dataset=dataset, content=ContentMode.AS_PUBLISHED)
    run = EvaluationRun.objects.create(
        kind=RunKind.IMPORTED, dataset=dataset, model_label="made elsewhere"
    )
    job = job_create(kind="instantiate", params={"dataset_id": dataset.pk}, title="by cron")
    for index in range(3):
        Finding.objects.create(
            dataset=dataset, file="demo.csv", line=index + 2, kind="likely-mislabel", message="x"
        )
    template = dataset.templates.order_by("pk").first()
    return {
        "dataset": dataset.pk,
        "release": release.pk,
        "run": run.pk,
        "job": job.pk,
        "template": template.pk,
        # Every stored file by kind and format: the tables and the documents (README.md,
        # card.json, CITATION.cff, changelog.json), each served with its own media type.
        "files": sorted(release.files.values_list("kind", "format")),
    }


def rare_state_cases(states: dict) -> list[tuple[str, str, dict, dict]]:
    """(path, method, path parameters, query) reaching each rare state."""
    cases = [
        ("/api/evaluation/runs/", "GET", {}, {}),
        ("/api/evaluation/runs/{id}/", "GET", {"id": states["run"]}, {}),
        ("/api/jobs/", "GET", {}, {}),
        ("/api/jobs/{id}/", "GET", {"id": states["job"]}, {}),
        ("/api/templates/{id}/", "GET", {"id": states["template"]}, {}),
        ("/api/releases/", "GET", {}, {}),
        ("/api/releases/{id}/", "GET", {"id": states["release"]}, {}),
        ("/api/releases/{id}/hub/", "GET", {"id": states["release"]}, {}),
        ("/api/findings/", "GET", {}, {"limit": 2}),
        ("/api/findings/", "GET", {}, {"limit": 2, "offset": 2}),
        ("/api/annotation/datasets/{id}/table3/", "GET", {"id": states["dataset"]}, {}),
        (
            "/api/annotation/datasets/{id}/table3/",
            "GET",
            {"id": states["dataset"]},
            {"format": "csv"},
        ),
    ]
    cases += [
        (
            "/api/releases/{id}/export/",
            "GET",
            {"id": states["release"]},
            {"kind": kind, "format": fmt},
        )
        for kind, fmt in states["files"]
    ]
    return cases


def test_the_schema_holds_in_states_random_requests_rarely_reach(openapi, rare_states, researcher):
    """Each response that shows a rare state, checked with the fuzz run's checks."""
    from schemathesis.core.failures import FailureGroup

    schema = schemathesis.openapi.from_dict(openapi)
    schema.app = get_wsgi_application()
    headers = {"Authorization": f"Token {Token.objects.get(user=researcher).key}"}
    # jsonl, csv, parquet at least, and the documents
    assert len({fmt for _, fmt in rare_states["files"]}) >= 3 + 3, rare_states
    problems = []
    for path, method, path_parameters, query in rare_state_cases(rare_states):
        case = schema[path][method].Case(path_parameters=path_parameters, query=query)
        response = case.call(headers=headers)
        assert response.status_code == 200, (path, query, response.status_code)
        try:
            case.validate_response(response, checks=CHECKS, headers=headers)
        except FailureGroup as group:
            problems += [f"{path} {query}: {failure.title}" for failure in group.exceptions]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("persona", ["researcher", "annotator"])
def test_schemathesis_finds_no_5xx_and_no_schema_violations(
    request, openapi, demo_catalog, rare_states, persona
):
    user = request.getfixturevalue(persona)
    token = Token.objects.get(user=user).key
    start = time.monotonic()
    tally = fuzz(openapi, token, FUZZ_SECONDS)
    elapsed = time.monotonic() - start
    report = tally.line(persona) + f" in {elapsed:.0f} s"
    details = "\n".join(
        f"  {key} x{n}: {tally.examples[key]}" for key, n in tally.violations.items()
    )
    print("\n" + report + "\n" + details)
    assert tally.operations == len(openapi_operations(openapi)), report
    assert tally.requests >= 2 * tally.operations - 10, report  # a few have no invalid form
    assert tally.server_errors == 0, report + "\n" + details
    assert not tally.violations, report + "\n" + details
