from django.apps import AppConfig


class ReleasesConfig(AppConfig):
    name = "apps.releases"
    label = "releases"

    def ready(self) -> None:
        from apps.core.registry import job_kind_register

        from .jobs import RELEASE_KIND

        job_kind_register(RELEASE_KIND)
