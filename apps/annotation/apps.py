from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "apps.annotation"
    label = "annotation"
    verbose_name = "Annotation workbench"

    def ready(self) -> None:
        from .kinds import campaign_kind_register, campaign_kinds
        from .kinds.sentence_review import SENTENCE_REVIEW
        from .kinds.template_validation import TEMPLATE_VALIDATION
        from .kinds.translation import CALIBRATION, TRANSLATION_SCORING
        from .kinds.tuple_vote import TUPLE_VOTE
        from .models import CampaignKind

        # In the order the new-campaign form lists them.
        for kind in (
            TEMPLATE_VALIDATION,
            TRANSLATION_SCORING,
            CALIBRATION,
            TUPLE_VOTE,
            SENTENCE_REVIEW,
        ):
            campaign_kind_register(kind)
        missing = set(CampaignKind.values) - {kind.name for kind in campaign_kinds()}
        if missing:
            raise LookupError(f"campaign kinds without a registered object: {sorted(missing)}")
        # What releases report about annotation (issue 22): a card section and a provenance
        # step (apps/releases/registry.py).
        from . import card, provenance

        card.register()
        provenance.register()
