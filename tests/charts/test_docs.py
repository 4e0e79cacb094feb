"""The user guide (docs/) cannot drift from the code: every actionable error message is in the
troubleshooting guide, every flag and metric the guides name exists, every chart values example renders
with the chart, and every relative link resolves."""

from __future__ import annotations

import importlib
import re
import shlex
from pathlib import Path

import pytest
import yaml
from markdown_it import MarkdownIt

from external_dns.cmd.config import build_parser, load_config
from tests.charts.error_messages import Message, config_error_messages
from tests.charts.render import ROOT, render_chart

DOCS = ROOT / "docs"
GUIDES = ("README.md", "install-helm.md", "migrate-from-external-dns.md", "ci-once-plan.md",
          "metrics-and-alerts.md", "troubleshooting.md", "sources.md", "powerdns.md", "providers/cloudflare.md",
          "providers/google.md", "providers/azure.md", "image.md")
# Flags of other tools (kubectl, helm, gh) that the guides use.
OTHER_TOOLS_FLAGS = {"--body-file", "--from-literal", "--previous", "--replicas", "--strict"}
METRIC_MODULES = (
    "external_dns.controller.metrics", "external_dns.controller.safety_gate", "external_dns.plan.metrics",
    "external_dns.sources.metrics", "external_dns.controller.leader_election", "external_dns.informers.metrics",
    "external_dns.providers.rfc2136.provider", "external_dns.providers.webhook.client",
    "external_dns.providers.webhook.server", "external_dns.providers.provider",
    "external_dns.controller.dnsrecord.metrics", "external_dns.providers.pdns.client",
)
METRIC_SUFFIXES = ("", "_total", "_created", "_bucket", "_sum", "_count")


def _text(name: str) -> str:
    return (DOCS / name).read_text()


def _fences(name: str) -> list[tuple[str, str]]:
    """(info string, content) of every fenced code block."""
    return [(t.info.strip(), t.content) for t in MarkdownIt().parse(_text(name)) if t.type == "fence"]


def test_the_guides_exist() -> None:
    for name in GUIDES:
        assert (DOCS / name).is_file(), name
    index = _text("README.md")
    for name in GUIDES[1:]:
        assert f"({name})" in index, f"docs/README.md does not link {name}"


MESSAGES = config_error_messages()


def test_error_messages_are_found() -> None:
    """The extractor sees the program's messages (it would otherwise pass vacuously)."""
    templates = {m.template for m in MESSAGES}
    assert "--policy must be set explicitly (one of: sync, upsert-only, create-only)" in templates
    assert "--interval must be positive, got {}" in templates
    assert any(m.path.endswith("planfile.py") for m in MESSAGES)
    assert len(MESSAGES) > 50


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: f"{m.path}:{m.line}")
def test_every_error_message_is_in_troubleshooting(message: Message) -> None:
    assert message.pattern().search(_text("troubleshooting.md")), (
        f"{message.path}:{message.line} prints {message.template!r} (with values for {{}}); add it with its "
        f"fix to docs/troubleshooting.md")


def test_message_pattern_needs_the_literal_text() -> None:
    message = Message("x.py", 1, "--interval must be positive, got {}")
    assert message.pattern().search("| `--interval must be positive, got <value>` | fix |")
    assert not message.pattern().search("| `--interval must be positve, got <value>` | fix |")
    assert not message.pattern().search("--interval must be\npositive, got 0")


def test_unsafe_plan_messages_are_in_troubleshooting() -> None:
    from external_dns.plan.safety import REASON_TOO_MANY_DELETES, RootNsChangeError, TooMuchChangeError

    text = _text("troubleshooting.md")
    for error in (TooMuchChangeError("example.org", REASON_TOO_MANY_DELETES, 5, 10, 0.3),
                  RootNsChangeError("example.org")):
        shape = re.sub(r"\d+(\.\d+)?", "<n>", re.sub(r"^\[[^\]]*\]", "[<zone>]", str(error)))
        literal = re.escape(shape).replace("<n>", "<[a-z]+>")
        assert re.search(literal, text), f"docs/troubleshooting.md lacks {str(error)!r}"


def test_every_flag_named_exists() -> None:
    known: set[str] = set()
    for action in build_parser().parser._actions:
        known.update(action.option_strings)
    for name in GUIDES:
        named = set(re.findall(r"(?<![\w-])--[a-z0-9][a-z0-9-]*", _text(name)))
        unknown = named - known - OTHER_TOOLS_FLAGS
        assert not unknown, f"docs/{name} names flags the program does not have: {sorted(unknown)}"


def test_every_metric_named_exists() -> None:
    from prometheus_client import REGISTRY

    for module in METRIC_MODULES:
        importlib.import_module(module)
    families = {family.name for family in REGISTRY.collect()}
    exported = {family + suffix for family in families for suffix in METRIC_SUFFIXES}
    workqueue_source = (ROOT / "external_dns" / "workqueue" / "metrics.py").read_text()
    for name in GUIDES:
        for metric in set(re.findall(r"\b(?:external_dns_[a-z0-9_]+|leader_election_[a-z_]+|workqueue_[a-z_]+|dns_provider_[a-z_]+)",
                                     _text(name))):
            if metric.startswith("workqueue_"):
                assert f'"{metric.removesuffix("_total")}"' in workqueue_source, f"docs/{name}: {metric}"
            else:
                assert metric in exported, f"docs/{name} names metric {metric}, which the program does not export"


