"""Fixtures of the image tests: the built image (dist/, `make image`), unpacked once per session, and pods of it
configured from the chart (tests/image/runtime.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.image.runtime import Built, Pod, built, chart_container, unpack


@pytest.fixture(scope="session")
def image() -> Built:
    return built()


@pytest.fixture(scope="session")
def bundle(image: Built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return unpack(image, tmp_path_factory.mktemp("image") / "bundle")


@pytest.fixture
def make_pod(bundle: Path, tmp_path: Path) -> Callable[..., Pod]:
    """A pod of the image from the chart rendered with `values` (the chart's defaults when none)."""

    def make(values: dict[str, Any] | None = None, mounts: dict[str, Path] | None = None,
             env: dict[str, str] | None = None) -> Pod:
        container, pod = chart_container(values)
        return Pod(bundle, container, pod, tmp_path, dict(mounts or {}), dict(env or {}))

    return make
