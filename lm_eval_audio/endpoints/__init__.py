"""Talking to OpenAI-compatible endpoints, and reading model arguments (credentials refused)."""
