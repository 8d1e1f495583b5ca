"""What the annotation app tells a release's dataset card (apps/releases/registry.py,
issue 22): the "Annotation" part, from the workbench's own figures
(apps/annotation/selectors_release.py), rendered from those facts alone."""

from __future__ import annotations

from typing import Any

from apps.releases.registry import CardContext, CardSection, card_section_register

from .selectors_release import release_annotation_facts

TABLE3_COLUMNS = ("F1", "F2", "A1", "A2")


def _facts(context: CardContext) -> dict[str, Any] | None:
    return release_annotation_facts(release=context.release)


def _cell(value: Any) -> str:
    """A Markdown table cell: pipes escaped, one line."""
    return " ".join(str(value).split()).replace("|", "\\|")


def _number(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _statistic(cell: dict[str, Any]) -> str:
    """A statistic's value, or "undefined" with the reason (never a made-up number)."""
    if cell.get("undefined"):
        return f"undefined ({_cell(cell.get('reason', ''))})"
    return _number(cell.get("value"))


def render(facts: dict[str, Any]) -> str:
    """Markdown from the facts alone (the card is rebuilt from card.json)."""
    campaigns = facts["campaigns"]
    lines = [
        "### Annotation campaigns",
        "",
        f"{len(campaigns):,} campaign(s) on this dataset; {facts['annotators']:,} "
        "annotator(s) gave judgements (people are counted, never named).",
        "",
        "| Campaign | Kind | Status | Language | Items | Annotators | Judgements |",
        "|---|---|---|---|---:|---:|---:|",
    ]
    for c in campaigns:
        lines.append(
            f"| {_cell(c['name'])} | {_cell(c['kind_label'])} | {c['status']} | "
            f"{c['language'] or '—'} | {c['items']:,} | {c['annotators_judged']:,} of "
            f"{c['annotators_assigned']:,} | {c['judgements']:,} |"
        )
    agreement = [(c, field, cell) for c in campaigns for field, cell in c["agreement"].items()]
    if agreement:
        lines += [
            "",
            "### Agreement",
            "",
            "Per judged criterion: the statistic (Cohen's κ for two annotators per item, "
            "quadratic-weighted for 1–5 scores), raw agreement (the share of items on which "
            "the annotators gave the same answer) and the items both judged.",
            "",
            "| Campaign | Criterion | Statistic | Value | Raw agreement | Items |",
            "|---|---|---|---:|---:|---:|",
        ]
        for c, field, cell in agreement:
            lines.append(
                f"| {_cell(c['name'])} | {_cell(cell.get('field_label') or field)} | "
                f"{_cell(cell['label'])} | {_statistic(cell)} | "
                f"{_number(cell.get('observed_agreement'))} | {cell['n_items']:,} |"
            )
    blocks = [block for block in facts["table3"] if block["rows"]]
    if blocks:
        lines += [
            "",
            "### Translation quality (BharatBBQ Table 3)",
            "",
            "Mean fluency (F1, F2) and adequacy (A1, A2) of the two annotators on a 1–5 scale, "
            "over the contexts (ctx), questions (qn) and both (combined) that both scored, "
            "with quadratic-weighted Cohen's κ. " + _cell(facts["table3_annotator_rule"]),
            "",
            "| Row | Items | " + " | ".join(TABLE3_COLUMNS) + " | Adequacy κw | Fluency κw |",
            "|---|---:|" + "---:|" * len(TABLE3_COLUMNS) + "---:|---:|",
        ]
        for block in blocks:
            for row in block["rows"]:
                means = " | ".join(_number(row["means"].get(c), 2) for c in TABLE3_COLUMNS)
                lines.append(
                    f"| {_cell(row['name'])} | {row['n_items']:,} | {means} | "
                    f"{_statistic(row['adequacy_kappa'])} | {_statistic(row['fluency_kappa'])} |"
                )
    return "\n".join(lines) + "\n"


SECTION = CardSection(name="annotation", part="annotation", order=10, facts=_facts, render=render)


def register() -> None:
    """Called from the app's ready()."""
    card_section_register(SECTION)
