"""Real test servers started on 127.0.0.1 for integration tests (pytest plugin modules)."""
