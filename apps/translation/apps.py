from django.apps import AppConfig


class TranslationConfig(AppConfig):
    name = "apps.translation"
    label = "translation"

    def ready(self) -> None:
        from apps.core.registry import job_kind_register

        from .jobs import TRANSLATE_KIND

        job_kind_register(TRANSLATE_KIND)
