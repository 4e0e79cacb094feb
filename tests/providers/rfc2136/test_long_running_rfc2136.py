"""The long-running CLI with `--provider=rfc2136` against BIND and a wrong TSIG secret: the server rejects the
key (BADSIG), which no retry can fix, so the process logs one fatal line naming the provider and the cause,
shuts down cleanly and exits 1, as ExternalDNS's fatal non-soft errors; nothing is written, the secret is
never printed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.cli import clean_env, ends_fatally
from tests.helpers.provider_cli import write
from tests.servers.bind import BindServer

pytestmark = pytest.mark.integration

WRONG = "d3Jvbmctc2VjcmV0LXdyb25nLXNlY3JldC13cm9uZw=="


def test_rejected_tsig_key_ends_the_long_running_process(tmp_path: Path, bind_server: BindServer) -> None:
    bind_server.reset()
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    write(manifests)
    args = ["--source=manifest", f"--manifest-dir={manifests}", "--provider=rfc2136",
            f"--rfc2136-host={bind_server.host}", f"--rfc2136-port={bind_server.port}", "--rfc2136-zone=example.org",
            "--rfc2136-zone=example.com", f"--rfc2136-tsig-keyname={bind_server.key_name}", "--rfc2136-tsig-axfr",
            "--policy=sync", "--interval=1s", "--metrics-address=127.0.0.1:0"]
    fatal, text = ends_fatally(args, clean_env({"EXTERNAL_DNS_RFC2136_TSIG_SECRET": WRONG}), "rfc2136-bad-key", 60)
    assert "rejected TSIG key" in fatal and "--rfc2136-tsig-secret" in fatal and "provider=rfc2136" in fatal, fatal
    assert "Shut down" in text and "Traceback" not in text
    assert WRONG not in text and bind_server.key_secret not in text
    assert bind_server.rrset("web.example.org", "A") is None
