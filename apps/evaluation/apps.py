from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "apps.evaluation"
    label = "evaluation"
    verbose_name = "Evaluation"

    def ready(self) -> None:
        from apps.core.registry import job_kind_register

        from .jobs import EVALUATE_PART_KIND
        from .kinds import KINDS
        from .registry import evaluation_kind_register

        # Each evaluation kind, and with it the core job kind its runs run under.
        for kind in KINDS:
            evaluation_kind_register(kind)
        # The parts of a multiple-choice run split across workers (services/parts.py).
        job_kind_register(EVALUATE_PART_KIND)
