"""What the translation app tells a release's dataset card (apps/releases/registry.py,
issue 22): the "Preprocessing" part, read from the review facts of the released translated
instances (apps/translation/selectors_release.py), rendered from those facts alone."""

from __future__ import annotations

from typing import Any

from apps.releases.registry import CardContext, CardSection, card_section_register

from .selectors_release import STATUSES, release_translation_facts


def _facts(context: CardContext) -> dict[str, Any] | None:
    return release_translation_facts(release=context.release)


def _cell(value: Any) -> str:
    """A Markdown table cell: pipes escaped, one line."""
    return " ".join(str(value).split()).replace("|", "\\|")


def _code(value: str) -> str:
    return f"`{_cell(value)}`" if value else "—"


def _threshold(value: float | None) -> str:
    return "not recorded" if value is None else f"{value:g}"


def render(facts: dict[str, Any]) -> str:
    """Markdown from the facts alone (the card is rebuilt from card.json)."""
    names = facts["model_names"]
    lines = [
        "### Machine translation",
        "",
        f"{facts['instances']:,} released instances are machine translations of English "
        f"instances, translated with {names['forward']} and translated back with "
        f"{names['backward']}. Each English string is compared with its back-translation by "
        f"the cosine of their embeddings ({names['embedder']}); a string below the job's "
        "threshold is flagged until a human confirms or corrects it. Each instance carries the "
        "verdict of the job that made it, so a language may list more than one threshold.",
        "",
        "| Language | Instances | Passed | Flagged | Corrected | Threshold (instances) "
        "| Corrections | Correctors |",
        "|---|---:|---:|---:|---:|---|---:|---:|",
    ]
    for language, entry in facts["languages"].items():
        status = entry["status"]
        thresholds = ", ".join(
            f"{_threshold(t['threshold'])} ({t['instances']:,})" for t in entry["thresholds"]
        )
        corrections = entry["corrections"]
        lines.append(
            f"| {_cell(language)} | {entry['instances']:,} | "
            + " | ".join(f"{status.get(name, 0):,}" for name in STATUSES)
            + f" | {thresholds} | {corrections['corrections']:,} | "
            f"{corrections['correctors']:,} |"
        )
    others = {
        name: n
        for entry in facts["languages"].values()
        for name, n in entry["status"].items()
        if name not in STATUSES and n
    }
    if others:
        lines += [
            "",
            "Instances without a pass/flag/correction verdict: "
            + ", ".join(f"{_cell(name)} {n:,}" for name, n in sorted(others.items()))
            + ".",
        ]
    lines += [
        "",
        "Model versions (`MODEL_VERSION`) per language:",
        "",
        f"| Language | {names['forward']} | {names['backward']} | Embedder | Instances |",
        "|---|---|---|---|---:|",
    ]
    demo = False
    for language, entry in facts["languages"].items():
        for model in entry["models"]:
            demo = demo or model["demo"]
            lines.append(
                f"| {_cell(language)} | {_code(model['forward_model_version'])} | "
                f"{_code(model['backward_model_version'])} | "
                f"{_code(model['embedder_version'])} | {model['instances']:,} |"
            )
    if demo:
        lines += [
            "",
            "**Demo models:** some translations come from random-weight demo models; they "
            "show how the pipeline works, not translation quality.",
        ]
    return "\n".join(lines) + "\n"


SECTION = CardSection(
    name="translation", part="preprocessing", order=10, facts=_facts, render=render
)


def register() -> None:
    """Called from the app's ready()."""
    card_section_register(SECTION)
