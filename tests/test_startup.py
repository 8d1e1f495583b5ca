"""Start-up cost: loading the URL conf (which every management command does through Django's
system checks, and every web process and worker does) must not import the heavy libraries.
They are imported where they are used, inside the function that needs them (issue 19: a
`manage.py instantiate --dry-run` took 4+ s, most of it in imports nobody used)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Each was imported by the URL conf once (with the time it took there, on the 2-core machine):
# scikit-learn and statsmodels through annotation agreement (~1.5 s), indic-nlp-library with
# pandas and sacremoses through the translation services (~0.5 s), drf_spectacular's schema
# views with its generator (~0.2 s); the model libraries belong to workers' engines only.
HEAVY_MODULES = (
    "pandas",
    "scipy",
    "sklearn",
    "statsmodels",
    "torch",
    "transformers",
    "sentence_transformers",
    "tokenizers",
    "huggingface_hub",
    "ctranslate2",
    "sentencepiece",
    "sacremoses",
    "indicnlp",
    "drf_spectacular.generators",
    "drf_spectacular.views",
)

_PROBE = """
import json, sys
import django
django.setup()
import kasauti.urls
from django.core import checks
checks.run_checks()
print(json.dumps(sorted(m for m in json.loads(sys.argv[1]) if m in sys.modules)))
"""


def test_url_conf_and_system_checks_import_no_heavy_library():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": os.environ.get("DJANGO_SETTINGS_MODULE", "kasauti.settings.test"),
        "PYTHONPATH": str(ROOT),
    }
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(HEAVY_MODULES)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    imported = json.loads(result.stdout.strip().splitlines()[-1])
    assert imported == [], f"imported at start-up: {', '.join(imported)}"
