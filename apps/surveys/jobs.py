"""The survey app's kinds of background job (apps/core/registry.py JobKind)."""

from __future__ import annotations

JOB_KINDS: list = []
