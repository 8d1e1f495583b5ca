from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "apps.annotation"
    label = "annotation"
    verbose_name = "Annotation workbench"
