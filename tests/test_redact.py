"""Secrets in free text (redact.py): the password of every `scheme://user:password@` is masked, nothing else."""

from __future__ import annotations

import pytest

from external_dns.redact import MASK, redact_urls


def test_redact_urls() -> None:
    assert redact_urls("at http://user:s3cret@host:8888/x and https://a:b@c") == \
        "at http://user:******@host:8888/x and https://a:******@c"
    assert redact_urls("http://host:8888/") == "http://host:8888/"


@pytest.mark.parametrize(("text", "want"), [
    ("https://user:@host/", f"https://user:{MASK}@host/"),  # an empty password is masked as well
    (":p@ss@x http://u:p@h", f":p@ss@x http://u:{MASK}@h"),  # only a URL's userinfo, not any colon before an @
    ("git+ssh://deploy:t0k3n@git.example.org/repo", f"git+ssh://deploy:{MASK}@git.example.org/repo"),
    ("http://user@host/", "http://user@host/"),  # no password: nothing to hide
    ("mail me at ops@example.org", "mail me at ops@example.org"),
    ("http://a:b@h1/ then http://c:d@h2/", f"http://a:{MASK}@h1/ then http://c:{MASK}@h2/"),
])
def test_only_the_password_of_a_url_is_masked(text: str, want: str) -> None:
    assert redact_urls(text) == want


def test_text_without_an_at_sign_is_returned_as_is() -> None:
    text = "http://host:8080/path?q=a:b"
    assert redact_urls(text) is text
