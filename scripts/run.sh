#!/usr/bin/env bash
# Start Kasauti: migrate, load the demo catalog, create demo accounts, then run a Celery worker
# and the web server. Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC1091
. .venv/bin/activate
export DJANGO_SETTINGS_MODULE="${DJANGO_SETTINGS_MODULE:-kasauti.settings.dev}"
ADDR="${KASAUTI_ADDR:-127.0.0.1:8000}"

python manage.py migrate --noinput
python manage.py load_demo
python manage.py create_demo_accounts
# The real IndicTrans2 weights cannot be downloaded here (README: "Getting the model weights").
# So that the translation pipeline can be tried on the demo, tiny random-weight models are
# built when no model is configured; their translations are gibberish, and say so.
python manage.py build_demo_models --if-missing
# The same for evaluation: a tiny random-weight causal LM (BBQ-style runs) and masked LM
# (CrowS-Pairs) under KASAUTI_MODEL_ROOT, registered as demo models; every page that shows
# their figures says "random weights, demo".
python manage.py build_demo_eval_models --if-missing

mkdir -p "${KASAUTI_VAR_DIR:-var}"
WORKER_LOG="${KASAUTI_VAR_DIR:-var}/worker.log"
celery -A worker.celery_app worker -Q default,gpu --concurrency 1 --loglevel INFO \
    --without-gossip --without-mingle >"$WORKER_LOG" 2>&1 &
WORKER_PID=$!
trap 'kill "$WORKER_PID" 2>/dev/null || true; wait "$WORKER_PID" 2>/dev/null || true' EXIT
trap 'exit 0' INT TERM
echo "Celery worker started (pid $WORKER_PID, log $WORKER_LOG)."
echo "Kasauti: http://$ADDR/  (API docs: http://$ADDR/api/docs/, admin: http://$ADDR/admin/)"
if [ -z "${KASAUTI_EMAIL_BACKEND:-}" ]; then
    echo "Mail (password resets, invitations) is printed below, not sent: console e-mail backend."
fi
python manage.py runserver --noreload "$ADDR"
