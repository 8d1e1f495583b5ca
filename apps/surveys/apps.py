from django.apps import AppConfig


class SurveysConfig(AppConfig):
    name = "apps.surveys"
    label = "surveys"
    verbose_name = "Participatory surveys"

    def ready(self) -> None:
        from . import registry

        registry.register()
        # The survey funnel in a dataset card (issue 22, apps/releases/registry.py).
        from . import card

        card.register()
