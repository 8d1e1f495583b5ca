from django.apps import AppConfig


class TranslationConfig(AppConfig):
    name = "apps.translation"
    label = "translation"

    def ready(self) -> None:
        from apps.core.registry import job_kind_register

        from .jobs import TRANSLATE_KIND

        job_kind_register(TRANSLATE_KIND)
        # What releases report about translation (issue 22): a card section, a provenance
        # step and the reasons a translated instance changes (apps/releases/registry.py).
        from . import card, change_reasons, provenance

        card.register()
        provenance.register()
        change_reasons.register()
