"""The page that starts a CrowS-Pairs, SEAT or IndiCASA run from the browser."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from apps.accounts.decorators import researcher_required
from apps.core.errors import KasautiError

from .forms_bias import BiasRunForm
from .registry import evaluation_kind_get


def _start(data: dict, user):
    """Start a run of the chosen kind with the form fields that kind takes."""
    kind = evaluation_kind_get(data["kind"])
    return kind.create_run(
        dataset=data["dataset"],
        seed=data["seed"],
        languages=data["languages"],
        created_by=user,
        **{name: data[name] for name in kind.form_fields},
    )


@require_http_methods(["GET", "POST"])
@researcher_required
def bias_run_new(request: HttpRequest) -> HttpResponse:
    form = BiasRunForm(request.POST or None, initial={"kind": request.GET.get("kind")})
    if request.method == "POST" and form.is_valid():
        try:
            run = _start(form.cleaned_data, request.user)
        except KasautiError as exc:
            form.add_error(None, str(exc))
        else:
            return redirect("evaluation:run", pk=run.pk)
    return render(request, "evaluation/bias_run_new.html", {"form": form})
