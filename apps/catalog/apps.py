from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "apps.catalog"
    label = "catalog"

    def ready(self) -> None:
        from apps.core.registry import job_kind_register

        from .benchmarks import benchmarks_register
        from .jobs import IMPORT_KIND, INSTANTIATE_KIND

        job_kind_register(INSTANTIATE_KIND)
        job_kind_register(IMPORT_KIND)
        # Every benchmark's formats and generator (apps/catalog/benchmarks/).
        benchmarks_register()
        # The inclusion rules datasets choose from (BharatBBQ's, EsBBQ's).
        from .inclusion import register as inclusion_rules_register

        inclusion_rules_register()
