"""Keeps the chart's RBAC data in step with the code: `charts/external-dns-py/files/rbac-rules.yaml` is
`external_dns.sources.rbac.rbac_document()` verbatim, and the values schema's `sources` enum lists exactly
the sources that have rules. tests/charts/test_chart_rbac.py fails when they differ; then run

    .venv/bin/python -m tests.charts.rbac_sync --write
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import yaml

from external_dns.sources.rbac import rbac_document
from tests.charts.render import CHART_DIR

RULES_FILE = CHART_DIR / "files" / "rbac-rules.yaml"
SCHEMA_FILE = CHART_DIR / "values.schema.json"
HEADER = ("# Generated from external_dns.sources.rbac.rbac_document() by\n"
          "# `python -m tests.charts.rbac_sync --write`: do not edit. tests/charts checks that the chart's\n"
          "# rendered (Cluster)Role grants exactly what rules_for_sources() declares.\n")


class _NoAliases(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def rules_file_text() -> str:
    return HEADER + yaml.dump(rbac_document(), Dumper=_NoAliases, sort_keys=False, default_flow_style=None,
                              width=110)


def schema_with_sources(schema: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(json.dumps(schema))
    out["properties"]["sources"]["items"]["enum"] = sorted(rbac_document()["sources"])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.charts.rbac_sync", description=__doc__)
    parser.add_argument("--write", action="store_true", help="rewrite the files (default: report drift)")
    args = parser.parse_args(argv)
    schema = json.loads(SCHEMA_FILE.read_text())
    wanted_schema = schema_with_sources(schema)
    drift = []
    if RULES_FILE.read_text() != rules_file_text():
        drift.append(str(RULES_FILE))
    if wanted_schema != schema:
        drift.append(str(SCHEMA_FILE))
    if args.write:
        RULES_FILE.write_text(rules_file_text())
        SCHEMA_FILE.write_text(json.dumps(wanted_schema, indent=2, ensure_ascii=False) + "\n")
        for path in drift:
            print(f"updated {path}")
        return 0
    for path in drift:
        print(f"out of date: {path}", file=sys.stderr)
    return 1 if drift else 0


if __name__ == "__main__":
    raise SystemExit(main())
