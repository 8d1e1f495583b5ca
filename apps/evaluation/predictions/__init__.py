"""Readers of per-item prediction files made elsewhere (a cluster, an API model, a paper's
released outputs): one Reader class per format, all yielding `PredictionRow`s.

A reader checks the file's shape (columns present, JSON well formed, log-probs numbers) and
raises ImportRejected with file, line and field; it does not decide whether an id matches or an
answer parses (the import service counts and lists those; `answers` reads which option an answer
names)."""

from __future__ import annotations

from .readers import READERS, CsvReader, JsonlReader, PredictionRow, reader_for

__all__ = ["READERS", "CsvReader", "JsonlReader", "PredictionRow", "reader_for"]
