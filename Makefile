# Bingo hall: the two everyday commands are `make demo` and `make test`.
#   make demo   run the demo (embedded SQLite, no service needed)
#   make test   install test deps, make sure PostgreSQL/Mosquitto/Chromium are
#               there and running (scripts/ensure-services.sh), run pytest.
#               Extra pytest arguments: make test PYTEST_ARGS='-k draw -x'
#               The test files run side by side, one worker a core (TEST_WORKERS=auto;
#               TEST_WORKERS=0 runs them one after the other in one process).
#   make lint   ruff check .
#   make train  retrain the CCTV label reader (docs/vision.md)

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

# Where the tests find the real services; override from the environment.
BINGO_TEST_PG_ADMIN_URL ?= postgresql+psycopg://bingo:bingo@127.0.0.1:5432/postgres
BINGO_TEST_MQTT_URL     ?= mqtt://127.0.0.1:1883
PYTEST_ARGS             ?=
TEST_WORKERS            ?= auto

.PHONY: demo test lint services venv train

demo: $(VENV)/.installed-demo
	$(BIN)/bingo-hall demo

test: $(VENV)/.installed-test
	ENSURE_EXTRA_PACKAGES="$$($(BIN)/python -c 'from bingo_hall.vision.styles import TRAINING_FONT_PACKAGES as p; print(*p)')" \
	scripts/ensure-services.sh
	BINGO_TEST_PG_ADMIN_URL='$(BINGO_TEST_PG_ADMIN_URL)' \
	BINGO_TEST_MQTT_URL='$(BINGO_TEST_MQTT_URL)' \
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .

services:
	scripts/ensure-services.sh

venv: $(BIN)/python

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall only when pyproject.toml changed since the last install.
$(VENV)/.installed-demo: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e .
	touch $@

# The tests include a small real training run, so they install the training extra too.
$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[test,train]'
	touch $@

$(VENV)/.installed-train: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[train]'
	touch $@

# Retrain the CCTV label reader into bingo_hall/vision/model/ (docs/vision.md gives the
# time on two cores). Needs the Debian font packages named in bingo_hall/vision/styles.py
# (TRAINING_FONT_PACKAGES); the script says which are missing.
train: $(VENV)/.installed-train
	OPENBLAS_NUM_THREADS=1 $(BIN)/python -m bingo_hall.vision.train
