from django.apps import AppConfig


class SurveysConfig(AppConfig):
    name = "apps.surveys"
    label = "surveys"
    verbose_name = "Participatory surveys"

    def ready(self) -> None:
        from . import registry

        registry.register()
