# Kasauti: the two commands a newcomer needs are `make run` and `make test` (see README.md).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml constraints.txt | sha1sum | cut -c1-12)

# The import tests, BBQ's generator (names and word draws) and the release guard triggers also
# run on SQLite: every tests/catalog/test_import*.py file, tests/catalog/test_bbq_generator.py,
# tests/releases/test_guards.py, the provenance column on the row-dict path
# (tests/releases/test_provenance_column.py), a release's card, changelog and provenance with
# the translation section (whose figures SQLite groups in Python), the survey imports
# (tests/surveys/test_import*.py), and the studio's adaptation record, report and template
# export (tests/catalog/test_adaptation_*.py,
# tests/catalog/test_export_templates.py), and a run split into parts
# (tests/evaluation/test_run_parts.py).
SQLITE_TESTS := $(wildcard tests/catalog/test_import*.py) tests/catalog/test_bbq_generator.py \
	tests/releases/test_guards.py tests/releases/test_provenance_column.py \
	tests/releases/test_card.py tests/releases/test_changelog.py tests/releases/test_provenance.py \
	tests/translation/test_release_card.py \
	$(wildcard tests/surveys/test_import*.py) \
	$(wildcard tests/catalog/test_adaptation_*.py) tests/catalog/test_export_templates.py \
	tests/evaluation/test_run_parts.py

.PHONY: run test setup services lint bench clean

# Create the virtual environment and install Kasauti. torch is installed first and pinned: the
# CPU build lies on this machine's disk; an unpinned torch would pull a multi-GB CUDA build.
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	rm -f $(VENV)/.installed-* && touch $@

setup: $(STAMP)

# Set up and start the app on the embedded default: SQLite file + kombu filesystem broker,
# web server and a real Celery worker. DATABASE_URL / CELERY_BROKER_URL switch to PostgreSQL
# and Redis.
run: setup
	scripts/run.sh

# Set up and run the whole test suite against real PostgreSQL and Redis (started if down)
# and a real headless Chromium; then the import tests again on SQLite, the `make run` default.
test: setup services
	$(BIN)/python -m pytest
	$(BIN)/python -m pytest -p no:cacheprovider --ds=kasauti.settings.test_sqlite $(SQLITE_TESTS)

services:
	scripts/test-services.sh

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: setup services
	$(BIN)/python bench/p1_instantiate.py
	$(BIN)/python bench/p2_export.py

clean:
	rm -rf var .pytest_cache
