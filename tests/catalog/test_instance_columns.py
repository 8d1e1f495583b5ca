"""The instance column lists outside apps.catalog.bulk are derived from, or checked against,
its one definition (INSTANCE_ALL_COLUMNS): a renamed or added Instance column cannot leave a
stale copy behind."""

from apps.catalog import services
from apps.catalog.bulk import INSTANCE_ALL_COLUMNS
from apps.catalog.models import TemplateVersion


def test_original_rows_name_every_instance_column_once():
    named = services.ORIGINAL_INSTANCE_COLUMNS + services.ORIGINAL_DEFAULT_COLUMNS
    assert len(named) == len(set(named))
    assert set(named) == set(INSTANCE_ALL_COLUMNS)


def test_template_content_holds_the_template_texts():
    assert set(TemplateVersion.TEXT_FIELDS) <= set(services.TEMPLATE_CONTENT_FIELDS)
