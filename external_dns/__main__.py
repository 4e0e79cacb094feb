"""`python -m external_dns` runs the CLI."""

from external_dns.cmd.main import main

if __name__ == "__main__":
    raise SystemExit(main())
