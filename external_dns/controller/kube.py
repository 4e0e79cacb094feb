"""Builds the Kubernetes API client from the flags: `--kubeconfig` / `--server` / in-cluster.

Lookup order (external-dns `GetRestConfig`, plus `$KUBECONFIG`): an explicit `--kubeconfig`; else
`$KUBECONFIG`; else `~/.kube/config` if it exists; else the in-cluster service account; else, with only
`--server`, an unauthenticated client for that URL. `--server` overrides the kubeconfig's server.

The returned `ApiClient` applies `--kube-api-request-timeout` to every request that does not pass its own
`_request_timeout` (watches always should), and a client-side token bucket of `--kube-api-qps` /
`--kube-api-burst` (like client-go's rest.Config QPS/Burst) in front of every request, and times every
request into `external_dns_http_request_duration_seconds` (external-dns wraps its client-go transport the
same way: to the answer's headers, so a watch counts until it is established).
"""

from __future__ import annotations

import os
import platform
import stat
import sys
import threading
import time
import weakref
from pathlib import Path
from typing import Any

import structlog
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.config.config_exception import ConfigException

from external_dns import __version__
from external_dns.errors import ConfigError
from external_dns.metrics_http import observe_request
from external_dns.workqueue.limiters import BucketRateLimiter

log = structlog.get_logger(__name__)

_THROTTLE_LOG_AFTER = 1.0  # client-go logs "Waited for ... due to client-side throttling" above 1 s
MAX_KUBECONFIG_BYTES = 16 * 1024 * 1024  # a kubeconfig is kilobytes; the library reads it whole


def _kubeconfig_path(explicit: str) -> str:
    if explicit:
        return explicit
    env = os.environ.get("KUBECONFIG", "").split(os.pathsep)[0]
    if env:
        return env
    home = Path.home() / ".kube" / "config"
    return str(home) if home.is_file() else ""


# where Kubernetes mounts the pod's service account (token, ca.crt); a module constant so tests can move it
SERVICE_ACCOUNT_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")


def _in_cluster() -> bool:
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST")) and (SERVICE_ACCOUNT_DIR / "token").is_file()


def _load_in_cluster(configuration: k8s_client.Configuration) -> None:
    """The service account's token (re-read when it rotates) and CA, `https://$KUBERNETES_SERVICE_HOST:PORT`."""
    from kubernetes.config.incluster_config import InClusterConfigLoader

    InClusterConfigLoader(token_filename=str(SERVICE_ACCOUNT_DIR / "token"),
                          cert_filename=str(SERVICE_ACCOUNT_DIR / "ca.crt"),
                          try_refresh_token=True).load_and_set(configuration)


