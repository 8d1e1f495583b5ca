from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views import defaults


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness + database check for load balancers and docker-compose health checks."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def not_found(request: HttpRequest, exception: Exception):
    """404 for a path no route matches (e.g. /api/datasets/abc/): JSON under /api/, as every
    other API error, and the HTML page elsewhere."""
    if _is_api(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest):
    if _is_api(request):
        return JsonResponse({"detail": "Server error."}, status=500)
    return defaults.server_error(request)
