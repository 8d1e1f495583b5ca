"""The layering of docs/architecture.md, enforced: an import that breaks it fails the suite.

Every import statement is read with `ast`, including those inside functions (a lazy import does
not make an upward import legal)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Layer of each top-level package: a module may import only from strictly lower layers (and its
# own package). Same-layer apps stay independent.
LAYERS = {
    "worker": 0,
    "apps.accounts": 1,
    "apps.core": 2,
    "apps.catalog": 3,
    "apps.releases": 4,
    "apps.translation": 5,
    "apps.annotation": 6,
    "apps.evaluation": 6,
    "apps.surveys": 6,
}


def _package(module: str) -> str | None:
    for name in sorted(LAYERS, key=len, reverse=True):
        if module == name or module.startswith(name + "."):
            return name
    return None


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    module = _module_name(path, root)
    is_package = path.name == "__init__.py"
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
                if node.module is None:  # "from . import x": x may be a module
                    found.extend((node.lineno, f"{target}.{alias.name}") for alias in node.names)
                    continue
            else:
                target = node.module or ""
            found.append((node.lineno, target))
    return found


def _sources(*tops: str, root: Path = ROOT) -> list[Path]:
    return [
        path
        for top in tops
        for path in sorted((root / top).rglob("*.py"))
        if "migrations" not in path.parts
    ]


def _violations(root: Path = ROOT) -> list[str]:
    problems = []
    for path in _sources("apps", "worker", root=root):
        own = _package(_module_name(path, root))
        if own is None:
            continue
        for line, target in _imports(path, root):
            where = f"{path.relative_to(root)}:{line}"
            if own == "worker" and (target.startswith(("django", "apps", "rest_framework"))):
                problems.append(f"{where}: worker/ is plain Python but imports {target}")
                continue
            other = _package(target)
            if other is None or other == own:
                continue
            if LAYERS[other] >= LAYERS[own]:
                problems.append(
                    f"{where}: {own} (layer {LAYERS[own]}) imports {target} "
                    f"(layer {LAYERS[other]}); only lower layers may be imported"
                )
    return problems


def _tasks_imports() -> list[str]:
    """Nothing in apps/ imports a tasks module: services queue work by task name."""
    problems = []
    for path in _sources("apps"):
        if path.name == "tasks.py":
            continue
        for line, target in _imports(path):
            if target.split(".")[-1] == "tasks" or ".tasks." in target:
                problems.append(f"{path.relative_to(ROOT)}:{line}: imports {target}")
    return problems


def _is_page_or_api(path: Path) -> bool:
    """A module serving requests: api.py, api_*.py, views.py, views_*.py, or any module of an
    `api` / `views` package."""
    names = {path.stem, path.parent.name}
    return any(name in ("api", "views") or name.startswith(("api_", "views_")) for name in names)


def _imports_transaction(node: ast.AST) -> bool:
    if isinstance(node, ast.ImportFrom):
        return node.module == "django.db.transaction" or (
            node.module == "django.db" and any(alias.name == "transaction" for alias in node.names)
        )
    return isinstance(node, ast.Import) and any(
        alias.name == "django.db.transaction" for alias in node.names
    )


def _view_transactions(root: Path = ROOT) -> list[str]:
    """Transactions belong in services: pages and APIs neither import django.db.transaction
    nor reach it as `django.db.transaction` / `db.transaction`."""
    problems = []
    for path in _sources("apps", root=root):
        if not _is_page_or_api(path):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(root)}:{getattr(node, 'lineno', 0)}"
            if _imports_transaction(node):
                problems.append(f"{where}: imports transaction")
            elif isinstance(node, ast.Attribute) and node.attr == "transaction":
                problems.append(f"{where}: uses a transaction")
    return problems


# Plain-Python packages inside apps: metric formulas import no Django and no `apps` module, so
# they can be unit-tested and reused (lm-evaluation-harness comparisons) without a project.
PLAIN_PACKAGES = ["apps/evaluation/metrics"]


def _plain_violations(root: Path = ROOT) -> list[str]:
    problems = []
    for top in PLAIN_PACKAGES:
        for path in sorted((root / top).rglob("*.py")):
            for line, target in _imports(path, root):
                if target.split(".")[0] in ("django", "rest_framework", "apps") and not (
                    target.startswith(top.replace("/", "."))
                ):
                    problems.append(
                        f"{path.relative_to(root)}:{line}: {top} is plain Python but imports "
                        f"{target}"
                    )
    return problems


def _service_modules(root: Path) -> list[Path]:
    return [
        path
        for path in _sources("apps", root=root)
        if path.name == "services.py" or path.parent.name == "services"
    ]


def _service_violations(root: Path = ROOT) -> list[str]:
    """Services are typed, keyword-only functions named `<entity>_<action>`: every public
    function defined in a services module takes no positional parameter and has a two-part
    (or longer) snake_case name. A pure helper that is not a service lives elsewhere (a
    selectors or rules module) or is private."""
    problems = []
    for path in _service_modules(root):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if node.name.startswith("_"):
                continue
            where = f"{path.relative_to(root)}:{node.lineno}: {node.name}"
            positional = [arg.arg for arg in node.args.posonlyargs + node.args.args]
            if positional:
                problems.append(f"{where} takes positional {', '.join(positional)}")
            if "_" not in node.name.strip("_"):
                problems.append(f"{where} is not named <entity>_<action>")
            if node.returns is None:
                problems.append(f"{where} has no return annotation")
    return problems


def test_metric_modules_are_plain_python():
    assert _plain_violations() == []


def test_the_plain_check_catches_a_django_import(tmp_path):
    probe = tmp_path / "apps" / "evaluation" / "metrics" / "probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text(
        "from apps.evaluation.metrics import bbq\n"
        "def f():\n    from django.db import models\n    from apps.catalog import models\n",
        encoding="utf-8",
    )
    problems = _plain_violations(root=tmp_path)
    assert len(problems) == 2 and all("plain Python" in p for p in problems), problems


def test_every_app_is_in_a_layer():
    apps = sorted(p.name for p in (ROOT / "apps").iterdir() if (p / "__init__.py").exists())
    missing = [name for name in apps if f"apps.{name}" not in LAYERS]
    assert not missing, f"add these apps to LAYERS (and docs/architecture.md): {missing}"


def test_imports_follow_the_layers():
    assert _violations() == []


def test_services_never_import_tasks():
    assert _tasks_imports() == []


def test_views_and_apis_open_no_transaction():
    assert _view_transactions() == []


@pytest.mark.parametrize(
    ("name", "source"),
    [
        ("views_bias.py", "from django.db import transaction\n"),
        ("api_imports.py", "import django.db.transaction\n"),
        (
            "views.py",
            "from django import db\ndef f():\n    with db.transaction.atomic():\n        pass\n",
        ),
    ],
)
def test_the_transaction_check_reads_every_page_and_api_module(tmp_path, name, source):
    probe = tmp_path / "apps" / "evaluation" / name
    probe.parent.mkdir(parents=True)
    probe.write_text(source, encoding="utf-8")
    problems = _view_transactions(root=tmp_path)
    assert len(problems) == 1 and "transaction" in problems[0], problems


def _unknown_job_tasks(kinds) -> list[str]:
    """The kinds among `kinds` whose `task` no Celery task of the worker's app is called."""
    from worker.celery_app import app

    app.loader.import_default_modules()
    return [f"{kind.name}: {kind.task}" for kind in kinds if kind.task not in app.tasks]


