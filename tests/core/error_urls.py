"""URLs for tests/core/test_error_pages.py: the site's routes plus one view that fails."""

from django.urls import path

from kasauti.urls import handler404, handler500  # noqa: F401
from kasauti.urls import urlpatterns as site_urlpatterns


def broken(request):
    raise RuntimeError("a bug in a view")


urlpatterns = [path("broken/", broken), *site_urlpatterns]
