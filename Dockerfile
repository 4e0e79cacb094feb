# syntax=docker/dockerfile:1.7
# external-dns-py's image for hosts with a container engine: `docker build -t external-dns-py:0.1.0 .`
# It describes the image `make image` builds without an engine (image/, docs/image.md), and
# tests/image/test_dockerfile.py compares the two: Debian bookworm's python3.11 with no shell (distroless
# python3-debian12, uid 65532), the project with every runtime extra of pyproject.toml (image/extras.py) in
# /opt/external-dns, installed by that python3.11 from local wheels only, less the data it never loads
# (image/prune.py), byte-compiled; the same labels, environment, user, port and entrypoint.
ARG BUILD_IMAGE=debian:12-slim
ARG BASE_IMAGE=gcr.io/distroless/python3-debian12:nonroot
# Keep equal to [project].version in pyproject.toml and PIP_VERSION to image/venv.py's (tests check both).
ARG VERSION=0.1.0
ARG PIP_VERSION=26.3

FROM ${BUILD_IMAGE} AS build
ARG PIP_VERSION
# Debian's python3.11 (the base image's own) and its venv module; Debian's security updates move the version.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3.11-venv \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml README.md ./
COPY external_dns ./external_dns
COPY image/extras.py image/prune.py ./image/
# Wheels first (the only step that downloads), then the venv from them alone, as `make image` does.
RUN python3.11 -m venv /tools \
    && /tools/bin/pip install --no-cache-dir "pip==${PIP_VERSION}" \
    && /tools/bin/pip wheel --no-cache-dir --wheel-dir /wheels "$(python3.11 image/extras.py --source .)" \
       "pip==${PIP_VERSION}"
RUN python3.11 -m venv --without-pip /opt/external-dns \
    && /opt/external-dns/bin/python "/wheels/pip-${PIP_VERSION}-py3-none-any.whl/pip" install --no-index \
       --find-links=/wheels --no-compile --no-cache-dir "$(python3.11 image/extras.py)" \
    && python3.11 image/prune.py /opt/external-dns/lib/python3.11/site-packages \
    && /opt/external-dns/bin/python -m compileall -q --invalidation-mode unchecked-hash \
       -x '/cloudflare/(resources|types)/(?!(addressing|dns|shared|zones)/)[^/]+/' /opt/external-dns/lib/python3.11/site-packages

FROM ${BASE_IMAGE}
ARG VERSION
ARG REVISION=""
LABEL org.opencontainers.image.title="external-dns-py" \
      org.opencontainers.image.description="Kubernetes controller keeping DNS records at real DNS providers in step with the cluster (ExternalDNS-compatible)" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.revision="${REVISION}"
COPY --from=build /opt/external-dns /opt/external-dns
ENV PATH=/opt/external-dns/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
USER 65532:65532
EXPOSE 7979
ENTRYPOINT ["external-dns"]