# Run in a fresh process: the kinds the apps register from ready(), and nothing a test module
# registered for itself (tests/core/test_jobs.py's echo kind has no task on purpose).
_APP_KINDS_CHECK = """
import json, django
django.setup()
from apps.core.registry import job_kinds
import tests.test_architecture as arch
kinds = job_kinds()
print(json.dumps({"kinds": len(kinds), "unknown": arch._unknown_job_tasks(kinds)}))
"""


def test_every_job_kind_names_a_registered_task():
    """A JobKind's `task` is sent by name: a typo would only show when a job is queued and no
    worker knows it. Every kind the apps register must name a task the worker's Celery app has."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.setdefault("DJANGO_SETTINGS_MODULE", "kasauti.settings.test")
    done = subprocess.run(
        [sys.executable, "-c", _APP_KINDS_CHECK],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["kinds"] >= 5, "the apps' job kinds are registered from ready()"
    assert found["unknown"] == []


def test_the_task_check_catches_a_misspelt_task():
    from apps.core.registry import JobKind, job_kind_get

    probe = JobKind(name="probe", label="Probe", task="apps.catalog.tasks.nowhere")
    assert _unknown_job_tasks([job_kind_get("instantiate"), probe]) == [
        "probe: apps.catalog.tasks.nowhere"
    ]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from apps.releases.models import Release\n", "apps.catalog (layer 3) imports"),
        ("def f():\n    from apps.translation import services\n", "imports apps.translation"),
    ],
)
def test_the_check_catches_upward_imports(tmp_path, source, expected):
    """The rule can fail: an upward import in a catalog module (even a lazy one) is reported."""
    probe = tmp_path / "apps" / "catalog" / "probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text(source, encoding="utf-8")
    problems = _violations(root=tmp_path)
    assert len(problems) == 1 and expected in problems[0], problems


def test_services_are_typed_keyword_only_entity_action_functions():
    assert _service_violations() == []


def test_the_service_check_catches_positional_and_unnamed_services(tmp_path):
    probe = tmp_path / "apps" / "catalog" / "services" / "probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text(
        "def dataset_create(*, name: str) -> None: ...\n"
        "def _helper(x): ...\n"
        "def dataset_rename(dataset, *, name: str) -> None: ...\n"
        "def start(*, job: int) -> None: ...\n"
        "def job_touch(*, job: int): ...\n",
        encoding="utf-8",
    )
    problems = _service_violations(root=tmp_path)
    assert [p.split(": ", 1)[1] for p in problems] == [
        "dataset_rename takes positional dataset",
        "start is not named <entity>_<action>",
        "job_touch has no return annotation",
    ]
