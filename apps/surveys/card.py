"""What the surveys app tells a release's dataset card (apps/releases/registry.py,
issue 22): the survey funnel in the "Collection process" part, when the released concepts came
from a participatory survey (apps/surveys/selectors_release.py), rendered from the facts
alone."""

from __future__ import annotations

from typing import Any

from apps.catalog.models import EvidenceReference
from apps.releases.registry import CardContext, CardSection, card_section_register

from .models import Answer
from .selectors_release import release_survey_facts

# Labels of stored values, taken from the models so that card.json keeps the values.
ANSWER_STATUS_LABELS = dict(Answer.Status.choices)
EVIDENCE_LABELS = dict(EvidenceReference.Kind.choices)
STAGES = (
    ("answers", "Answers"),
    ("valid", "Valid stereotypes (answer-to-concept codings)"),
    ("unique", "Unique concepts"),
    ("kept", "Kept (pass the inclusion rule)"),
)


def _facts(context: CardContext) -> dict[str, Any] | None:
    return release_survey_facts(release=context.release)


def _cell(value: Any) -> str:
    """A Markdown table cell: pipes escaped, one line."""
    return " ".join(str(value).split()).replace("|", "\\|")


def render(facts: dict[str, Any]) -> str:
    """Markdown from the facts alone (the card is rebuilt from card.json)."""
    lines: list[str] = []
    for survey in facts["surveys"]:
        questionnaire = survey["questionnaire"]
        answers = survey["answers"]
        concepts = survey["release_concepts"]
        languages = ", ".join(questionnaire["languages"]) or "—"
        lines += [
            f"### Participatory survey `{_cell(survey['slug'])}`",
            "",
            f"Questionnaire: {questionnaire['versions']:,} version(s)"
            + (f", current v{questionnaire['current']}" if questionnaire["current"] else "")
            + f", in {languages}. {survey['respondents']:,} respondent(s) gave "
            f"{sum(answers.values()):,} answer(s): "
            + ", ".join(
                f"{n:,} {ANSWER_STATUS_LABELS.get(status, status).lower()}"
                for status, n in answers.items()
            )
            + ".",
            "",
            "| Stage | Count |",
            "|---|---:|",
            *(f"| {label} | {survey['funnel'][key]:,} |" for key, label in STAGES),
            "",
        ]
        categories = survey["funnel"]["by_category"]
        if categories:
            lines += [
                "| Category | " + " | ".join(key.capitalize() for key, _ in STAGES) + " |",
                "|---|" + "---:|" * len(STAGES),
                *(
                    f"| {_cell(row['category'])} | "
                    + " | ".join(f"{row[key]:,}" for key, _ in STAGES)
                    + " |"
                    for row in categories
                ),
                "",
            ]
        evidence = ", ".join(
            f"{EVIDENCE_LABELS.get(kind, kind).lower()} {n:,}"
            for kind, n in concepts["evidence_by_kind"].items()
        )
        lines += [
            f"{concepts['from_survey']:,} of this release's concepts were coded from the "
            f"survey's answers ({concepts['source_survey']:,} of them have the survey as their "
            "source). Concepts with evidence, by kind: " + (evidence or "none") + ".",
            "",
        ]
    return "\n".join(lines)


SECTION = CardSection(name="survey", part="collection", order=10, facts=_facts, render=render)


def register() -> None:
    """Called from the app's ready()."""
    card_section_register(SECTION)
