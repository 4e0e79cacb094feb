"""Webhook provider tests: our client against our server over real HTTP, the server with raw requests."""
