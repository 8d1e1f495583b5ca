"""What management commands share: how a refused import is reported."""

from __future__ import annotations

import json
from typing import NoReturn

from django.core.management.base import BaseCommand, CommandError

from .errors import ImportRejected


def command_import_rejected(
    *, command: BaseCommand, rejected: ImportRejected, as_json: bool
) -> NoReturn:
    """Print every problem of a refused import (JSON on stdout, or one a line on stderr) and
    exit non-zero: the same words from every import command (import_benchmark,
    import_survey)."""
    if as_json:
        command.stdout.write(
            json.dumps(
                {
                    "detail": "import rejected, nothing was written",
                    "problems": [problem.as_dict() for problem in rejected.problems],
                },
                ensure_ascii=False,
                indent=2,
            )
        )
    else:
        command.stderr.write(str(rejected))
    raise CommandError(
        f"import rejected: {len(rejected.problems)} problem(s), nothing was written"
    ) from None
