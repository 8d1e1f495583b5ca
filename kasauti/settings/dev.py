"""Local development and the `make run` demo: embedded defaults, debug on."""

import os

from .base import *  # noqa: F403
from .base import env_bool, env_list

DEBUG = env_bool("DEBUG", True)
# A fixed key is acceptable only here: dev settings are never used to serve real users.
SECRET_KEY = os.environ.get("SECRET_KEY", "kasauti-dev-only-insecure-key")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
# runserver serves static files itself; whitenoise finds them in the app folders.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
