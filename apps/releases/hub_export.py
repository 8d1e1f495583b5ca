"""A release as a Hugging Face dataset folder (issue 22): README.md (the release's stored card)
and data/<config>/<split>.parquet for every config the card lists (apps/releases/hub.py).

The folder is written from the release's frozen files only, never from the instance tables:
README.md and card.json (the configs) and the <kind>.parquet tables, each copied with its
checksum verified (release_file_verify_copy) before it is read. The only rows read from the
database are the Release and its ReleaseFile rows. Every split keeps the frozen file's columns
(whatever they are: a column added to a kind later is carried along) and its row order.

The folder appears whole or not at all: it is written into a hidden directory beside the
target and renamed into place at the end. A non-empty target is refused unless `force`.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import tempfile
import uuid
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from django.conf import settings
from django.utils.text import slugify

from apps.core.errors import ConflictError, KasautiError

from .hub import HubConfig, hub_features, hub_front_matter
from .models import Release, ReleaseFile
from .schemas import BATCH_SIZE
from .services.files import release_file_verify_copy

# progress(done, total): split rows written so far (a row counts once per config holding it).
Progress = Callable[[int, int], None]

# Rows read from a frozen file at a time, and rows held back per split before they are written
# as one row group: the frozen files hold one row group of BATCH_SIZE rows per batch.
READ_BATCH = BATCH_SIZE
# Rows buffered across all splits before every buffer is flushed, whatever the row order (in
# release order, category then language, a category's splits fill one after the other).
BUFFERED_ROWS_MAX = 20 * BATCH_SIZE
ZIP_BLOCK = 256 * 1024
# Zip entries carry this time (the zip format's earliest), so the same folder zips to the same
# bytes whenever it is made.
ZIP_DATE_TIME = (1980, 1, 1, 0, 0, 0)


class HubCardMissingError(ConflictError):
    """A release made before dataset cards existed has no card to write the folder from."""


class HubSourceError(KasautiError):
    """The release's stored files are not what the release recorded (tampered, or a card that
    disagrees with its own tables): nothing is written."""

    status_code = 500


class HubOutputError(KasautiError):
    """The output directory cannot take the folder (not empty, or not a directory)."""


@dataclass(frozen=True)
class HubFile:
    path: str  # relative to the folder, with forward slashes
    size: int
    rows: int = 0
    config: str = ""
    split: str = ""
    language: str = ""


@dataclass(frozen=True)
class HubFolder:
    release_id: int
    directory: Path
    configs: list[HubConfig]
    files: list[HubFile] = field(default_factory=list)

    @property
    def rows(self) -> int:
        return sum(f.rows for f in self.files)

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files)

    def config_files(self, name: str) -> list[HubFile]:
        return [f for f in self.files if f.config == name]


def release_hub_write(
    *, release: Release, output: Path, force: bool = False, progress: Progress | None = None
) -> HubFolder:
    """Write the release's Hugging Face dataset folder into `output` (a directory, created;
    an existing non-empty one only with `force`, and then replaced whole)."""
    output = Path(output)
    _output_check(output=output, force=force)
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.parent / f".{output.name}.{uuid.uuid4().hex}.tmp"
    tmp.mkdir()
    try:
        folder = _hub_folder_write(release=release, directory=tmp, progress=progress)
        _replace_dir(source=tmp, target=output, force=force)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return HubFolder(
        release_id=folder.release_id, directory=output, configs=folder.configs, files=folder.files
    )


def _output_check(*, output: Path, force: bool) -> None:
    if output.exists() and not output.is_dir():
        raise HubOutputError(f"{output} exists and is not a directory; the hub folder is one")
    if output.is_dir() and any(output.iterdir()) and not force:
        raise HubOutputError(
            f"{output} is not empty; choose a new directory, or replace it whole with --force"
        )


def _replace_dir(*, source: Path, target: Path, force: bool) -> None:
    """Rename the finished folder into place. An existing target (checked empty, or allowed by
    `force`) is moved aside first, so the target never holds half of each."""
    if not target.exists():
        os.rename(source, target)
        return
    _output_check(output=target, force=force)  # again: it may have changed while we wrote
    aside = target.parent / f".{target.name}.{uuid.uuid4().hex}.old"
    os.rename(target, aside)
    try:
        os.rename(source, target)
    except OSError:
        os.rename(aside, target)
        raise
    shutil.rmtree(aside, ignore_errors=True)


def _hub_folder_write(*, release: Release, directory: Path, progress: Progress | None) -> HubFolder:
    files = {(f.kind, f.format): f for f in ReleaseFile.objects.filter(release=release)}
    label = f"{release.dataset.name} r{release.number} (release id {release.pk})"
    readme_row, card_row = files.get(("card", "md")), files.get(("card", "json"))
    if readme_row is None or card_row is None:
        raise HubCardMissingError(
            f"release {label} was made before dataset cards existed: it has no README.md and "
            "card.json to write the hub folder from. Make a new release of the dataset "
            f"(python manage.py release_dataset --dataset {release.dataset.name!r}, or the "
            "release page's form) and export that one"
        )
    staging = directory / ".frozen"
    staging.mkdir()
    _verified_copy(release_file=readme_row, output=directory / "README.md")
    card = json.loads(
        _verified_copy(release_file=card_row, output=staging / "card.json").read_bytes()
    )
    if "hub_configs" not in card:
        raise HubCardMissingError(
            f"release {label}: its card.json lists no hub configs (written before the hub "
            "folder existed); make a new release of the dataset and export that one"
        )
    configs = [HubConfig.from_json(entry) for entry in card["hub_configs"]]
    front = hub_front_matter((directory / "README.md").read_text(encoding="utf-8"))
    _card_configs_check(label=label, configs=configs, front=front)

    layout = card.get("layout") or {}
    total = sum(_expected_rows(layout, config, language) for config in configs
                for language in config.splits.values())  # fmt: skip
    written: list[HubFile] = [HubFile(path="README.md", size=readme_row.size)]
    done = 0
    for kind in dict.fromkeys(config.kind for config in configs):
        table_row = files.get((kind, "parquet"))
        if table_row is None:
            raise HubSourceError(
                f"release {label}: its card lists {kind} but it has no {kind}.parquet"
            )
        frozen = _verified_copy(release_file=table_row, output=staging / f"{kind}.parquet")
        kind_configs = [config for config in configs if config.kind == kind]
        _features_check(label=label, path=frozen, configs=kind_configs, front=front)

        def report(rows: int) -> None:
            nonlocal done
            done += rows
            if progress:
                progress(done, total)

        written += _kind_splits_write(
            frozen=frozen, configs=kind_configs, directory=directory, report=report
        )
        frozen.unlink()
    shutil.rmtree(staging)
    for hub_file in written:
        if hub_file.config:
            config = next(c for c in configs if c.name == hub_file.config)
            expected = _expected_rows(layout, config, hub_file.language)
            if layout and hub_file.rows != expected:
                raise HubSourceError(
                    f"release {label}: {hub_file.path} has {hub_file.rows} rows, its card "
                    f"counts {expected}; not exported"
                )
    return HubFolder(release_id=release.pk, directory=directory, configs=configs, files=written)


def _verified_copy(*, release_file: ReleaseFile, output: Path) -> Path:
    try:
        release_file_verify_copy(release_file=release_file, output=output)
    except KasautiError as exc:
        if exc.__class__ is KasautiError:  # the checksum mismatch: the store, not the request
            raise HubSourceError(str(exc)) from exc
        raise
    return output


def _card_configs_check(*, label: str, configs: list[HubConfig], front: dict) -> None:
    """README.md's configs must be card.json's, file for file: the folder holds what the card
    lists, so that `load_dataset(DIR, CONFIG)` works for every config it names."""
    listed = {
        entry.get("config_name"): {f["split"]: f["path"] for f in entry.get("data_files") or []}
        for entry in front.get("configs") or []
    }
    ours = {c.name: {split: c.path(split) for split in c.splits} for c in configs}
    if listed != ours:
        raise HubSourceError(
            f"release {label}: README.md lists the configs {sorted(map(str, listed))}, card.json "
            f"{sorted(ours)} (or their files differ); the card is inconsistent, not exported"
        )


def _features_check(*, label: str, path: Path, configs: list[HubConfig], front: dict) -> None:
    """The frozen file's columns must be the features the card declares: `datasets` casts
    every split to the card's features and fails on a mismatch; better to say so here."""
    features = {e.get("config_name"): e.get("features") for e in front.get("dataset_info") or []}
    try:
        actual = hub_features(pq.read_schema(path))
    except ValueError as exc:  # a column of a type the Hub's features cannot say
        raise HubSourceError(f"release {label}: {path.name}: {exc}; not exported") from exc
    for config in configs:
        declared = features.get(config.name)
        if declared is not None and declared != actual:
            names = [f["name"] for f in declared]
            raise HubSourceError(
                f"release {label}: the card declares {config.name}'s features as {names}, "
                f"{path.name} has {[f['name'] for f in actual]} (or their types differ); "
                "not exported"
            )


