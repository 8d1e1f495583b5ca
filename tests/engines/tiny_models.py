"""Tiny IndicTrans2-shaped checkpoints for the tests.

The builder moved to ``worker.engines.tiny`` so that ``manage.py build_demo_models`` can use it
without importing the test suite; this module keeps the old import path working.
"""

from __future__ import annotations

from worker.engines.tiny import DIRECTIONS, build_tiny_indictrans2, main

__all__ = ["DIRECTIONS", "build_tiny_indictrans2", "main"]

if __name__ == "__main__":
    main()
