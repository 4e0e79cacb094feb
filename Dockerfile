# syntax=docker/dockerfile:1.7
# external-dns-py container image: `docker build -t external-dns-py:0.1.0 .`
# Stage 1 builds wheels for the project and every dependency; stage 2 installs them from that local
# directory only (no compiler, no network, no build tools left behind) and runs as a numeric non-root user.
ARG PYTHON_IMAGE=python:3.11.13-slim-bookworm
# Keep equal to [project].version in pyproject.toml (tests/charts checks it).
ARG VERSION=0.1.0

FROM ${PYTHON_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1
WORKDIR /src
COPY pyproject.toml README.md* ./
COPY external_dns ./external_dns
RUN python -m pip wheel --wheel-dir /wheels .

FROM ${PYTHON_IMAGE}
ARG VERSION
LABEL org.opencontainers.image.title="external-dns-py" \
      org.opencontainers.image.description="Keeps DNS records at DNS providers in step with Kubernetes (ExternalDNS-compatible)" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}"
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    python -m pip install --no-index --find-links=/wheels "external-dns-py==${VERSION}" \
    && python -m pip uninstall --yes setuptools wheel \
    && python -m compileall -q "$(python -c 'import external_dns, os; print(os.path.dirname(external_dns.__file__))')"
USER 65532:65532
EXPOSE 7979
ENTRYPOINT ["external-dns"]
