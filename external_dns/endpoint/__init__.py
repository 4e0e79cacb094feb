"""endpoint."""
