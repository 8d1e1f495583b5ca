"""Project-wide list pagination."""

from __future__ import annotations

from rest_framework.pagination import LimitOffsetPagination


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    """limit/offset pages with a ceiling on `limit`: an unbounded `?limit=` let one request
    ask the database for any number of rows (and a limit past bigint was a 500). Larger
    values are cut to the ceiling, as DRF does for max_limit."""

    default_limit = 100
    max_limit = 1000
