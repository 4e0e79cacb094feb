"""Finds the error messages the program prints for the user to act on (every `ConfigError(...)`,
`RFC2136ConfigError(...)`, `PlanFileError(...)` and refused-credential error in external_dns/) by reading the
source with `ast`, as templates: the literal text and `{}` where a value is filled in at run time. tests/charts/test_docs.py checks each appears in docs/troubleshooting.md.

    .venv/bin/python -m tests.charts.error_messages      # list them (path:line  template)
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from tests.charts.render import ROOT

PACKAGE = ROOT / "external_dns"
HOLE = "{}"
# Errors the program prints for the user to act on: flags and their combinations, the RFC2136 provider's
# settings, plan files given to `apply`, credentials a provider refused (fatal in the long-running mode).
ACTIONABLE_ERRORS = ("ConfigError", "RFC2136ConfigError", "PlanFileError", "TsigRejected", "TsigKeyRejected",
                     "PDNSAuthError", "WebhookAuthError", "AWSAuthError", "APIAuthError")


@dataclass(frozen=True)
class Message:
    path: str
    line: int
    template: str  # literal text with HOLE for run-time values

    @property
    def literal_parts(self) -> list[str]:
        return [p for p in self.template.split(HOLE) if p.strip()]

    def pattern(self) -> re.Pattern[str]:
        """Matches the message on one line, run-time values replaced by anything (e.g. `<value>`)."""
        parts = [re.escape(p) for p in self.template.split(HOLE)]
        return re.compile(r"[^\n]*?".join(parts))


def _template(node: ast.expr) -> str | None:
    """The message template of an expression, None when it has no literal text of its own."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                out.append(value.value)
            else:
                out.append(HOLE)
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _template(node.left), _template(node.right)
        return (left if left is not None else HOLE) + (right if right is not None else HOLE)
    return None


def _collapse(template: str) -> str:
    while HOLE + HOLE in template:
        template = template.replace(HOLE + HOLE, HOLE)
    return template


def config_error_messages(package: Path = PACKAGE) -> list[Message]:
    """Every `<ACTIONABLE_ERRORS>(<message>)` with literal text of its own in the package, in file order."""
    out: list[Message] = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ACTIONABLE_ERRORS and node.args):
                continue
            template = _template(node.args[0])
            if template is None or len(re.sub(r"[^A-Za-z]", "", template.replace(HOLE, ""))) < 3:
                continue  # re-raised text of another error (str(exc)): no message of its own
            out.append(Message(str(path.relative_to(ROOT)), node.lineno, _collapse(template)))
    return sorted(out, key=lambda m: (m.path, m.line))


def main() -> int:
    for message in config_error_messages():
        print(f"{message.path}:{message.line}  {message.template}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
