"""What `--help` and a bare `external-dns` tell a user: the usage lines, the commands and one example. Each
command's parser takes its prog, usage and description from here (a `Command`), so `external-dns plan --help`
describes `plan`, and errors name the command (`external-dns plan: error: ...`)."""

from __future__ import annotations

from typing import NamedTuple

REQUIRED = "--source=SOURCE... --provider=PROVIDER --policy=POLICY"

COMMANDS: tuple[tuple[str, str], ...] = (
    ("run", "the controller, the default: keep the records in step (every --interval, on --events) or --once"),
    ("plan", "compute and show the plan of a --once sync without applying it; write it for apply"),
    ("apply", "apply a plan file made by plan, unless a zone changed since"),
    ("webhook-server", "serve one of the providers over external-dns's webhook protocol"),
    ("rbac", "print the RBAC rules the named sources need, as YAML"),
    ("informer-probe", "print a Kubernetes informer's events as JSON lines"),
)

EXAMPLE = ("external-dns --once --source=manifest --manifest-dir=manifests --provider=zonefile \\\n"
           "    --zonefile-dir=zones --zonefile-create-zone=example.org --policy=sync --txt-owner-id=demo")


class Command(NamedTuple):
    prog: str
    usage: str
    description: str


def command_list() -> str:
    width = max(len(name) for name, _ in COMMANDS)
    lines = [f"  {name:<{width}}  {text}" for name, text in COMMANDS]
    return "commands:\n" + "\n".join(lines) + "\n\n`external-dns COMMAND --help` shows a command's own help."


RUN = Command(
    prog="external-dns",
    usage=f"external-dns [run] {REQUIRED} [flags]\n       external-dns COMMAND [flags]",
    description=("Keep DNS records in step with Kubernetes (ExternalDNS-compatible).\n\n" + command_list()
                 + "\nEvery flag can also be set as EXTERNAL_DNS_<FLAG> (--txt-owner-id: EXTERNAL_DNS_TXT_OWNER_ID)."),
)
PLAN = Command(
    prog="external-dns plan",
    usage=f"external-dns plan [PLAN_FILE] {REQUIRED} [flags]",
    description=("Compute the plan of a --once sync and show it (--plan-output), applying nothing. With PLAN_FILE\n"
                 "(or --plan-file) the plan is written there, for `external-dns apply PLAN_FILE`. The flags are\n"
                 "the controller's."),
)
APPLY = Command(
    prog="external-dns apply",
    usage="external-dns apply PLAN_FILE --provider=PROVIDER [flags]",
    description=("Apply a plan file written by `external-dns plan`: it is checked (untampered, the same owner id,\n"
                 "provider and registry) and refused when a zone changed since it was made (exit 4) or when it\n"
                 "is unsafe without --force (exit 3). The provider and registry flags are the controller's;\n"
                 "--source and --policy are not needed."),
)
WEBHOOK_SERVER = Command(
    prog="external-dns webhook-server",
    usage="external-dns webhook-server --provider=PROVIDER [flags]",
    description=("Serve one of the providers over external-dns's webhook protocol on --webhook-server-address\n"
                 "(the same as --webhook-server). The provider flags are the controller's."),
)


def overview() -> str:
    """What a bare `external-dns` prints before its error: the usage, the commands and an example."""
    return (f"usage: {RUN.usage}\n\n{command_list()}\n\nexample:\n  {EXAMPLE}\n\n"
            "`external-dns --help` lists every flag.\n")
