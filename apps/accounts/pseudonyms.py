"""How a person is named in what a release publishes (issue 22: a dataset card, a provenance
chain, a changelog): never a name, a username or an email, but `<role>-<8 hex digits>`, an
HMAC of the account id under the site's SECRET_KEY. The one rule for every release output.

The same person gets the same pseudonym everywhere (a reader can tell that two judgements or
two corrections were one person's work) and across releases, but it cannot be turned back into
an account without the key (a bare account id could be enumerated)."""

from __future__ import annotations

import hmac
from hashlib import sha256

from django.conf import settings

PSEUDONYM_DIGITS = 8


def person_pseudonym(*, user_id: int | None, role: str = "annotator") -> str | None:
    """`<role>-<8 hex>`; None for no user (an import, a deleted account)."""
    if user_id is None:
        return None
    digest = hmac.new(
        settings.SECRET_KEY.encode("utf-8"), f"provenance:{user_id}".encode("ascii"), sha256
    ).hexdigest()
    return f"{role}-{digest[:PSEUDONYM_DIGITS]}"
