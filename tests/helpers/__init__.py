"""Small helpers shared by several test packages (thread-leak checks, running the CLI)."""
