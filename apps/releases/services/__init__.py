"""Release writes, as modules named for their jobs:

* creation: creating a release (checks, membership, fingerprint, all-or-nothing), its summary;
* file_writing: writing its files, every kind in every format, in one pass per kind;
* files: a stored file's path, name and media type, the verified copy, the export refusal.

The public names are re-exported here (`from apps.releases.services import release_create`).
"""

from .creation import (
    # bench/release_content_counts.py measures the fingerprint on its own.
    _live_fingerprint,
    release_create,
    release_create_async,
    release_summary,
)
from .file_writing import ReleaseChangedError
from .files import (
    ReleaseFileMissingError,
    dataset_export_refuse,
    release_dir,
    release_file_content_type,
    release_file_media_types,
    release_file_name,
    release_file_path,
    release_file_verify_copy,
)

__all__ = [
    "ReleaseChangedError",
    "ReleaseFileMissingError",
    "_live_fingerprint",
    "dataset_export_refuse",
    "release_create",
    "release_create_async",
    "release_dir",
    "release_file_content_type",
    "release_file_media_types",
    "release_file_name",
    "release_file_path",
    "release_file_verify_copy",
    "release_summary",
]
