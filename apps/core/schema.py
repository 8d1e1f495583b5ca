"""OpenAPI post-processing: every operation documents the errors it can answer with.

drf-spectacular documents the success responses a view declares; DRF itself adds 400
(validation, bad filter values), 401/403 (authentication, roles), 404, 405 and 429
(throttles) to any view. Clients (and the schemathesis run in the test suite) must find
those in the schema, so they are added here where a view has not declared its own.
"""

from __future__ import annotations

from typing import Any

_DETAIL = {
    "type": "object",
    "properties": {"detail": {"type": "string"}},
    "required": ["detail"],
}
# A DRF validation error: {"field": ["message", ...], ...} or {"detail": "..."}.
_VALIDATION = {
    "type": "object",
    "additionalProperties": {},
    "description": "Field name -> list of messages, or `detail`.",
}

ERRORS: dict[str, tuple[str, dict[str, Any]]] = {
    "400": ("Invalid input: the body names each field (or query parameter) and why.", _VALIDATION),
    "401": ("Not signed in (no session and no token).", _DETAIL),
    "403": ("Signed in, but the account's role does not allow this.", _DETAIL),
    "404": ("No such object.", _DETAIL),
    "405": ("Method not allowed.", _DETAIL),
    "406": ("No acceptable response format.", _DETAIL),
    "415": ("Unsupported request media type.", _DETAIL),
    "429": ("Too many requests; Retry-After gives the seconds to wait.", _DETAIL),
}
# Writes can also conflict with what is stored (a name taken, a release that exists...).
WRITE_ERRORS = {"409": ("Conflicts with the current state; `detail` says how.", _DETAIL)}
# An operation that queues a background job (it answers 202) cannot when the task broker is
# down: the job is failed with the reason and the answer is 503 (apps.core.services.task_send).
QUEUE_ERRORS = {
    "503": (
        "The task broker cannot be reached: nothing was queued (the job, if one was made, is "
        "failed with the reason); try again once it is up.",
        _DETAIL,
    )
}


def add_error_responses(result: dict[str, Any], generator, request, public) -> dict[str, Any]:
    components = result.setdefault("components", {}).setdefault("schemas", {})
    components.setdefault("ErrorDetail", _DETAIL)
    components.setdefault("ValidationError", _VALIDATION)
    refs = {
        id(_DETAIL): {"$ref": "#/components/schemas/ErrorDetail"},
        id(_VALIDATION): {"$ref": "#/components/schemas/ValidationError"},
    }
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            responses = operation.setdefault("responses", {})
            errors = ERRORS | (WRITE_ERRORS if method in {"post", "put", "patch"} else {})
            if "202" in responses:
                errors |= QUEUE_ERRORS
            for code, (description, schema) in errors.items():
                if code in responses:
                    continue
                responses[code] = {
                    "description": description,
                    "content": {"application/json": {"schema": refs[id(schema)]}},
                }
    return result
