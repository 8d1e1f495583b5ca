"""The page that starts a CrowS-Pairs, SEAT or IndiCASA run from the browser."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from apps.accounts.decorators import researcher_required
from apps.core.errors import KasautiError

from .forms_bias import BiasRunForm
from .services.crows import crows_run_create
from .services.indicasa import indicasa_generate_run_create, indicasa_train_run_create
from .services.seat import seat_run_create


def _start(data: dict, user):
    kind, languages = data["kind"], data["languages"] or None
    common = {"dataset": data["dataset"], "seed": data["seed"], "created_by": user}
    if kind == "crows":
        return crows_run_create(model=data["model"], languages=languages, **common)
    if kind == "seat":
        return seat_run_create(model=data["model"], languages=languages, **common)
    if kind == "indicasa_train":
        return indicasa_train_run_create(
            model=data["model"],
            loss=data["loss"],
            epochs=data["epochs"],
            languages=languages,
            **common,
        )
    return indicasa_generate_run_create(
        model=data["model"],
        encoder=data["encoder"],
        rounds=data["rounds"],
        languages=languages,
        **common,
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
