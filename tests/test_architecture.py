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


def _view_transactions() -> list[str]:
    """Transactions belong in services: pages and APIs do not import django.db.transaction."""
    problems = []
    for path in _sources("apps"):
        if not (path.name.startswith("api") or path.name == "views.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module == "django.db"
                and any(alias.name == "transaction" for alias in node.names)
            ):
                problems.append(f"{path.relative_to(ROOT)}:{node.lineno}: imports transaction")
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