def _expected_rows(layout: dict, config: HubConfig, language: str) -> int:
    by_category = layout.get(config.kind) or {}
    categories = [config.category] if config.category is not None else list(by_category)
    return sum((by_category.get(c) or {}).get(language, 0) for c in categories)


@dataclass
class _Split:
    config: HubConfig
    split: str
    language: str
    path: Path
    relative: str
    writer: pq.ParquetWriter | None = None
    pending: list[pa.Table] = field(default_factory=list)
    pending_rows: int = 0
    rows: int = 0


def _kind_splits_write(
    *, frozen: Path, configs: list[HubConfig], directory: Path, report: Callable[[int], None]
) -> list[HubFile]:
    """One pass over a kind's frozen table: each batch is cut into the splits that take its
    rows (by category and language, in the order they come), buffered per split and written a
    row group at a time."""
    source = pq.ParquetFile(frozen)
    schema = source.schema_arrow
    splits: list[_Split] = []
    for config in configs:
        for split, language in config.splits.items():
            relative = config.path(split)
            splits.append(_Split(config, split, language, directory / relative, relative))
    by_language: dict[str, list[_Split]] = {}
    for s in splits:
        by_language.setdefault(s.language, []).append(s)
    buffered = 0

    def flush(s: _Split) -> None:
        nonlocal buffered
        if not s.pending:
            return
        if s.writer is None:
            s.path.parent.mkdir(parents=True, exist_ok=True)
            s.writer = pq.ParquetWriter(s.path, schema, compression="zstd")
        s.writer.write_table(pa.concat_tables(s.pending), row_group_size=BATCH_SIZE)
        buffered -= s.pending_rows
        s.pending, s.pending_rows = [], 0

    try:
        for batch in source.iter_batches(batch_size=READ_BATCH):
            categories = batch.column("category")
            languages = batch.column("language")
            taken = 0
            for language in pc.unique(languages).to_pylist():
                in_language = pc.equal(languages, language)
                for s in by_language.get(language, []):
                    if s.config.category is None:
                        mask = in_language
                    else:
                        mask = pc.and_(in_language, pc.equal(categories, s.config.category))
                    part = pa.Table.from_batches([batch.filter(mask)], schema=schema)
                    if not part.num_rows:
                        continue
                    s.pending.append(part)
                    s.pending_rows += part.num_rows
                    s.rows += part.num_rows
                    buffered += part.num_rows
                    taken += part.num_rows
                    if s.pending_rows >= BATCH_SIZE:
                        flush(s)
            if buffered > BUFFERED_ROWS_MAX:
                for s in splits:
                    flush(s)
            report(taken)
        for s in splits:
            flush(s)
            if s.writer is None:  # a split the card lists but no row fills: an empty file
                s.path.parent.mkdir(parents=True, exist_ok=True)
                s.writer = pq.ParquetWriter(s.path, schema, compression="zstd")
    finally:
        for s in splits:
            if s.writer is not None:
                s.writer.close()
    return [
        HubFile(
            path=s.relative,
            size=s.path.stat().st_size,
            rows=s.rows,
            config=s.config.name,
            split=s.split,
            language=s.language,
        )
        for s in splits
    ]


