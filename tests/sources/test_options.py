"""SourceOptions (sources/options.py): selectors and templates parsed once, when the options are built, and every
bad value refused there, naming the option, so configuration errors surface at start-up."""

from __future__ import annotations

from typing import Any

import pytest

from external_dns.sources.options import SourceOptions, joined_templates
from external_dns.sources.selector import SelectorError
from external_dns.sources.template import TemplateError


def test_defaults_parse_to_empty_selectors_and_no_templates() -> None:
    opts = SourceOptions()
    assert opts.label_selector.empty() and opts.annotation_selector.empty()
    assert opts.template is None and opts.target is None and opts.fqdn_target is None and not opts.any_template


def test_selectors_and_templates_are_parsed_once() -> None:
    opts = SourceOptions(label_filter="team in (dns,web)", annotation_filter="scope",
                         fqdn_template=["{{.Name}}.a.example.org", " "], service_type_filter=["LoadBalancer"],
                         default_targets=["10.0.0.1"])
    assert opts.label_selector.matches({"team": "dns"}) and not opts.label_selector.matches({"team": "app"})
    assert opts.annotation_selector.matches({"scope": "x"}) and not opts.annotation_selector.matches({})
    assert opts.template is not None and opts.any_template
    assert opts.service_type_filter == ("LoadBalancer",) and opts.default_targets == ("10.0.0.1",)  # frozen


def test_a_pair_template_alone_makes_templates_read_objects() -> None:
    assert SourceOptions(fqdn_target_template="{{.Name}}.example.org:{{.Spec.clusterIP}}").any_template
    target_only = SourceOptions(target_template="{{.Spec.clusterIP}}")
    assert target_only.target is not None and not target_only.any_template  # parsed, applied by no source here


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"annotation_prefix": ""}, ValueError, "annotation_prefix cannot be empty"),
    ({"annotation_prefix": "example.com"}, ValueError, "annotation_prefix must end with '/'"),
    ({"label_filter": "a in (b"}, SelectorError, "label_filter: "),
    ({"annotation_filter": "a in (b"}, SelectorError, "annotation_filter: "),
    ({"fqdn_template": "{{.Name"}, TemplateError, "fqdn_template: "),
    ({"target_template": "{{nope .Name}}"}, TemplateError, "target_template: "),
    ({"fqdn_target_template": "{{end}}"}, TemplateError, "fqdn_target_template: "),
    ({"ignore_hostname_annotation": True}, ValueError, "FQDN Template must be set if ignoring annotations"),
    ({"compatibility": "kops"}, ValueError, "compatibility: unknown mode 'kops'"),
    ({"service_type_filter": ["LoadBalancer", "Headless"]}, ValueError,
     "service_type_filter: unknown service type\\(s\\) Headless"),
])
def test_bad_options_are_refused_naming_the_option(kwargs: dict[str, Any], error: type[Exception],
                                                   message: str) -> None:
    with pytest.raises(error, match=message):
        SourceOptions(**kwargs)


def test_joined_templates() -> None:
    assert joined_templates("{{.Name}}.a.org") == "{{.Name}}.a.org"
    assert joined_templates(["{{.Name}}.a.org", "  ", "{{.Name}}.b.org"]) == "{{.Name}}.a.org,{{.Name}}.b.org"
