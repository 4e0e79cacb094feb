"""`--help` as external-dns users read it: Go durations, no empty defaults, no Python lists or reprs."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from external_dns.cmd.config import build_parser
from external_dns.cmd.flags import FlagParser, duration, show_default


@pytest.fixture(scope="module")
def help_text() -> str:
    proc = subprocess.run([sys.executable, "-m", "external_dns", "--help"], capture_output=True, text=True,
                          timeout=60, check=True)
    return proc.stdout


def test_durations_are_go_durations(help_text: str) -> None:
    flat = " ".join(help_text.split())
    assert "interval between full syncs (default: 1m0s)" in flat
    assert "(default: 60.0)" not in flat and "(default: 0.0)" not in flat


def test_no_empty_defaults_no_python_values(help_text: str) -> None:
    flat = " ".join(help_text.split())
    assert "(default: )" not in flat
    assert "(default: [" not in flat and "['" not in flat
    assert "(default: True)" not in flat and "(default: False)" not in flat
    assert "NAPTR, DNAME) (default: A,AAAA,CNAME)" in flat


def test_every_default_renders_without_python_syntax() -> None:
    for action in build_parser().parser._actions:
        shown = show_default(action)
        assert not re.search(r"^\[|\]$|^'|^None$|^True$|^False$|\.0$", shown), (action.option_strings, shown)
        if action.type is duration and action.default:
            assert re.fullmatch(r"(\d+h)?(\d+m)?[\d.]+(s|ms|µs|ns)", shown), (action.option_strings, shown)


def test_secret_from_the_environment_is_not_shown() -> None:
    p = FlagParser()
    p.add("--token", default="", help="API token", secret=True)
    p.parse([], {"EXTERNAL_DNS_TOKEN": "s3cret"})
    assert "s3cret" not in p.parser.format_help()
