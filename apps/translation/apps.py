from django.apps import AppConfig


class TranslationConfig(AppConfig):
    name = "apps.translation"
    label = "translation"
