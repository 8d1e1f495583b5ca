from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "apps.catalog"
    label = "catalog"

    def ready(self) -> None:
        from apps.core.registry import job_kind_register

        from .jobs import IMPORT_KIND, INSTANTIATE_KIND

        job_kind_register(INSTANTIATE_KIND)
        job_kind_register(IMPORT_KIND)
