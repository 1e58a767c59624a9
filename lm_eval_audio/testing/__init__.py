"""Tiny random-weight audio-language models built offline, for tests and benchmarks."""
