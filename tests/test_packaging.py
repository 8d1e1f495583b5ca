"""A built wheel carries the data files the code reads at run time (not only a checkout)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_contains_the_seat_data(tmp_path):
    # Built from a copy: setuptools leaves build/ and *.egg-info beside the sources, and a
    # stale build/ from an earlier run would hide a missing declaration.
    source = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("apps", "kasauti", "worker"):
        shutil.copytree(ROOT / name, source / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    # --no-build-isolation: the venv's setuptools, nothing downloaded; --no-deps: Kasauti only.
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(tmp_path / "dist"),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = (tmp_path / "dist").glob("kasauti-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert "apps/evaluation/data/seat.json" in archive.namelist()
        shipped = archive.read("apps/evaluation/data/seat.json")
    assert shipped == (ROOT / "apps/evaluation/data/seat.json").read_bytes()
