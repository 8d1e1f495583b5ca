"""An instance's provenance page (issue 22): the chain from concept to releases, top to bottom.

Every registered step is shown, in order, by its own template (context: `data`, its
collect's answer, and `instance`, the Instance row); a step that does not apply to this
instance is shown as such, so the reader sees the whole chain and where it stops. The page
knows no step by name: the translation and validation steps of the apps above render exactly
as the releases app's own.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from apps.accounts.decorators import role_required
from apps.catalog.models import OptionRole

from .provenance import (
    InstanceNotFound,
    instance_facts,
    instance_provenance_get,
    provenance_steps_collect,
)


@require_GET
@role_required
def instance_provenance(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        instance = instance_provenance_get(instance_id=pk)
    except InstanceNotFound as error:
        raise Http404(str(error)) from None
    facts = instance_facts(instance=instance)
    labels = dict(OptionRole.choices)
    # An instance imported from a published file may carry no roles (or other ones).
    roles = list(facts["option_roles"] or [])
    options = [
        {
            "text": text,
            "role": labels.get(roles[index], roles[index]) if index < len(roles) else "",
            "gold": index == facts["label"],
        }
        for index, text in enumerate(facts["answers"])
    ]
    return render(
        request,
        "releases/provenance.html",
        {
            "instance": instance,
            "facts": facts,
            "options": options,
            "results": provenance_steps_collect(instance=instance),
        },
    )
