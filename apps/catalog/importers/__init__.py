"""Importers for published bias benchmarks (BBQ, BharatBBQ, EsBBQ/CaBBQ, IndiBias, IndiCASA).

Public API:
    benchmark_import(*, dataset_name, fmt, files, created_by=None, language="en", category="")
        -> ImportReport, raising apps.core.errors.ImportRejected (nothing written) on any problem
    parse_import(...) -> ParseResult   (phase 1 only: read and validate, no database writes)
    ImportFile(name, data)             (one uploaded file)
    FORMATS                            (the format names the command and the API accept)

One Reader class per format (bbq.BbqReader, bbq.BharatBbqReader, esbbq.EsBbqReader,
esbbq.CaBbqReader, indibias.IndiBiasReader, indicasa.IndiCasaReader); their module docstrings
give the expected columns.
"""

from .tables import ImportFile
from .writer import FORMATS, READERS, ImportReport, benchmark_import, parse_import

__all__ = ["FORMATS", "READERS", "ImportFile", "ImportReport", "benchmark_import", "parse_import"]
