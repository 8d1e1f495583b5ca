"""Annotation services, as modules named for their jobs. Every write of the workbench goes
through here:

* people: annotator accounts (create, invite, languages, activate/deactivate);
* campaigns: creating a campaign with its sampled items and balanced assignment; closing it;
* judgements: opening an item, submitting, editing and undoing a judgement, and what a complete
  set of judgements decides;
* adjudication: a researcher's decision on an item the annotators did not settle.
"""

# Not services, re-exported for the pages and tests that use them with the services.
from ..rules import PermissionRefused, new_idempotency_key
from .adjudication import item_decide
from .campaigns import DEFAULT_SAMPLE, campaign_close, campaign_create
from .judgements import assignment_open, judgement_submit, judgement_undo
from .people import annotator_create, annotator_invite, annotator_update

__all__ = [
    "DEFAULT_SAMPLE",
    "PermissionRefused",
    "annotator_create",
    "annotator_invite",
    "annotator_update",
    "assignment_open",
    "campaign_close",
    "campaign_create",
    "item_decide",
    "judgement_submit",
    "judgement_undo",
    "new_idempotency_key",
]
