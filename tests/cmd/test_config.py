"""The typed configuration built from the flags (cmd/config.py): the source flags' errors name the flag."""

from __future__ import annotations

import pytest

from external_dns.cmd.config import load_config
from external_dns.cmd.flags import ConfigError


def test_flag_errors() -> None:
    with pytest.raises(ConfigError, match="--label-filter does not specify a valid label selector"):
        load_config(["--source=service", "--provider=inmemory", "--policy=sync", "--label-filter=a in (b"])
    with pytest.raises(ConfigError, match="--crd-source-apiversion"):
        load_config(["--source=crd", "--provider=inmemory", "--policy=sync", "--crd-source-kind=Other"])
    _parser, cfg = load_config(["--source=service", "--provider=inmemory", "--policy=sync",
                                "--listen-endpoint-events", "--request-timeout=10s"])
    assert cfg.sources.listen_endpoint_events is True and cfg.kube.request_timeout == 10.0
