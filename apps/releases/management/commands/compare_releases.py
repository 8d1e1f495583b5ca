"""python manage.py compare_releases --dataset NAME A B [--json]

What changed between releases number A and B of a dataset (apps/releases/changelog.py):
instances added, removed and changed, by category and language, each with its reason, and the
other kinds. A table by default, the changelog dict with --json. A and B in either order: the
changes always read from the older release to the newer one, and the output says so when B is
the older."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from apps.catalog.models import Dataset
from apps.core.errors import KasautiError
from apps.releases.changelog import release_compare


class Command(BaseCommand):
    help = "Compare two releases of a dataset: instances added, removed and changed, and why."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--dataset", required=True, help="Dataset name.")
        parser.add_argument("first", type=int, help="Release number A.")
        parser.add_argument("second", type=int, help="Release number B.")
        parser.add_argument("--json", action="store_true", help="Print the changelog as JSON.")

    def handle(self, *args, dataset: str, first: int, second: int, json: bool, **options):
        try:
            target = Dataset.objects.get(name=dataset)
        except Dataset.DoesNotExist as exc:
            raise CommandError(f"no dataset named {dataset!r}") from exc
        try:
            changelog = release_compare(dataset=target, first=first, second=second)
        except KasautiError as exc:
            raise CommandError(str(exc)) from exc
        if json:
            self.stdout.write(_json_dumps(changelog))
            return
        for line in changelog_table(changelog, dataset=target.name):
            self.stdout.write(line)


def _json_dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


def _table(header: list[str], rows: list[list], numeric_from: int) -> list[str]:
    """A plain text table: columns as wide as their widest cell, numbers right-aligned."""
    cells = [header] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]

    def line(row: list[str]) -> str:
        return "  ".join(
            cell.rjust(widths[i]) if i >= numeric_from else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ).rstrip()

    return [line(cells[0]), "  ".join("-" * w for w in widths), *map(line, cells[1:])]


def changelog_table(changelog: dict, *, dataset: str) -> list[str]:
    older, newer = changelog["against"]["number"], changelog["release"]["number"]
    lines = [f"{dataset}: release {older} -> release {newer}"]
    if changelog.get("reversed"):
        lines.append(
            f"(asked for {changelog['requested']['from']} -> {changelog['requested']['to']}: "
            f"release {newer} is the newer one, so changes read from release {older} to "
            f"release {newer})"
        )
    totals = changelog["totals"]
    lines.append(
        f"instances: {totals['added']:,} added, {totals['removed']:,} removed, "
        f"{totals['changed']:,} changed, {totals['unchanged']:,} unchanged"
        + (
            f" ({totals['renewed']:,} written again with the same text)"
            if totals.get("renewed")
            else ""
        )
    )
    cells = changelog["by_category_language"]
    if cells:
        lines += ["", "By category and language:"]
        lines += _table(
            ["category", "language", "added", "removed", "changed"],
            [[c["category"], c["language"], c["added"], c["removed"], c["changed"]] for c in cells],
            numeric_from=2,
        )
    if changelog["reasons"]:
        lines += ["", "Why:"]
        lines += _table(
            ["change", "reason", "instances", "examples (old -> new: detail)"],
            [
                [
                    entry["change"],
                    entry["label"],
                    entry["n"],
                    "; ".join(_example(e) for e in entry["examples"][:2]),
                ]
                for entry in changelog["reasons"]
            ],
            numeric_from=2,
        )
    if changelog["other_kinds"]:
        lines += ["", "Other kinds:"]
        lines += _table(
            ["kind", "added", "removed", "changed", "unchanged"],
            [
                [n.get("label", kind), n["added"], n["removed"], n["changed"], n["unchanged"]]
                for kind, n in changelog["other_kinds"].items()
            ],
            numeric_from=1,
        )
    for note in changelog.get("notes") or []:
        lines += ["", f"note: {note}"]
    return lines


def _example(example: dict) -> str:
    ids = " -> ".join(
        "-" if example[side] is None else f"#{example[side]}" for side in ("old", "new")
    )
    return f"{ids}: {example['detail']}" if example.get("detail") else ids
