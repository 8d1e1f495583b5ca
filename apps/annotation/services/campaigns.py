"""Annotation services: campaigns and their assignment, judgements (submit, edit, undo),
adjudication, and annotator accounts. Every write goes through here."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from apps.accounts.roles import ANNOTATOR, is_annotator, is_researcher
from apps.accounts.services import roles_ensure, user_invite_send, username_check
from apps.catalog.models import (
    ContextSentence,
    Dataset,
    Finding,
    Instance,
    ReviewStatus,
    StereotypeTuple,
    TemplateVersion,
)
from apps.catalog.review import (
    SENTENCE_STATES,
    context_sentence_text_replace,
    stereotype_tuple_votes_record,
    template_version_findings_settle,
)
from apps.catalog.selectors import template_current_versions
from apps.catalog.services import context_sentence_review_record, template_edit
from apps.catalog.versions import (
    template_version_approve,
    template_version_reject,
    template_version_supersede,
    template_versions_review_start,
)
from apps.core.errors import ConflictError, KasautiError
from apps.core.text import nfc, nfc_deep
from apps.translation.models import TranslatedString
from apps.translation.pipeline import text_hash
from apps.translation.selectors import string_verdicts

from . import rules
from .models import (
    DEFAULT_ANNOTATORS_PER_ITEM,
    AnnotatorProfile,
    Assignment,
    Campaign,
    CampaignItem,
    CampaignKind,
    Decision,
    ItemStatus,
    Judgement,
    SentenceRevision,
)
from .sampling import balanced_assignment, range_sample, stratified_sample

User = get_user_model()

DEFAULT_SAMPLE = 100


class PermissionRefused(KasautiError):
    status_code = 403


# --- people ---------------------------------------------------------------------------------


def annotator_create(
    *,
    username: str,
    languages: Sequence[str],
    email: str = "",
    password: str | None = None,
    invite_base_url: str | None = None,
):
    """Create an annotator account. Either the researcher hands over `password`, or, with
    `invite_base_url` (the site's scheme and host), the annotator is e-mailed an invitation
    whose link sets their password. Without either the account cannot sign in until a
    password is set (password reset)."""
    try:
        username = username_check(username=nfc(username))
    except ValidationError as exc:
        error = ConflictError if exc.code == "taken" else KasautiError
        raise error(exc.messages[0]) from exc
    if invite_base_url and not email:
        raise KasautiError("email: required to send an invitation")
    roles_ensure()
    from django.contrib.auth.models import Group

    with transaction.atomic():
        try:
            with transaction.atomic():
                user = User.objects.create_user(username=username, email=email, password=password)
        except IntegrityError as exc:  # created by a parallel request since the check
            raise ConflictError(f"username: {username!r} is taken") from exc
        if password is None:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        user.groups.add(Group.objects.get(name=ANNOTATOR))
        AnnotatorProfile.objects.create(user=user, languages=languages_clean(languages))
    if invite_base_url:
        annotator_invite(user=user, base_url=invite_base_url)
    return user


def annotator_manageable(user) -> bool:
    """People management changes only annotators who hold no higher role: a researcher, an
    admin or a superuser who also annotates is managed by an administrator (Django admin)."""
    return is_annotator(user) and not is_researcher(user) and not user.is_superuser


def _check_manageable(user) -> None:
    if not annotator_manageable(user):
        raise PermissionRefused(
            f"{user.username} holds a higher role than annotator: only an administrator can "
            "change this account"
        )


def annotator_invite(*, user, base_url: str) -> str:
    """(Re-)send the invitation e-mail; its link lets the annotator choose a password."""
    _check_manageable(user)
    if not is_annotator(user):
        raise KasautiError(f"user: {user.username} is not an annotator")
    if not user.email:
        raise KasautiError(f"email: {user.username} has no e-mail address to invite")
    return user_invite_send(user=user, base_url=base_url)


def languages_clean(languages: Iterable[str]) -> list[str]:
    clean = []
    for code in languages:
        code = str(code).strip().lower()
        if not code:
            continue
        if len(code) > 16 or not code.replace("-", "").isalnum():
            raise KasautiError(f"languages: {code!r} is not a language code")
        if code not in clean:
            clean.append(code)
    return clean


def annotator_update(*, user, languages: Sequence[str] | None = None, active: bool | None = None):
    """Change an annotator's languages or activate/deactivate the account. Refused (403) for
    users who hold a higher role (annotator_manageable)."""
    _check_manageable(user)
    with transaction.atomic():
        if languages is not None:
            AnnotatorProfile.objects.update_or_create(
                user=user, defaults={"languages": languages_clean(languages)}
            )
        if active is not None and user.is_active != active:
            user.is_active = active
            user.save(update_fields=["is_active"])
    return user


def annotator_languages(user) -> list[str]:
    profile = AnnotatorProfile.objects.filter(user=user).first()
    return list(profile.languages) if profile else []


# --- campaigns ------------------------------------------------------------------------------


def _template_targets(dataset: Dataset) -> list[dict[str, Any]]:
    versions = (
        template_current_versions(dataset=dataset)
        .filter(status__in=[ReviewStatus.DRAFT, ReviewStatus.IN_REVIEW])
        .select_related("template")
        .order_by("template__position", "template_id")
    )
    return [
        {
            "template_version": v,
            "category_id": v.template.category_id,
            "language": v.language,
        }
        for v in versions
    ]


def _translation_candidates(
    dataset: Dataset, language: str, *, passed_only: bool
) -> list[tuple[str, str, int]]:
    """(segment, source text, category id) for the dataset's English contexts and questions.
    Contexts are the ambiguous contexts: they are translated whole (a disambiguated context is
    translated as its ambiguous part plus the rest, and the rest alone is not a context)."""
    rows = (
        Instance.objects.filter(dataset=dataset, language="en", retired_at__isnull=True)
        .values_list("context_condition", "context", "question", "category_id")
        .order_by()
        .distinct()
    )
    seen: dict[tuple[str, str], int] = {}
    for condition, context, question, category_id in rows.iterator(chunk_size=5000):
        if condition == "ambig":
            seen.setdefault(("ctx", context), category_id)
        seen.setdefault(("qn", question), category_id)
    return [(segment, text, category) for (segment, text), category in seen.items()]


def _translation_targets(
    dataset: Dataset, language: str, *, per_segment: int, seed: int, calibration: bool
) -> tuple[list[dict[str, Any]], str]:
    """The sampled strings, and why there are none when there are none. Scoring samples the
    strings that passed: by the verdict of the newest finished job of the dataset that used
    the string (its own threshold), else the one stored with the string by the job that
    produced it. Calibration samples every translated string across the similarity range."""
    candidates = _translation_candidates(dataset, language, passed_only=not calibration)
    hashes = {text_hash(text) for _, text, _ in candidates}
    rows: list[TranslatedString] = []
    qs = TranslatedString.objects.filter(language=language).order_by("id")
    hash_list = sorted(hashes)
    for start in range(0, len(hash_list), 5000):
        rows.extend(qs.filter(text_hash__in=hash_list[start : start + 5000]))
    verdicts = (
        {}
        if calibration
        else string_verdicts(dataset_id=dataset.pk, string_ids=[row.pk for row in rows])
    )

    def passes(row: TranslatedString) -> bool:
        if row.pk in verdicts:
            return row.similarity >= verdicts[row.pk][1]
        return row.passed

    strings: dict[str, TranslatedString] = {}
    translated: set[str] = set()
    for row in rows:
        translated.add(row.text_hash)
        if calibration or passes(row):
            strings[row.text_hash] = row  # the newest models' row wins (ordered by id)
    targets = []
    for segment in ("ctx", "qn"):
        pool = [
            (category, strings[text_hash(text)])
            for seg, text, category in candidates
            if seg == segment and text_hash(text) in strings
        ]
        pool.sort(key=lambda row: row[1].pk)
        if calibration:
            # Across the range the similarities span, not in the pool's own proportions.
            chosen = range_sample(pool, key=lambda row: row[1].similarity, n=per_segment, seed=seed)
        else:
            chosen = stratified_sample(pool, n=per_segment, seed=seed)
        for category, string in sorted(chosen, key=lambda row: row[1].pk):
            targets.append(
                {
                    "translated_string": string,
                    "category_id": category,
                    "segment": segment,
                    "language": language,
                }
            )
    if targets:
        return targets, ""
    if not translated:
        return [], (
            f"no translation into {language} of its {len(hashes):,} English contexts and "
            "questions yet: run a translation job first"
        )
    judged = sorted({verdicts[row.pk] for row in rows if row.pk in verdicts}, reverse=True)
    by = "; ".join(f"job #{job_id} at threshold {threshold:g}" for job_id, threshold in judged)
    return [], (
        f"the translations into {language} passed 0 of {len(translated):,} contexts and "
        f"questions (judged by {by or 'the jobs that produced them'}) and a scoring campaign "
        "samples passed strings only: translate again at a lower threshold, or start a "
        "calibration campaign, which samples across the whole similarity range"
    )


def _tuple_targets(dataset: Dataset, language: str) -> list[dict[str, Any]]:
    qs = StereotypeTuple.objects.filter(dataset=dataset).order_by("id")
    if language:
        qs = qs.filter(language=language)
    return [
        {"stereotype_tuple": t, "category_id": t.category_id, "language": t.language} for t in qs
    ]


def _sentence_targets(dataset: Dataset, language: str, tier: str) -> list[dict[str, Any]]:
    qs = ContextSentence.objects.filter(context_set__dataset=dataset).select_related("context_set")
    if tier == "social_science":
        # IndiCASA's second tier sees only what the language review kept or fixed, as the
        # catalog records it now: the latest language decision counts (a sentence dropped by a
        # later language campaign is not sent on), and a sentence the social scientists
        # already decided is not reviewed again.
        qs = qs.filter(SENTENCE_STATES["awaiting_social_science_review"])
    if language:
        qs = qs.filter(context_set__language=language)
    return [
        {
            "context_sentence": s,
            "category_id": s.context_set.category_id,
            "language": s.context_set.language,
        }
        for s in qs.order_by("context_set_id", "kind", "position", "id")
    ]


def campaign_create(
    *,
    dataset: Dataset,
    kind: str,
    annotators: Sequence,
    name: str = "",
    language: str = "",
    annotators_per_item: int | None = None,
    sample_size: int = DEFAULT_SAMPLE,
    seed: int = 0,
    tier: str = "language",
    created_by=None,
) -> Campaign:
    """Create a campaign, its items and its assignment in one transaction: every item gets
    exactly `annotators_per_item` distinct annotators who cover its language, and loads are
    balanced. Refuses (and writes nothing) when that is impossible."""
    if kind not in CampaignKind.values:
        raise KasautiError(f"kind: one of {', '.join(CampaignKind.values)}")
    per_item = annotators_per_item or DEFAULT_ANNOTATORS_PER_ITEM[kind]
    if per_item < 1:
        raise KasautiError("annotators_per_item: at least 1")
    annotators = list(dict.fromkeys(annotators))
    for user in annotators:
        if not user.is_active or not is_annotator(user):
            raise KasautiError(f"annotators: {user.get_username()} is not an active annotator")
    if len(annotators) < per_item:
        raise KasautiError(
            f"annotators: {per_item} per item need at least {per_item} annotators, "
            f"{len(annotators)} chosen"
        )
    language = language.strip()
    if kind in (CampaignKind.TRANSLATION_SCORING, CampaignKind.CALIBRATION) and not language:
        raise KasautiError("language: required for translation scoring")
    if kind == CampaignKind.TEMPLATE_VALIDATION:
        targets, why = _template_targets(dataset), ""
    elif kind in (CampaignKind.TRANSLATION_SCORING, CampaignKind.CALIBRATION):
        targets, why = _translation_targets(
            dataset,
            language,
            per_segment=sample_size,
            seed=seed,
            calibration=kind == CampaignKind.CALIBRATION,
        )
    elif kind == CampaignKind.TUPLE_VOTE:
        targets, why = _tuple_targets(dataset, language), ""
    else:
        if tier not in ("language", "social_science"):
            raise KasautiError("tier: language or social_science")
        targets, why = _sentence_targets(dataset, language, tier), ""
    if not targets:
        raise KasautiError(
            f"nothing to annotate in {dataset.name} for a {kind} campaign"
            + (f": {why}" if why else "")
        )

    languages = {user.pk: set(annotator_languages(user)) for user in annotators}
    # Templates are judged in their own language; everything else in the campaign's.
    plan = balanced_assignment(
        [(i, t["language"]) for i, t in enumerate(targets)],
        annotators=languages,
        per_item=per_item,
        seed=seed,
    )
    with transaction.atomic():
        campaign = Campaign.objects.create(
            name=nfc(name) or f"{dataset.name}: {CampaignKind(kind).label}",
            dataset=dataset,
            kind=kind,
            language=language,
            annotators_per_item=per_item,
            params={"sample_size": sample_size, "seed": seed, "tier": tier},
            created_by=created_by,
        )
        campaign.annotators.set(annotators)
        items = CampaignItem.objects.bulk_create(
            CampaignItem(
                campaign=campaign,
                position=position,
                category_id=target["category_id"],
                segment=target.get("segment", ""),
                template_version=target.get("template_version"),
                translated_string=target.get("translated_string"),
                stereotype_tuple=target.get("stereotype_tuple"),
                context_sentence=target.get("context_sentence"),
            )
            for position, target in enumerate(targets)
        )
        Assignment.objects.bulk_create(
            Assignment(
                campaign=campaign,
                item=item,
                annotator_id=annotator_id,
                slot=slot,
                position=item.position,
            )
            for item, chosen in zip(items, plan, strict=True)
            for slot, annotator_id in enumerate(chosen)
        )
        if kind == CampaignKind.TEMPLATE_VALIDATION:
            template_versions_review_start(version_ids=[t["template_version"].pk for t in targets])
    return campaign


def campaign_close(*, campaign: Campaign) -> Campaign:
    campaign.status = Campaign.Status.CLOSED
    campaign.save(update_fields=["status"])
    return campaign


# --- judgements -----------------------------------------------------------------------------


def assignment_open(*, assignment: Assignment) -> None:
    """Remember when the annotator first saw the item (for seconds per item)."""
    if assignment.opened_at is None:
        Assignment.objects.filter(pk=assignment.pk, opened_at__isnull=True).update(
            opened_at=timezone.now()
        )


def _check_key(key: str) -> str:
    key = str(key or "").strip()
    if not key or len(key) > 64:
        raise KasautiError("idempotency_key: required, at most 64 characters")
    return key


def judgement_submit(
    *,
    assignment_id: int,
    annotator,
    answers: Any,
    idempotency_key: str,
    seconds: float | None = None,
) -> tuple[Judgement, bool]:
    """Store one judgement exactly once. Returns (judgement, created): the same key again
    (double-click, retry after a network error) returns the stored row and changes nothing.
    A later submission on the same assignment is an edit: a new row pointing to the previous
    one, which stays in the history."""
    key = _check_key(idempotency_key)
    with transaction.atomic():
        assignment = (
            Assignment.objects.select_for_update()
            .select_related("campaign", "item")
            .filter(pk=assignment_id)
            .first()
        )
        if assignment is None or assignment.annotator_id != annotator.pk:
            # Same answer whether it exists or not: annotators see only their own items.
            raise PermissionRefused("this item is not assigned to you")
        # Checked after the row lock: a concurrent request with the same key has committed.
        existing = Judgement.objects.filter(idempotency_key=key).first()
        if existing is not None:
            if existing.assignment_id != assignment.pk:
                raise ConflictError("idempotency_key: already used for another judgement")
            return existing, False
        campaign = assignment.campaign
        if campaign.status != Campaign.Status.OPEN:
            raise ConflictError("this campaign is closed")
        item = CampaignItem.objects.select_for_update().get(pk=assignment.item_id)
        if item.status not in (ItemStatus.PENDING, ItemStatus.ADJUDICATION):
            raise ConflictError(
                f"this item is already {item.get_status_display().lower()}; it cannot change"
            )
        clean = rules.answers_clean(kind=campaign.kind, answers=nfc_deep(answers))
        current = assignment.current
        is_edit = current is not None and current.action != Judgement.Action.UNDO
        if seconds is None and assignment.opened_at is not None and not is_edit:
            seconds = (timezone.now() - assignment.opened_at).total_seconds()
        try:
            with transaction.atomic():
                judgement = Judgement.objects.create(
                    assignment=assignment,
                    annotator=annotator,
                    idempotency_key=key,
                    action=Judgement.Action.EDIT if is_edit else Judgement.Action.SUBMIT,
                    answers=clean,
                    previous=current,
                    seconds=seconds,
                )
        except IntegrityError:
            raise ConflictError("idempotency_key: already used") from None
        assignment.current = judgement
        assignment.done_at = timezone.now()
        assignment.save(update_fields=["current", "done_at"])
        _item_evaluate(item=item, campaign=campaign)
    return judgement, True


def judgement_undo(*, assignment_id: int, annotator, idempotency_key: str) -> Judgement:
    """Take back the current submission: an UNDO row is appended (the submission stays in the
    history) and the item is pending again for this annotator."""
    key = _check_key(idempotency_key)
    with transaction.atomic():
        assignment = (
            Assignment.objects.select_for_update()
            .select_related("campaign")
            .filter(pk=assignment_id)
            .first()
        )
        if assignment is None or assignment.annotator_id != annotator.pk:
            raise PermissionRefused("this item is not assigned to you")
        existing = Judgement.objects.filter(idempotency_key=key).first()
        if existing is not None:
            return existing
        current = assignment.current
        if current is None or current.action == Judgement.Action.UNDO:
            raise ConflictError("nothing to undo on this item")
        item = CampaignItem.objects.select_for_update().get(pk=assignment.item_id)
        if item.status not in (ItemStatus.PENDING, ItemStatus.ADJUDICATION):
            raise ConflictError(
                f"this item is already {item.get_status_display().lower()}; it cannot change"
            )
        judgement = Judgement.objects.create(
            assignment=assignment,
            annotator=annotator,
            idempotency_key=key,
            action=Judgement.Action.UNDO,
            answers={},
            previous=current,
        )
        assignment.current = judgement
        assignment.done_at = None
        assignment.save(update_fields=["current", "done_at"])
        if item.status != ItemStatus.PENDING:
            item.status = ItemStatus.PENDING
            item.outcome = {}
            item.save(update_fields=["status", "outcome"])
    return judgement


def _open_findings(item: CampaignItem) -> int:
    if item.template_version_id is None:
        return 0
    return Finding.objects.filter(
        template_version_id=item.template_version_id, status=Finding.Status.OPEN
    ).count()


def _item_evaluate(*, item: CampaignItem, campaign: Campaign) -> None:
    """Once every assigned annotator has submitted, apply the kind's rule (caller holds the
    item's row lock)."""
    rows = list(
        Assignment.objects.filter(item=item)
        .select_related("current")
        .order_by("slot")
        .only("done_at", "current__answers", "current__action", "slot")
    )
    if any(row.done_at is None for row in rows):
        return
    outcome = rules.outcome_for(
        kind=campaign.kind,
        answers=[row.current.answers for row in rows],
        open_findings=_open_findings(item),
    )
    item.status = outcome.status
    item.outcome = outcome.summary
    item.save(update_fields=["status", "outcome"])
    if campaign.kind == CampaignKind.TEMPLATE_VALIDATION and outcome.status == ItemStatus.APPROVED:
        template_version_approve(version_id=item.template_version_id, requested_by=None)
    if campaign.kind == CampaignKind.SENTENCE_REVIEW and outcome.status == ItemStatus.COMPLETE:
        # The annotators agree: keep, fix (the text is rewritten first) or drop.
        if outcome.summary["decision"] == "fix":
            _sentence_fix(item=item, text=outcome.summary["texts"][0], decided_by=None)
        _sentence_review_record(item=item, campaign=campaign, decision=outcome.summary["decision"])
    if campaign.kind == CampaignKind.TUPLE_VOTE:
        # IndiBias's "Score": the votes themselves, one per annotator. The campaign's votes
        # decide from now on; the imported ones stay in `imported_votes`, and the item keeps
        # the votes the tuple had before (imported or an earlier campaign's).
        votes_before, imported_votes = stereotype_tuple_votes_record(
            tuple_id=item.stereotype_tuple_id, votes=outcome.summary["votes"]
        )
        item.outcome = {
            **item.outcome,
            "votes_before": votes_before,
            "imported_votes": imported_votes,
        }
        item.save(update_fields=["outcome"])


# --- adjudication ---------------------------------------------------------------------------


def item_decide(
    *,
    item: CampaignItem,
    verdict: str,
    decided_by,
    note: str = "",
    changes: dict[str, Any] | None = None,
    findings: dict[int, str] | None = None,
) -> Decision:
    """A researcher's decision on an item in the adjudication queue: approve, reject, or edit
    (a new template version that goes back to review with the same annotators). Every open
    import finding on the template must be resolved or accepted in the same decision."""
    if verdict not in Decision.Verdict.values:
        raise KasautiError("verdict: approve, reject or edit")
    findings = {int(k): v for k, v in (findings or {}).items()}
    with transaction.atomic():
        item = CampaignItem.objects.select_for_update().select_related("campaign").get(pk=item.pk)
        if item.status != ItemStatus.ADJUDICATION:
            raise ConflictError(
                f"item {item.pk} is {item.get_status_display().lower()}, not in the "
                "adjudication queue"
            )
        template_version_findings_settle(
            template_version_id=item.template_version_id, statuses=findings
        )
        new_version = None
        if item.context_sentence_id:
            _sentence_decide(item=item, verdict=verdict, changes=changes, decided_by=decided_by)
            _sentence_review_record(
                item=item, campaign=item.campaign, decision=item.outcome["decision"]
            )
        elif verdict == Decision.Verdict.EDIT:
            if item.template_version_id is None:
                raise KasautiError("verdict: only templates and sentences can be edited here")
            if not changes:
                raise KasautiError("changes: an edit needs at least one changed field")
            old = item.template_version
            new_version = template_edit(
                template=old.template, changes=nfc_deep(changes), edited_by=decided_by
            )
            if new_version.pk == old.pk:
                raise KasautiError("changes: the edit changes nothing")
            # The adjudicator's note goes into the new version's notes (the version history
            # on the template page shows it), after the notes it inherited.
            notes = new_version.notes
            if note.strip():
                line = f"Adjudication ({decided_by.username}): {nfc(note.strip())}"
                notes = f"{notes}\n{line}" if notes else line
            template_version_supersede(
                version_id=old.pk, new_version_id=new_version.pk, new_notes=notes
            )
            item.status = ItemStatus.SUPERSEDED
            _item_requeue(item=item, version=new_version)
        elif verdict == Decision.Verdict.APPROVE:
            item.status = ItemStatus.APPROVED
            if item.template_version_id:
                template_version_approve(
                    version_id=item.template_version_id, requested_by=decided_by
                )
        else:
            item.status = ItemStatus.REJECTED
            if item.template_version_id:
                template_version_reject(version_id=item.template_version_id)
        item.save(update_fields=["status", "outcome"])
        return Decision.objects.create(
            item=item,
            verdict=verdict,
            note=nfc(note),
            findings={str(k): v for k, v in findings.items()},
            new_version=new_version,
            decided_by=decided_by,
        )


def _sentence_fix(*, item: CampaignItem, text: str, decided_by) -> SentenceRevision | None:
    """Write the fixed text onto the catalog sentence with a revision (caller holds the item's
    row lock). The same text again records nothing."""
    text = nfc(text).strip()
    if not text:
        raise KasautiError("text: a fix needs the corrected sentence")
    before = context_sentence_text_replace(sentence_id=item.context_sentence_id, text=text)
    if before is None:
        return None
    return SentenceRevision.objects.create(
        context_sentence_id=item.context_sentence_id,
        item=item,
        text_before=before,
        text_after=text,
        decided_by=decided_by,
    )


def _sentence_review_record(*, item: CampaignItem, campaign: Campaign, decision: str) -> None:
    """Write a decided sentence-review item onto the catalog sentence (tier and decision):
    what reviewed releases read. Campaigns made before tiers were recorded are language
    reviews."""
    context_sentence_review_record(
        sentence_id=item.context_sentence_id,
        tier=(campaign.params or {}).get("tier") or "language",
        decision=decision,
    )


def _sentence_decide(*, item: CampaignItem, verdict: str, changes, decided_by) -> None:
    """Adjudication of a sentence-review disagreement: approve keeps the sentence, reject drops
    it, edit writes `changes["text"]` (a revision) and counts as a fix."""
    outcome = dict(item.outcome or {})
    if verdict == Decision.Verdict.EDIT:
        text = (changes or {}).get("text", "")
        if not str(text).strip():
            raise KasautiError("changes.text: the corrected sentence is required")
        if _sentence_fix(item=item, text=str(text), decided_by=decided_by) is None:
            raise KasautiError("changes.text: the edit changes nothing")
        item.status, outcome["decision"] = ItemStatus.APPROVED, "fix"
    elif verdict == Decision.Verdict.APPROVE:
        item.status, outcome["decision"] = ItemStatus.APPROVED, "keep"
    else:
        item.status, outcome["decision"] = ItemStatus.REJECTED, "drop"
    item.outcome = outcome


def _item_requeue(*, item: CampaignItem, version: TemplateVersion) -> CampaignItem:
    """The edited version goes back to the same annotators, as a new item of the campaign."""
    position = (
        CampaignItem.objects.filter(campaign=item.campaign).aggregate(m=Max("position"))["m"] + 1
    )
    new_item = CampaignItem.objects.create(
        campaign=item.campaign,
        position=position,
        category_id=item.category_id,
        template_version=version,
    )
    Assignment.objects.bulk_create(
        Assignment(
            campaign_id=item.campaign_id,
            item=new_item,
            annotator_id=row.annotator_id,
            slot=row.slot,
            position=position,
        )
        for row in Assignment.objects.filter(item=item).order_by("slot")
    )
    return new_item


def new_idempotency_key() -> str:
    return uuid.uuid4().hex
