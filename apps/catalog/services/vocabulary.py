"""Vocabularies (category-level group lists and proper names, with their group labels and,
where the language needs them, definite forms) and the unknown-answer expressions per
language: the writes of the vocabulary editor (docs/studio/vocabulary.md).

A template copies a vocabulary's values when it is saved (`TemplateVersion.placeholders`, the
reference kept in `placeholder_sources`): editing a vocabulary never changes an existing
version; the next edit of a template draws the new values.

Two researchers editing one vocabulary: each save names the token of the list it started from
(`vocabularies.vocabulary_token`); a save based on a list that changed meanwhile is refused
(VocabularyEditConflict, nothing written) with the list as it now is.

History: every save that changes the entries adds a VocabularyRevision of the list it saved
(with the definite forms of `<name>-def`), in the same transaction; the list as it was before,
if no revision records it yet (imported, or made before history was kept), is recorded first,
by nobody. Restoring a revision saves its list again as a new revision: history is never
rewritten."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from apps.core.errors import ConflictError, KasautiError
from apps.core.text import is_language_code, nfc

from ..models import UnknownExpression, Vocabulary, VocabularyEntry, VocabularyRevision
from ..vocabularies import (
    DEFINITE_SUFFIX,
    VocabularyLine,
    definite_name,
    revision_entries,
    revision_lines,
    vocabulary_definite_base,
    vocabulary_definite_partner,
    vocabulary_lines,
    vocabulary_token,
)

_MAX_VALUE = VocabularyEntry._meta.get_field("value").max_length
_MAX_GROUP = VocabularyEntry._meta.get_field("group").max_length
_MAX_NAME = Vocabulary._meta.get_field("name").max_length
_MAX_UNKNOWN = UnknownExpression._meta.get_field("text").max_length


class VocabularyInputError(KasautiError):
    """Bad lines in an edit: `problems` lists (line, message) for each, nothing was written."""

    def __init__(self, problems: list[tuple[int, str]]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"line {line}: {message}" for line, message in problems))


class VocabularyEditConflict(ConflictError):
    """The vocabulary changed after the editor loaded it: nothing was saved. Carries the list
    as it now is and its token, so the page can show what changed."""

    def __init__(self, *, vocabulary: Vocabulary, current: list[VocabularyLine], token: str):
        self.vocabulary, self.current, self.token = vocabulary, current, token
        super().__init__(
            f"{vocabulary.name} ({vocabulary.language}) changed while you edited it: someone "
            "saved it after you opened it. Nothing was saved; the changes are listed, your text "
            "is kept below."
        )


def _clean(value: str) -> str:
    return " ".join(nfc(value).split())


def _language(language: str) -> str:
    language = language.strip()
    if not is_language_code(language):
        raise KasautiError(
            f"language: {language!r} is not a language code (two or three lowercase letters, "
            "e.g. hi, ta, ca)"
        )
    return language


def vocabulary_create(
    *, name: str, language: str, description: str = "", definite_forms: bool = False
) -> Vocabulary:
    """An empty vocabulary (its entries come with the first save); with `definite_forms`, also
    its `<name>-def` partner for the definite forms."""
    name, language, description = _clean(name), _language(language), nfc(description.strip())
    if not name:
        raise KasautiError("name: a vocabulary needs a name")
    if len(name) > _MAX_NAME - len(DEFINITE_SUFFIX):
        raise KasautiError(f"name: at most {_MAX_NAME - len(DEFINITE_SUFFIX)} characters")
    if name.endswith(DEFINITE_SUFFIX):
        raise KasautiError(
            f"name: names ending in {DEFINITE_SUFFIX!r} hold the definite forms of another "
            f"vocabulary; create {name[: -len(DEFINITE_SUFFIX)]!r} with definite forms instead"
        )
    with transaction.atomic():
        if Vocabulary.objects.filter(name=name, language=language).exists():
            raise ConflictError(f"name: a vocabulary {name!r} in {language!r} already exists")
        vocabulary = Vocabulary.objects.create(
            name=name, language=language, description=description
        )
        if definite_forms:
            Vocabulary.objects.create(
                name=definite_name(name),
                language=language,
                description=f"Definite forms of {name}, aligned entry by entry.",
            )
    return vocabulary


def _checked(lines: Sequence[VocabularyLine], *, definite: bool) -> list[VocabularyLine]:
    """The lines normalised (NFC, spaces collapsed; an empty group is the value), or
    VocabularyInputError naming every bad line."""
    problems: list[tuple[int, str]] = []
    seen: dict[str, int] = {}
    clean = []
    for index, raw in enumerate(lines, start=1):
        number = raw.line or index
        value, group, form = _clean(raw.value), _clean(raw.group), _clean(raw.definite)
        group = group or value
        if not value:
            problems.append((number, "the value is empty"))
            continue
        if len(value) > _MAX_VALUE:
            problems.append((number, f"the value is longer than {_MAX_VALUE} characters"))
        if len(group) > _MAX_GROUP:
            problems.append((number, f"the group label is longer than {_MAX_GROUP} characters"))
        if value in seen:
            problems.append((number, f"{value!r} is already on line {seen[value]}"))
        else:
            seen[value] = number
        if definite and not form:
            problems.append(
                (
                    number,
                    f"the definite form of {value!r} is empty (this vocabulary keeps one "
                    "for every value)",
                )
            )
        elif not definite and form:
            problems.append(
                (
                    number,
                    "a definite form was given but this vocabulary keeps none: tick "
                    "\u201ckeep definite forms\u201d",
                )
            )
        elif len(form) > _MAX_VALUE:
            problems.append((number, f"the definite form is longer than {_MAX_VALUE} characters"))
        clean.append(VocabularyLine(value=value, group=group, definite=form, line=number))
    if not lines:
        problems.append((1, "the list is empty: a template could not draw any value from it"))
    if problems:
        raise VocabularyInputError(problems)
    return clean


def vocabulary_entries_replace(
    *,
    vocabulary: Vocabulary,
    lines: Sequence[VocabularyLine],
    base_token: str,
    description: str | None = None,
    definite_forms: bool = False,
    saved_by: AbstractBaseUser | None = None,
) -> Vocabulary:
    """Replace the vocabulary's entries (and their definite forms, in `<name>-def`) by `lines`,
    in their order, and record the new list as a revision saved by `saved_by`. Refused with
    VocabularyEditConflict if the vocabulary is no longer the one `base_token` names, with
    VocabularyInputError (every bad line named) on an empty or duplicate value or a missing
    definite form. `definite_forms` starts keeping definite forms (creates `<name>-def`); once
    kept, every line needs one. A save that leaves the entries as they are writes no entry and
    no revision (a changed description is still saved)."""
    vocabulary, _ = _replace(
        vocabulary=vocabulary,
        lines=lines,
        base_token=base_token,
        description=description,
        definite_forms=definite_forms,
        saved_by=saved_by,
    )
    return vocabulary


def vocabulary_revision_restore(
    *,
    revision: VocabularyRevision,
    base_token: str,
    saved_by: AbstractBaseUser | None = None,
) -> VocabularyRevision | None:
    """Save `revision`'s list as the vocabulary's entries again, through the same checks as an
    edit (the conflict token, every line valid, definite forms where the vocabulary keeps
    them): a new revision is added, the history is not rewritten. None when the list already
    is `revision`'s (nothing written)."""
    lines = revision_lines(revision.entries)
    _, written = _replace(
        vocabulary=revision.vocabulary,
        lines=lines,
        base_token=base_token,
        definite_forms=any(line.definite for line in lines),
        saved_by=saved_by,
    )
    return written


