from django.apps import AppConfig


class ReleasesConfig(AppConfig):
    name = "apps.releases"
    label = "releases"

    def ready(self) -> None:
        from apps.core.registry import job_kind_register

        from . import card_sections, change_reasons, provenance_steps
        from .jobs import RELEASE_KIND

        job_kind_register(RELEASE_KIND)
        # The card sections, provenance steps and change reasons the releases app knows
        # itself (the catalog's facts); the apps above register theirs from their own ready().
        card_sections.register()
        provenance_steps.register()
        change_reasons.register()
