"""LLM judges (installed as ``lm_eval_audio.judges``).

The judge engine, its prompt templates and output parsers land here with the AIR-Bench
chat and choice-alignment metrics; the layout is fixed now so that the import path is.
"""