def _revision_add(
    *, vocabulary: Vocabulary, entries: list[dict], saved_by: AbstractBaseUser | None
) -> VocabularyRevision:
    """The next revision of `vocabulary` (whose row the caller holds locked)."""
    last = vocabulary.revisions.order_by("-number").values_list("number", flat=True).first()
    return VocabularyRevision.objects.create(
        vocabulary=vocabulary, number=(last or 0) + 1, entries=entries, saved_by=saved_by
    )


def _replace(
    *,
    vocabulary: Vocabulary,
    lines: Sequence[VocabularyLine],
    base_token: str,
    description: str | None = None,
    definite_forms: bool = False,
    saved_by: AbstractBaseUser | None = None,
) -> tuple[Vocabulary, VocabularyRevision | None]:
    base = vocabulary_definite_base(vocabulary=vocabulary)
    if base is not None:
        raise KasautiError(
            f"{vocabulary.name} holds the definite forms of {base.name}, aligned with it: edit "
            f"{base.name} (its third column) instead"
        )
    with transaction.atomic():
        vocabulary = Vocabulary.objects.select_for_update().get(pk=vocabulary.pk)
        partner = vocabulary_definite_partner(vocabulary=vocabulary)
        if partner is not None:
            partner = Vocabulary.objects.select_for_update().get(pk=partner.pk)
        current = vocabulary_lines(vocabulary=vocabulary)
        token = vocabulary_token(vocabulary=vocabulary, lines=current)
        if token != base_token:
            raise VocabularyEditConflict(vocabulary=vocabulary, current=current, token=token)
        definite = partner is not None or definite_forms
        clean = _checked(lines, definite=definite)
        if description is not None:
            vocabulary.description = nfc(description.strip())
            vocabulary.save(update_fields=["description"])
        before, after = revision_entries(current), revision_entries(clean)
        if after == before:
            return vocabulary, None
        # The list as it was, unless the last revision already records it: the state before
        # this edit is never lost (a list imported, or saved before history was kept).
        last = vocabulary.revisions.order_by("-number").values_list("entries", flat=True).first()
        if before and last != before:
            _revision_add(vocabulary=vocabulary, entries=before, saved_by=None)
        if definite and partner is None:
            partner = Vocabulary.objects.create(
                name=definite_name(vocabulary.name),
                language=vocabulary.language,
                description=f"Definite forms of {vocabulary.name}, aligned entry by entry.",
            )
        vocabulary.entries.all().delete()
        VocabularyEntry.objects.bulk_create(
            VocabularyEntry(vocabulary=vocabulary, value=line.value, group=line.group, position=i)
            for i, line in enumerate(clean)
        )
        if partner is not None:
            partner.entries.all().delete()
            VocabularyEntry.objects.bulk_create(
                VocabularyEntry(
                    vocabulary=partner, value=line.definite, group=line.group, position=i
                )
                for i, line in enumerate(clean)
            )
        revision = _revision_add(vocabulary=vocabulary, entries=after, saved_by=saved_by)
    return vocabulary, revision


def unknown_expression_create(*, language: str, text: str) -> UnknownExpression:
    """Add an expression of the unknown answer ("Cannot be determined") for a language: NFC,
    not empty, not already there."""
    language, text = _language(language), _clean(text)
    if not text:
        raise KasautiError("text: the expression is empty")
    if len(text) > _MAX_UNKNOWN:
        raise KasautiError(f"text: at most {_MAX_UNKNOWN} characters")
    expression, created = UnknownExpression.objects.get_or_create(
        language=language,
        text=text,
        defaults={"position": UnknownExpression.objects.filter(language=language).count()},
    )
    if not created:
        raise ConflictError(f"{text!r} is already an unknown expression for {language!r}")
    return expression


def unknown_expression_delete(*, expression: UnknownExpression) -> None:
    """Remove an expression; the instances already generated keep theirs."""
    expression.delete()