def _values_examples() -> list[tuple[str, str]]:
    return [(name, content) for name in GUIDES for info, content in _fences(name)
            if info == "yaml" and content.startswith("# values.yaml")]


def test_values_examples_are_found() -> None:
    assert len(_values_examples()) >= 3


@pytest.mark.parametrize(("guide", "content"), _values_examples(), ids=lambda v: str(v)[:30])
def test_values_examples_render(guide: str, content: str) -> None:
    values = yaml.safe_load(content)
    assert isinstance(values, dict), guide
    objects = render_chart(values)
    assert any(o["kind"] == "Deployment" for o in objects)


def test_yaml_and_json_blocks_parse() -> None:
    for name in GUIDES:
        for info, content in _fences(name):
            if info == "yaml":
                assert list(yaml.safe_load_all(content)) is not None


def test_relative_links_resolve() -> None:
    for name in GUIDES:
        for token in MarkdownIt().parse(_text(name)):
            for child in token.children or []:
                href = str(child.attrs.get("href", "")) if child.type == "link_open" else ""
                if not href or re.match(r"^[a-z]+:", href):
                    continue
                path, _, anchor = href.partition("#")
                target = (DOCS / path) if path else DOCS / name
                assert target.is_file(), f"docs/{name}: broken link {href}"
                if anchor:
                    text = target.read_text()  # a heading's anchor, or one named by <a id="...">
                    slugs = {_slug(h) for h in re.findall(r"^#+ (.+)$", text, re.M)}
                    slugs |= set(re.findall(r'<a id="([^"]+)"></a>', text))
                    assert anchor in slugs, f"docs/{name}: no heading or anchor for #{anchor} in {target.name}"


def _slug(heading: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to dashes."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_chart_values_in_the_flag_table_exist() -> None:
    values = yaml.safe_load((ROOT / "charts" / "external-dns-py" / "values.yaml").read_text())
    section = _text("troubleshooting.md").split("## Chart values and flags", 1)[1]
    for key in re.findall(r"^\| `([a-zA-Z.]+?)(?:\.\*)?`", section, re.M):
        node = values
        for part in key.split("."):
            assert isinstance(node, dict) and part in node, f"troubleshooting.md names value {key}, not in values.yaml"
            node = node[part]


def _commands() -> list[tuple[str, list[str]]]:
    """Every `external-dns ...` command line in the guides' shell (and CI YAML) blocks, as argv."""
    out: list[tuple[str, list[str]]] = []
    for name in GUIDES:
        for info, content in _fences(name):
            if info not in ("sh", "bash", "yaml"):
                continue
            for line in re.sub(r"\\\n\s*", " ", content).splitlines():
                line = line.strip().removeprefix("run: ").strip()
                if line.startswith("external-dns "):
                    out.append((name, shlex.split(line.split(" #", 1)[0])[1:]))
    return out


def test_commands_are_found() -> None:
    kinds = {argv[0] if not argv[0].startswith("-") else "run" for _name, argv in _commands()}
    assert {"run", "plan", "apply"} <= kinds


@pytest.mark.parametrize(("guide", "argv"), _commands(), ids=lambda v: str(v)[:40])
def test_documented_commands_are_accepted(guide: str, argv: list[str]) -> None:
    """Each command of the guides parses and validates with the program's own parser."""
    from external_dns.cmd.plan_apply import _load_apply_config

    if argv[0] == "plan":
        load_config(["--once", *argv[1:], "--dry-run"], {})
    elif argv[0] == "apply":
        assert not argv[1].startswith("-"), f"docs/{guide}: apply takes the plan file first"
        _load_apply_config(argv[2:], {})
    else:
        assert argv[0].startswith("-"), f"docs/{guide}: unknown sub-command {argv[0]}"
        load_config(argv, {})


def test_docs_path_is_a_directory() -> None:
    assert isinstance(DOCS, Path) and DOCS.is_dir()


# the sample object docs/sources.md describes above its template table
TEMPLATE_SAMPLE = {"apiVersion": "v1", "kind": "Service",
                   "metadata": {"name": "web", "namespace": "shop", "labels": {"team": "Blue"},
                                "annotations": {"env": "prod"}},
                   "spec": {"type": "LoadBalancer"}}


def _template_rows() -> list[tuple[str, list[str]]]:
    section = _text("sources.md").split("## Host names from a template", 1)[1]
    rows = re.findall(r"^\| `(.+?)` \| (`.+`) \|$", section, re.M)
    return [(template.replace("\\|", "|"), re.findall(r"`([^`]+)`", names)) for template, names in rows]


def test_template_examples_are_found() -> None:
    assert len(_template_rows()) >= 5


@pytest.mark.parametrize(("template", "names"), _template_rows(), ids=lambda v: str(v)[:40])
def test_documented_templates_render_as_documented(template: str, names: list[str]) -> None:
    from external_dns.sources.template import FQDNTemplate

    assert FQDNTemplate(template).render(TEMPLATE_SAMPLE, "Service") == names


@pytest.mark.parametrize("template", ['{{define "x"}}a{{end}}{{define "x"}}b{{end}}', "{{end}}", "{{.Name}",
                                      "{{ nope }}"])
def test_what_the_template_guide_refuses_is_refused(template: str) -> None:
    from external_dns.sources.template import TemplateError, parse_fqdn_template

    with pytest.raises(TemplateError):
        parse_fqdn_template(template)
