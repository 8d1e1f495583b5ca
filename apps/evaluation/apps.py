from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "apps.evaluation"
    label = "evaluation"
    verbose_name = "Evaluation"

    def ready(self) -> None:
        from .kinds import KINDS
        from .registry import evaluation_kind_register

        # Each evaluation kind, and with it the core job kind its runs run under.
        for kind in KINDS:
            evaluation_kind_register(kind)
