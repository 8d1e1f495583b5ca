"""The template export's registry, its command (`export_templates`: errors named, nothing
written on refusal) and its download (`GET /datasets/<pk>/export-templates/?format=`)."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.core.management import CommandError, call_command
from django.template.loader import render_to_string
from django.test import Client
from django.urls import reverse

from apps.catalog import exporters
from apps.catalog.exporters import Exporter, ExportFile, exporter_get, exporter_names
from apps.catalog.importers import ImportFile, benchmark_import
from apps.catalog.models import Dataset, ReviewStatus, Template
from apps.catalog.services import template_edit
from apps.core.errors import KasautiError

from .test_export_templates import bharat_files, write_in_kasauti

pytestmark = pytest.mark.django_db


def _echo(templates):
    return [ExportFile("ids.txt", "\n".join(t.external_id for t in templates).encode())]


def test_layouts_are_registered_objects_and_an_unknown_name_is_an_error() -> None:
    assert exporter_names() == ("bbq", "bharatbbq", "esbbq")
    with pytest.raises(KasautiError, match="unknown export layout 'nope'; use one of bbq"):
        exporter_get(name="nope")
    layout = Exporter("throwaway", "Throwaway", "Ids, one a line.", f"{__name__}._echo")
    exporters.exporter_register(exporter=layout)
    try:
        benchmark_import(dataset_name="b", fmt="bharatbbq", files=bharat_files())
        dataset = Dataset.objects.get(name="b")
        [file] = exporters.dataset_templates_export(dataset=dataset, fmt="throwaway")
        assert file.data.decode().splitlines()[0] == "Age-7a-cn-biased"
        with pytest.raises(ValueError, match="already registered"):
            exporters.exporter_register(exporter=Exporter("throwaway", "x", "y", "z.w"))
    finally:
        exporters.exporter_unregister(name="throwaway")
    assert "throwaway" not in exporter_names()


def test_the_dataset_page_include_links_every_layout() -> None:
    benchmark_import(dataset_name="b", fmt="bharatbbq", files=bharat_files())
    dataset = Dataset.objects.get(name="b")
    html = render_to_string("catalog/export/_dataset_links.html", {"dataset": dataset})
    url = reverse("web:dataset-export-templates", args=[dataset.pk])
    for name in exporter_names():
        assert f'data-layout="{name}"' in html
        assert f'href="{url}?format={name}"' in html
        assert f'href="{url}?format={name}&amp;approved_only=1"' in html


def test_command_writes_the_layout_and_says_how_to_import_it_back(tmp_path) -> None:
    benchmark_import(dataset_name="b", fmt="bharatbbq", files=bharat_files())
    out = io.StringIO()
    call_command(
        "export_templates", "--dataset", "b", "--format", "bharatbbq", "--output",
        str(tmp_path / "out"), stdout=out,
    )  # fmt: skip
    written = sorted(p.relative_to(tmp_path / "out").as_posix() for p in tmp_path.rglob("*.csv"))
    assert written == [
        "BharatBBQ_Dataset/Templates/Age.csv",
        "BharatBBQ_Dataset/Templates/Caste.csv",
    ]
    assert "Wrote 2 files" in out.getvalue()
    assert "import_benchmark --format bharatbbq --dataset NEW_NAME --language en" in out.getvalue()
    # And it imports back.
    files = [ImportFile(p.name, p.read_bytes()) for p in sorted(tmp_path.rglob("*.csv"))]
    report = benchmark_import(dataset_name="again", fmt="bharatbbq", files=files)
    assert report.templates.created == Template.objects.filter(dataset__name="b").count()


def test_command_errors_name_the_problem_and_write_nothing(tmp_path) -> None:
    target = tmp_path / "out"

    def run(*args: str) -> str:
        with pytest.raises(CommandError) as caught:
            call_command("export_templates", *args, "--output", str(target))
        return str(caught.value)

    assert "no dataset named 'missing'" in run("--dataset", "missing", "--format", "bbq")
    Dataset.objects.create(name="empty")
    assert "dataset 'empty' has no template that is not rejected to export" in run(
        "--dataset", "empty", "--format", "esbbq"
    )
    benchmark_import(dataset_name="b", fmt="bharatbbq", files=bharat_files())
    write_in_kasauti(Dataset.objects.get(name="b"))
    message = run("--dataset", "b", "--format", "bbq")
    assert "the bbq layout cannot express 5 template(s)" in message
    assert "written-1" not in message  # a Kasauti template has a BBQ row
    assert "Age-7a-cn-biased: it is instantiated by the 'bharatbbq' generator" in message
    assert "no approved template" in run("--dataset", "b", "--format", "bbq", "--approved-only")
    assert "invalid choice: 'csv'" in run("--dataset", "b", "--format", "csv")
    assert not target.exists()


def test_rejected_templates_are_left_out_and_approved_only_keeps_the_approved(tmp_path) -> None:
    benchmark_import(dataset_name="b", fmt="bharatbbq", files=bharat_files())
    dataset = Dataset.objects.get(name="b")
    rejected = Template.objects.get(dataset=dataset, external_id="Age-7a-cn-biased-r2")
    template_edit(template=rejected, changes={"status": ReviewStatus.REJECTED})
    approved = Template.objects.get(dataset=dataset, external_id="Caste-1a-gl-biased")
    template_edit(template=approved, changes={"status": ReviewStatus.APPROVED})
    every = exporters.export_templates_select(dataset=dataset)
    assert "Age-7a-cn-biased-r2" not in [t.external_id for t in every] and len(every) == 4
    only = exporters.export_templates_select(dataset=dataset, approved_only=True)
    assert [t.external_id for t in only] == ["Caste-1a-gl-biased"]
    call_command("export_templates", "--dataset", "b", "--format", "bharatbbq", "--output",
                 str(tmp_path), "--approved-only", stdout=io.StringIO())  # fmt: skip
    assert [p.name for p in tmp_path.rglob("*.csv")] == ["Caste.csv"]


def test_download_is_a_zip_of_the_same_files(annotator, outsider) -> None:
    benchmark_import(dataset_name="b", fmt="bharatbbq", files=bharat_files())
    dataset = Dataset.objects.get(name="b")
    url = reverse("web:dataset-export-templates", args=[dataset.pk])
    client = Client()
    assert client.get(url, {"format": "bharatbbq"}).status_code in (302, 403)  # signed out
    client.force_login(outsider)
    assert client.get(url, {"format": "bharatbbq"}).status_code == 403  # no role
    client.force_login(annotator)
    response = client.get(url, {"format": "bharatbbq"})
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"] == 'attachment; filename="b-bharatbbq-templates.zip"'
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    files = exporters.dataset_templates_export(dataset=dataset, fmt="bharatbbq")
    assert {name: archive.read(name) for name in archive.namelist()} == {
        f.name: f.data for f in files
    }
    unknown = client.get(url, {"format": "csv"})
    assert unknown.status_code == 400 and "unknown export layout" in unknown.content.decode()
    refused = client.get(url, {"format": "esbbq"})
    html = refused.content.decode()
    assert refused.status_code == 409 and "<strong>Age-7a-cn-biased</strong>" in html
    assert "Nothing was written." in html
    assert client.get(reverse("web:dataset-export-templates", args=[999999])).status_code == 404
