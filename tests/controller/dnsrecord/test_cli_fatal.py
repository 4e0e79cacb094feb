"""The real CLI with `--source=dnsrecord` against BIND and a wrong TSIG secret: the zone controller has nothing
to write (no endpoints of its own, no AXFR), so only the DNSRecord controller meets the server's refusal
(BADSIG), which no retry can fix: as the zone controller, it ends the process with one fatal line naming the
provider, the zone and the cause, a clean shutdown and exit 1, after writing the records' ProviderError status."""

from __future__ import annotations

import pytest

from tests.controller.dnsrecord.helpers import a_record, get, ready, record
from tests.helpers.cli import clean_env, ends_fatally
from tests.kubeapi.server import KubeAPIServer
from tests.servers.bind import BindServer

pytestmark = pytest.mark.integration

WRONG = "d3Jvbmctc2VjcmV0LXdyb25nLXNlY3JldC13cm9uZw=="


def test_a_rejected_tsig_key_ends_the_dnsrecord_controller(kubeapi: KubeAPIServer, kubeconfig_file: str,
                                                          bind_server: BindServer) -> None:
    bind_server.reset()
    for i in range(3):
        kubeapi.create(record(f"r{i}", f"r{i}.example.org", [a_record(f"r{i}.example.org", "192.0.2.7")]))
    args = ["--source=dnsrecord", f"--kubeconfig={kubeconfig_file}", "--provider=rfc2136",
            f"--rfc2136-host={bind_server.host}", f"--rfc2136-port={bind_server.port}", "--rfc2136-zone=example.org",
            f"--rfc2136-tsig-keyname={bind_server.key_name}", "--policy=sync", "--interval=1h",
            "--metrics-address=127.0.0.1:0", "--txt-owner-id=zone-wide"]
    env = clean_env({"EXTERNAL_DNS_RFC2136_TSIG_SECRET": WRONG, "EXTERNAL_DNS_MIN_REQUEUE_TIME": "1s"})
    fatal, text = ends_fatally(args, env, "dnsrecord-bad-key")
    assert "rejected TSIG key" in fatal and "provider=rfc2136" in fatal and "zone=example.org" in fatal, fatal
    assert "Traceback" not in text and WRONG not in text and bind_server.key_secret not in text
    failed = [ready(get(kubeapi, f"r{i}")) for i in range(3)]
    assert any(c["reason"] == "ProviderError" and "rejected TSIG key" in c["message"] for c in failed), failed
    assert all(c["status"] == "False" for c in failed)
    assert bind_server.rrset("r0.example.org", "A") is None
