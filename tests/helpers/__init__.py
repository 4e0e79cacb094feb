"""Small helpers shared by several test packages: endpoints as tests spell them (`endpoints.ep`), a source of
fixed endpoints (`sources.StaticSource`), thread-leak checks, running the CLI."""
