"""The releases app's own sections of the dataset card (apps/releases/registry.py, issue 22):
the catalog's facts (summary, composition, concepts and their evidence, the adaptation,
findings still open), the researcher's own texts, and the changelog's section (written by
apps/releases/changelog.py). Translation, annotation and the survey app register theirs from
their own ready().

Each section is a pair: `facts` reads the database (and the release's files just written, in
`context.directory`) and returns plain JSON; `render` writes Markdown from those facts alone.
The composition is grouped by pyarrow from the instances.parquet just written (four columns),
and the template versions are found by one query with a probe per version: never a loop over
instances, so the card stays a small share of a release's time at 400,000 instances.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone

from apps.catalog.adaptation_report import (
    CULTURALLY_TRANSFORMED,
    NEWLY_CREATED,
    SAMPLE_REMOVED,
    SIMPLY_TRANSFERRED,
    TARGET_MODIFIED,
    TO_DO,
    adaptation_report,
)
from apps.catalog.models import (
    LANGUAGE_NAMES,
    ContextCondition,
    EvidenceReference,
    Finding,
    Instance,
    StereotypeConcept,
    TemplateVersion,
)
from apps.catalog.services.dataset_card import HUB_LICENSES

from .card import markdown_table, md_text, release_instance_cells, release_layout
from .changelog import CHANGES_SECTION
from .content import KIND_LABELS, exclusion_lines
from .models import TABLE_KINDS, ContentMode
from .registry import CardContext, CardSection, card_section_register

# What a content mode means, in the card's words.
CONTENT_NOTES = {
    ContentMode.REVIEWED: "only what passed review: instances of approved template versions "
    "(a translation also passed the back-translation check or was corrected by a person), "
    "tuples voted stereotypical, context sets whose sentences passed social-science review",
    ContentMode.AS_PUBLISHED: "every live row of the dataset, whatever its review state",
}
CONDITION_LABELS = dict(ContextCondition.choices)
NOUN_TYPES = {True: "proper name", False: "common noun"}


def _language(code: str) -> str:
    name = LANGUAGE_NAMES.get(code)
    return f"{name} ({code})" if name else code


# --- summary -------------------------------------------------------------------------------


def summary_facts(context: CardContext) -> dict[str, Any]:
    release = context.release
    dataset = release.dataset
    counts = release.counts or {}
    totals = {kind: counts.get("total" if kind == "instances" else kind, 0) for kind in TABLE_KINDS}
    if counts.get("context_sentences"):
        totals["context_sentences"] = counts["context_sentences"]
    return {
        "dataset": dataset.name,
        "pretty_name": dataset.pretty_name or dataset.name,
        "description": dataset.description.strip(),
        "release": release.number,
        "date": timezone.localtime(release.created_at).date().isoformat(),
        "content": release.content,
        "license": dataset.license or "unknown",
        "totals": totals,
        "excluded": exclusion_lines(counts),
    }


def summary_render(facts: dict[str, Any]) -> str:
    license_id = facts["license"]
    known = HUB_LICENSES.get(license_id)
    if license_id == "unknown":
        licence = "unknown: no licence has been chosen for this dataset yet"
    else:
        licence = f"`{license_id}`" + (f" ({known.label})" if known else "")
    out = [
        f"Release {facts['release']} of **{md_text(facts['pretty_name'])}** "
        f"(Kasauti dataset `{facts['dataset']}`), made on {facts['date']}.",
        "",
        md_text_block(facts["description"])
        or "_No description has been written for this dataset yet._",
        "",
        f"- Content: {facts['content'].replace('_', ' ')}: "
        f"{CONTENT_NOTES.get(facts['content'], '')}.",
        f"- Licence: {licence}.",
        "",
        markdown_table(
            ["Kind", "Rows"],
            [[KIND_LABELS.get(kind, kind), n] for kind, n in facts["totals"].items()],
            numeric=(1,),
        ),
    ]
    if facts["excluded"]:
        out += [
            "Left out of this release by review:",
            "",
            *(f"- {line['kind']}: {line['n']:,} ({line['reason']})" for line in facts["excluded"]),
        ]
    return "\n".join(out) + "\n"


def md_text_block(text: str) -> str:
    """A researcher's or importer's text, kept as Markdown (paragraphs, lists, emphasis).
    Raw HTML in it is escaped on the release page (markdown-it, html off) and sanitised by
    the Hub; the text is not rewritten here so it reads as its author wrote it."""
    return text.strip()


# --- composition ---------------------------------------------------------------------------


def released_template_versions(*, release: Any) -> list[tuple[int, int, int | None, Any]]:
    """(version id, template id, concept id, placeholder_sources) of the template versions
    with an instance in `release`. One probe per version of the dataset (a few thousand at
    most) through the instance_identity index, not a scan of the membership: a release's
    members are live instances when it is made (retired_at is null), which is the index's
    condition."""
    in_release = Instance.objects.filter(
        template_version_id=OuterRef("pk"),
        retired_at__isnull=True,
        memberships__release_id=release.pk,
    )
    return list(
        TemplateVersion.objects.filter(template__dataset_id=release.dataset_id)
        .filter(Exists(in_release))
        .order_by("pk")
        .values_list("pk", "template_id", "concept_id", "placeholder_sources")
    )


def composition_facts(context: CardContext) -> dict[str, Any] | None:
    path = context.directory / "instances.parquet"
    cells = release_instance_cells(path=path) if path.exists() else []
    other_kinds = release_layout(
        directory=context.directory, kinds=tuple(k for k in TABLE_KINDS if k != "instances")
    )
    if not cells and not other_kinds:
        return None
    versions = released_template_versions(release=context.release) if cells else []
    vocabularies: Counter[tuple[str, str]] = Counter()
    for *_ids, sources in versions:
        vocabularies.update(
            {
                (str(spec["vocabulary"]), str(spec.get("language", "")))
                for spec in (sources or {}).values()
                if isinstance(spec, dict) and spec.get("vocabulary")
            }
        )
    return {
        "instances": {
            "total": sum(n for *_key, n in cells),
            "rows": [
                {
                    "category": category,
                    "language": language,
                    "context_condition": condition,
                    "noun_type": NOUN_TYPES[proper],
                    "instances": n,
                }
                for category, language, condition, proper, n in cells
            ],
        },
        "templates": len({template for _v, template, _c, _s in versions}),
        "template_versions": len(versions),
        "concepts": len({concept for _v, _t, concept, _s in versions if concept is not None}),
        "vocabularies": [
            {"name": name, "language": language, "template_versions": n}
            for (name, language), n in sorted(vocabularies.items())
        ],
        "other_kinds": other_kinds,
    }


def composition_render(facts: dict[str, Any]) -> str:
    out: list[str] = []
    instances = facts["instances"]
    if instances["total"]:
        columns = [
            (condition, noun)
            for condition in CONDITION_LABELS
            for noun in NOUN_TYPES.values()
            if any(
                r["context_condition"] == condition and r["noun_type"] == noun
                for r in instances["rows"]
            )
        ]
        table: dict[tuple[str, str], dict[tuple[str, str], int]] = defaultdict(dict)
        for r in instances["rows"]:
            table[r["category"], r["language"]][r["context_condition"], r["noun_type"]] = r[
                "instances"
            ]
        rows = [
            [category, _language(language), *(cells.get(c, 0) for c in columns)]
            + [sum(cells.values())]
            for (category, language), cells in sorted(table.items())
        ]
        totals = [sum(row[i] for row in rows) for i in range(2, len(columns) + 3)]
        out += [
            "### Instances",
            "",
            f"{instances['total']:,} instances, by category and language (rows) and by context "
            "condition and noun type (columns: whether the groups are named by proper names or "
            "by common nouns).",
            "",
            markdown_table(
                [
                    "Category",
                    "Language",
                    *(f"{CONDITION_LABELS.get(c, c)}, {noun}" for c, noun in columns),
                    "Total",
                ],
                [*rows, ["All", "", *totals]],
                numeric=tuple(range(2, len(columns) + 3)),
            ),
            "### Templates, concepts and vocabularies",
            "",
            f"- Templates: {facts['templates']:,} ({facts['template_versions']:,} template "
            "versions) behind the released instances.",
            f"- Stereotype concepts linked to those template versions: {facts['concepts']:,}.",
        ]
        vocabularies = facts["vocabularies"]
        if vocabularies:
            out += [
                "- Vocabularies the template versions drew their values from:",
                "",
                markdown_table(
                    ["Vocabulary", "Language", "Template versions"],
                    [[v["name"], v["language"], v["template_versions"]] for v in vocabularies],
                    numeric=(2,),
                ),
            ]
        else:
            out += ["- Vocabularies: none (the values were written in the templates).", ""]
    for kind, by_category in facts["other_kinds"].items():
        rows = [
            [category, _language(language), n]
            for category, by_language in sorted(by_category.items())
            for language, n in sorted(by_language.items())
        ]
        out += [
            f"### {KIND_LABELS.get(kind, kind)}",
            "",
            markdown_table(
                ["Category", "Language", "Rows"],
                [*rows, ["All", "", sum(r[2] for r in rows)]],
                numeric=(2,),
            ),
        ]
    return "\n".join(out)


# --- collection: concepts and their evidence -----------------------------------------------


def evidence_facts(context: CardContext) -> dict[str, Any] | None:
    if not (context.directory / "instances.parquet").exists():
        return None  # no instances, so no templates and no concepts behind them
    versions = released_template_versions(release=context.release)
    if not versions:
        return None  # no template behind the release (instances imported from files)
    concept_ids = {concept for _v, _t, concept, _s in versions if concept is not None}
    live = EvidenceReference.objects.filter(concept_id__in=concept_ids).exclude(
        validation_status=EvidenceReference.Validation.REJECTED
    )
    by_kind = {
        kind: {"concepts": n_concepts, "references": n_references}
        for kind, n_concepts, n_references in live.values_list("kind")
        .annotate(Count("concept", distinct=True), Count("pk"))
        .order_by("kind")
    }
    with_evidence = set(live.values_list("concept_id", flat=True).distinct())
    by_source = dict(
        StereotypeConcept.objects.filter(pk__in=concept_ids)
        .values_list("source")
        .annotate(Count("pk"))
        .order_by("source")
    )
    validated = StereotypeConcept.objects.filter(
        pk__in=concept_ids, validation_status=StereotypeConcept.Validation.VALIDATED
    ).count()
    return {
        "concepts": len(concept_ids),
        "validated": validated,
        "by_source": by_source,
        "evidence_by_kind": by_kind,
        "without_evidence": len(concept_ids - with_evidence),
        "rejected_references": EvidenceReference.objects.filter(
            concept_id__in=concept_ids, validation_status=EvidenceReference.Validation.REJECTED
        ).count(),
    }


def evidence_render(facts: dict[str, Any]) -> str:
    if not facts["concepts"]:
        return (
            "### Stereotype concepts and their evidence\n\n"
            "No stereotype concept is linked to the released template versions.\n"
        )
    kinds = dict(EvidenceReference.Kind.choices)
    sources = dict(StereotypeConcept._meta.get_field("source").choices)
    out = [
        "### Stereotype concepts and their evidence",
        "",
        f"{facts['concepts']:,} stereotype concepts are linked to the released template "
        f"versions; {facts['validated']:,} of them are validated.",
        "",
        markdown_table(
            ["Concept source", "Concepts"],
            [[sources.get(source, source), n] for source, n in facts["by_source"].items()],
            numeric=(1,),
        ),
    ]
    if facts["evidence_by_kind"]:
        out += [
            "Evidence references attesting them, by type (rejected references left out; a "
            "concept with references of several types counts under each):",
            "",
            markdown_table(
                ["Evidence type", "Concepts", "References"],
                [
                    [kinds.get(kind, kind), row["concepts"], row["references"]]
                    for kind, row in facts["evidence_by_kind"].items()
                ],
                numeric=(1, 2),
            ),
        ]
    out.append(
        f"Concepts with no evidence reference (other than rejected ones): "
        f"{facts['without_evidence']:,}. Rejected references: "
        f"{facts['rejected_references']:,}."
    )
    return "\n".join(out) + "\n"


# --- collection: adaptation of a source benchmark ------------------------------------------

ADAPTATION_LABELS = {
    SIMPLY_TRANSFERRED: "Simply transferred",
    TARGET_MODIFIED: "Target modified",
    CULTURALLY_TRANSFORMED: "Culturally transformed",
    SAMPLE_REMOVED: "Sample removed",
    TO_DO: "Not decided yet",
    NEWLY_CREATED: "Newly created",
}


def adaptation_facts(context: CardContext) -> dict[str, Any] | None:
    dataset = context.release.dataset
    if dataset.adapted_from_id is None:
        return None
    # The adaptation report's own figures (EsBBQ Table 1), not a second count.
    return adaptation_report(dataset=dataset).as_dict()


def adaptation_render(facts: dict[str, Any]) -> str:
    outcomes = [key for key in facts["total"] if key != NEWLY_CREATED]
    rows = [
        [category, *(counts.get(key, 0) for key in outcomes)]
        for category, counts in facts["by_category"].items()
    ]
    out = [
        "### Adaptation of the source benchmark",
        "",
        f"This dataset adapts **{md_text(facts['source'])}**. Its source templates, by source "
        "category and what became of each (units counted as in EsBBQ's Table 1):",
        "",
        markdown_table(
            ["Source category", *(ADAPTATION_LABELS.get(k, k) for k in outcomes)],
            [*rows, ["All", *(facts["total"][k] for k in outcomes)]],
            numeric=tuple(range(1, len(outcomes) + 1)),
        ),
    ]
    if facts["newly_created"]:
        out += [
            f"Templates newly created for this dataset: {facts['total'][NEWLY_CREATED]:,}.",
            "",
            markdown_table(
                ["Target category", "Newly created"],
                [[c, n] for c, n in facts["newly_created"].items()],
                numeric=(1,),
            ),
        ]
    else:
        out.append("No template was newly created for this dataset.\n")
    return "\n".join(out)


# --- findings still open -------------------------------------------------------------------


def findings_facts(context: CardContext) -> dict[str, Any] | None:
    findings = Finding.objects.filter(dataset_id=context.release.dataset_id)
    totals = findings.aggregate(
        total=Count("pk"), open=Count("pk", filter=Q(status=Finding.Status.OPEN))
    )
    if not totals["total"]:
        return None  # nothing was ever found (not an imported benchmark): nothing to say
    open_by_kind = dict(
        findings.filter(status=Finding.Status.OPEN)
        .values_list("kind")
        .annotate(Count("pk"))
        .order_by("kind")
    )
    return {"total": totals["total"], "open": totals["open"], "open_by_kind": open_by_kind}


def findings_render(facts: dict[str, Any]) -> str:
    if not facts["open"]:
        return (
            f"All {facts['total']:,} findings raised when the published data was imported "
            "have been reviewed (accepted or resolved); none is open.\n"
        )
    return (
        f"{facts['open']:,} of the {facts['total']:,} findings raised when the published data "
        "was imported (deviations from clean data: a defect to review, not a rejection) are "
        "still open, by kind:\n\n"
        + markdown_table(
            ["Kind", "Open"], [[k, n] for k, n in facts["open_by_kind"].items()], numeric=(1,)
        )
    )


# --- the researcher's own texts ------------------------------------------------------------

# Dataset field -> (card part, what is missing when it is empty).
TEXT_SECTIONS = {
    "card_uses": ("uses", "the uses this dataset is meant for, and those it is not"),
    "card_limitations": ("limitations", "the dataset's limitations and known biases"),
    "card_ethics": ("ethics", "the ethical considerations"),
    "card_citation": ("citation", "how to cite this dataset"),
}


def _text_facts(field: str):
    def facts(context: CardContext) -> dict[str, Any]:
        return {"field": field, "text": getattr(context.release.dataset, field).strip()}

    facts.__name__ = f"{field}_facts"
    return facts


def text_render(facts: dict[str, Any]) -> str:
    field, text = facts["field"], facts["text"]
    if not text:
        _part, missing = TEXT_SECTIONS[field]
        body = (
            f"_Not written yet: the researchers have not described {missing}. "
            "(Kasauti: the dataset's card form; the next release carries it.)_"
        )
    elif field == "card_citation" and text.startswith("@"):
        # A BibTeX entry: kept verbatim in a code block, as Hub cards show citations.
        fence = "````" if "```" in text else "```"
        body = f"{fence}bibtex\n{text}\n{fence}"
    else:
        body = md_text_block(text)
    if field == "card_citation":
        body += (
            "\n\nCITATION.cff, beside this card, gives the release's title, version, date, "
            "authors and licence in the Citation File Format."
        )
    return body + "\n"


def _text_section(field: str, order: int) -> CardSection:
    part, _missing = TEXT_SECTIONS[field]
    return CardSection(
        name=field.removeprefix("card_"),
        part=part,
        order=order,
        facts=_text_facts(field),
        render=text_render,
    )


SUMMARY_SECTION = CardSection(
    name="summary", part="summary", order=10, facts=summary_facts, render=summary_render
)
COMPOSITION_SECTION = CardSection(
    name="composition",
    part="composition",
    order=10,
    facts=composition_facts,
    render=composition_render,
)
EVIDENCE_SECTION = CardSection(
    name="evidence", part="collection", order=20, facts=evidence_facts, render=evidence_render
)
ADAPTATION_SECTION = CardSection(
    name="adaptation",
    part="collection",
    order=30,
    facts=adaptation_facts,
    render=adaptation_render,
)
FINDINGS_SECTION = CardSection(
    name="findings", part="findings", order=10, facts=findings_facts, render=findings_render
)
TEXT_SECTIONS_REGISTERED = tuple(
    _text_section(field, order=10) for field in TEXT_SECTIONS
)  # in Dataset.CARD_TEXT_FIELDS order, one part each

SECTIONS = (
    SUMMARY_SECTION,
    COMPOSITION_SECTION,
    EVIDENCE_SECTION,
    ADAPTATION_SECTION,
    FINDINGS_SECTION,
    *TEXT_SECTIONS_REGISTERED,
    CHANGES_SECTION,
)


def register() -> None:
    """Called from ReleasesConfig.ready()."""
    for section in SECTIONS:
        card_section_register(section)
