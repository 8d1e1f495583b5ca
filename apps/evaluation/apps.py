from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "apps.evaluation"
    label = "evaluation"
    verbose_name = "Evaluation"

    def ready(self) -> None:
        from apps.core.registry import job_kind_register

        from .jobs import KINDS

        for kind in KINDS:
            job_kind_register(kind)
