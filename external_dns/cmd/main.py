"""The `external-dns` command (also `python -m external_dns`): dispatches on the first word to a
sub-command; `run` (the default when the first word is a flag or there is none) is the controller
(cmd/run.py). Each sub-command is "module:function", imported only when chosen; the function takes the
remaining arguments and returns the exit code."""

from __future__ import annotations

import gc
import importlib
import sys
import threading
import types
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from external_dns.cmd.run import run
    from external_dns.cmd.wiring import KubeClient as _KubeClient
    from external_dns.cmd.wiring import build_controller, build_domain_filter, build_source

__all__ = ["SUBCOMMANDS", "_KubeClient", "build_controller", "build_domain_filter", "build_source", "main", "run"]

# Re-exported names, imported on first use: `external-dns --version` must not pay for the whole program.
_LAZY = {"config_error": ("external_dns.cmd.run", "config_error"), "run": ("external_dns.cmd.run", "run"),
         "_KubeClient": ("external_dns.cmd.wiring", "KubeClient"),
         "build_controller": ("external_dns.cmd.wiring", "build_controller"),
         "build_domain_filter": ("external_dns.cmd.wiring", "build_domain_filter"),
         "build_source": ("external_dns.cmd.wiring", "build_source")}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = _LAZY[name]
    return getattr(importlib.import_module(module), attr)


# name -> "module:function(argv: list[str]) -> int"
SUBCOMMANDS: dict[str, str] = {
    "webhook-server": "external_dns.cmd.webhook_server:webhook_server_main",
    "plan": "external_dns.cmd.plan_apply:plan_main",
    "apply": "external_dns.cmd.plan_apply:apply_main",
    "informer-probe": "external_dns.cmd.informer_probe:main",
    "rbac": "external_dns.cmd.rbac:main",
}


class _DeferredModule(types.ModuleType):
    """Stands in for a module imported at start-up but used, if ever, only later: the real module is imported
    on the first attribute access (by whichever thread comes first) and every access is forwarded to it;
    `sys.modules` then holds the real one."""

    _lock = threading.Lock()

    def __getattr__(self, attr: str) -> Any:
        with _DeferredModule._lock:
            real = self.__dict__.get("_deferred_real")
            if real is None:
                if sys.modules.get(self.__name__) is self:
                    del sys.modules[self.__name__]
                real = importlib.import_module(self.__name__)
                self.__dict__["_deferred_real"] = real
        return getattr(real, attr)


def _import_structlog_without_rich() -> None:
    """structlog.dev imports rich, when a development tool brought it into the environment, for tracebacks
    our log renderers never use: about 0.1 s of every start-up. structlog is imported with rich hidden (it
    falls back to plain tracebacks, as in a production install); rich stays importable afterwards.
    structlog.stdlib imports asyncio for its async logger methods, which we never call: asyncio (with ssl,
    subprocess, concurrent.futures: ~7 ms of CPU) is imported only if something uses it."""
    if "structlog" in sys.modules or "rich" in sys.modules:
        return
    sys.modules["rich"] = None  # type: ignore[assignment]  # makes `import rich` raise ImportError
    if "asyncio" not in sys.modules:
        sys.modules["asyncio"] = _DeferredModule("asyncio")
    try:
        import structlog  # noqa: F401
    finally:
        del sys.modules["rich"]


def _collect_less_during_startup() -> None:
    """Start-up (imports, the flag parser, the wiring) allocates tens of thousands of objects that live as
    long as the process; at CPython's default a generation-0 collection runs every 700 allocations and the
    older generations scan them again and again (~8 ms CPU of a small `--once` run). Generation 0 waits for
    gcsettings.GEN0_THRESHOLD allocations instead; `settle_after_startup` then freezes what start-up built and
    sets the thresholds of the run."""
    from external_dns.gcsettings import GEN0_THRESHOLD

    _gen0, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GEN0_THRESHOLD, gen1, gen2)


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command ended by Ctrl-C


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point. Ctrl-C (SIGINT) ends a `--once`, `plan` or `apply` run with one line and exit 130,
    not a traceback (the long-running mode and the webhook server stop cleanly on it themselves)."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("external-dns: interrupted (SIGINT); what was written before stays written, the rest was not "
              "(zone files are replaced whole or not at all); run again to finish", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED


def _main(argv: Sequence[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:  # what the parser's version action prints, without importing the program
        from external_dns import __version__

        print(__version__, flush=True)
        return 0
    _collect_less_during_startup()
    _import_structlog_without_rich()
    if args and not args[0].startswith("-") and args[0] != "run":
        name = args[0]
        if name not in SUBCOMMANDS:
            from external_dns.cmd.run import config_error

            known = ", ".join(["run", *sorted(SUBCOMMANDS)])
            return config_error(f"unknown sub-command {name!r} (available: {known})")
        module, _, func = SUBCOMMANDS[name].partition(":")  # the controller's modules only when it runs
        result: int = getattr(importlib.import_module(module), func)(args[1:])
        return result
    from external_dns.cmd.run import run

    return run(args[1:] if args[:1] == ["run"] else args)


if __name__ == "__main__":
    raise SystemExit(main())