# --- the download ---------------------------------------------------------------------------


def release_hub_zip_name(*, release: Release) -> str:
    """<dataset>-r<number>-hub: the zip's name and the folder its entries sit in."""
    return f"{slugify(release.dataset.name) or 'dataset'}-r{release.number}-hub"


def hub_folder_entries(*, directory: Path) -> list[str]:
    """The folder's files, relative with forward slashes, sorted (the zip's order)."""
    return sorted(
        path.relative_to(directory).as_posix() for path in directory.rglob("*") if path.is_file()
    )


class _Chunks(io.RawIOBase):
    """A write-only, unseekable sink that hands on what zipfile writes: zipfile then writes
    each entry's sizes after its data (a data descriptor), so nothing is held back."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.position = 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self.parts.append(bytes(data))
        self.position += len(data)
        return len(data)

    def tell(self) -> int:  # zipfile asks for offsets; seeking stays unsupported
        return self.position

    def take(self) -> bytes:
        data, self.parts = b"".join(self.parts), []
        return data


def hub_folder_zip_stream(*, directory: Path, prefix: str) -> Iterator[bytes]:
    """The folder as a zip, yielded in blocks as it is made: entries sorted, stored (Parquet
    is already compressed), with fixed times and modes, so the same folder gives the same
    bytes. Each entry is `<prefix>/<path>`."""
    sink = _Chunks()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_STORED) as archive:
        for relative in hub_folder_entries(directory=directory):
            path = directory / relative
            info = zipfile.ZipInfo(f"{prefix}/{relative}", date_time=ZIP_DATE_TIME)
            info.create_system = 3  # Unix, wherever the zip is made
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            info.compress_type = zipfile.ZIP_STORED
            info.file_size = path.stat().st_size  # decides zip64 up front
            with open(path, "rb") as source, archive.open(info, "w") as entry:
                while block := source.read(ZIP_BLOCK):
                    entry.write(block)
                    if sink.parts:
                        yield sink.take()
            if sink.parts:
                yield sink.take()
    if sink.parts:  # the central directory, written when the archive closes
        yield sink.take()


class HubZipStream:
    """The zip of a release's hub folder, for a streaming response: the folder is written
    (into a temporary directory) when this is made, so a refusal comes before the first byte;
    the zip is made while it is sent; close() removes the directory, sent or not."""

    def __init__(self, *, release: Release) -> None:
        self.name = release_hub_zip_name(release=release)
        self.tmp = Path(tempfile.mkdtemp(prefix="kasauti-hub-", dir=settings.FILE_UPLOAD_TEMP_DIR))
        try:
            self.folder = release_hub_write(release=release, output=self.tmp / self.name)
        except BaseException:
            self.close()
            raise

    def __iter__(self) -> Iterator[bytes]:
        return hub_folder_zip_stream(directory=self.folder.directory, prefix=self.name)

    def close(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)