def _check_kubeconfig(path: str) -> None:
    """A FIFO would block the start forever and a device (a symlink to /dev/zero) be read until memory runs
    out: only a regular file under the size cap is read."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"--kubeconfig {path}: not a regular file")
    if st.st_size > MAX_KUBECONFIG_BYTES:
        raise ConfigError(f"--kubeconfig {path}: larger than {MAX_KUBECONFIG_BYTES} bytes")


def _configuration(kubeconfig: str, server: str) -> k8s_client.Configuration:
    configuration = k8s_client.Configuration()
    path = _kubeconfig_path(kubeconfig)
    try:
        if path:
            _check_kubeconfig(path)
            k8s_config.load_kube_config(config_file=path, client_configuration=configuration,
                                        persist_config=False)
        elif _in_cluster():
            _load_in_cluster(configuration)
        elif not server:
            raise ConfigError("no Kubernetes API configuration: give --kubeconfig or --server, set $KUBECONFIG, "
                              "or run in a cluster")
    except ConfigException as exc:
        flag = f"--kubeconfig {path}" if path else "in-cluster configuration"
        raise ConfigError(f"cannot load Kubernetes API configuration ({flag}): {exc}") from None
    except OSError as exc:
        raise ConfigError(f"--kubeconfig {path}: {exc}") from None
    except ConfigError:
        raise
    except Exception as exc:  # a broken file: YAML errors, wrong types (`clusters: 5`) -- no traceback
        flag = f"--kubeconfig {path}" if path else "in-cluster configuration"
        detail = " ".join(str(exc).split())[:300]
        raise ConfigError(f"cannot load Kubernetes API configuration ({flag}): not a valid kubeconfig "
                          f"({type(exc).__name__}: {detail})") from None
    if server:
        configuration.host = server.rstrip("/")
    return configuration


_THROTTLED_LOCK = threading.Lock()
_THROTTLED: weakref.WeakSet[Any] = weakref.WeakSet()  # REST clients already throttled (kept as long as they live)


def throttle_client(api: k8s_client.ApiClient, *, qps: float, burst: int, request_timeout: float | None) -> None:
    """Install client-side throttling and a default request timeout on `api` (idempotent per client)."""
    rest = api.rest_client
    with _THROTTLED_LOCK:
        if rest in _THROTTLED:
            return
        _THROTTLED.add(rest)
    bucket = BucketRateLimiter(qps, burst)
    original = rest.request
    pause = threading.Event()  # never set: a bounded, interruptible-by-nothing wait that is not a busy loop

    def request(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        delay = bucket.reserve()
        if delay > 0:
            if delay >= _THROTTLE_LOG_AFTER:
                log.info("waiting due to client-side throttling", seconds=round(delay, 3), method=method, url=url)
            pause.wait(delay)
        if kwargs.get("_request_timeout") is None and request_timeout:
            kwargs["_request_timeout"] = request_timeout
        return original(method, url, *args, **kwargs)

    rest.request = request


# Go's names for what platform.machine() reports, so the User-Agent reads as client-go's does.
_GOARCH = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64", "i386": "386",
           "i686": "386", "armv7l": "arm", "ppc64le": "ppc64le", "s390x": "s390x", "riscv64": "riscv64"}


def user_agent() -> str:
    """client-go's default User-Agent shape (rest.DefaultKubernetesUserAgent: `<command>/<version>
    (<os>/<arch>) kubernetes/<commit>`), which the API server records in its audit log; the commit is not
    built into a Python package, so it is "unknown", as client-go writes it for an unset one."""
    arch = platform.machine().lower()
    return f"external-dns-py/v{__version__} ({sys.platform}/{_GOARCH.get(arch, arch)}) kubernetes/unknown"


def new_api_client(configuration: k8s_client.Configuration) -> k8s_client.ApiClient:
    """An `ApiClient` for `configuration` that names us (`user_agent()`) instead of `OpenAPI-Generator/...`:
    the generated calls and the informers' own lists and watches (informers/api.py) send its default headers."""
    api = k8s_client.ApiClient(configuration)
    api.user_agent = user_agent()
    return api


def api_client(kubeconfig: str = "", server: str = "", *, qps: float = 5.0, burst: int = 10,
               request_timeout: float = 30.0) -> k8s_client.ApiClient:
    """A throttled `ApiClient` for a kubeconfig file (or in-cluster configuration) and an optional server
    URL that overrides it."""
    configuration = _configuration(kubeconfig, server)
    api = new_api_client(configuration)
    throttle_client(api, qps=qps, burst=burst, request_timeout=request_timeout)
    time_requests(api)
    log.debug("kubernetes API client", host=configuration.host)
    return api


def time_requests(api: k8s_client.ApiClient) -> None:
    """Every request through `api`'s connection pool (the client's calls and the informers' lists and watches)
    observed into the HTTP request duration metric, with its status, or none when no answer came."""
    pool = api.rest_client.pool_manager
    send = pool.request

    def request(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        started = time.monotonic()
        status = None
        try:
            resp = send(method, url, *args, **kwargs)
            status = resp.status
            return resp
        finally:
            observe_request(url, method, status, time.monotonic() - started)

    pool.request = request
