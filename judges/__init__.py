"""LLM judges (installed as ``lm_eval_audio.judges``): the engine (concurrent, cached, retried), the
settings, and each benchmark's prompt templates and output parsers."""
