"""Provider tests."""
