"""RFC2136 provider tests (BIND9)."""
