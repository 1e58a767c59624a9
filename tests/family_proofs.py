"""The tiny models each family proof runs on, generated from the family records
(``model_wrappers.family_adapters.all_families``): a family registered with a tiny model is in every proof that
applies to it, with nothing to add to a hand-kept list, and ``tests/test_family_registry.py`` checks that each proof
covers every proven family."""

from __future__ import annotations

from lm_eval_audio.model_wrappers import family_adapters

# Tiny models of another layout of a family the proofs already run, proven in tests of their own: a Qwen3-Omni thinker
# saved alone and the Thinking checkpoint (tests/test_recent_families.py runs each through lm_eval; a thinking
# checkpoint generates up to its family's thinking budget, 16,384 tokens, which a proof's generation would reach).
OTHER_LAYOUTS = {"qwen3_omni_thinker": "tests/test_recent_families.py (each layout)",
                 "qwen3_omni_thinking": "tests/test_recent_families.py (thinking traces)",
                 # the whole models with their talkers: their spoken answers, the thinker's text in the others
                 "qwen2_5_omni_talker": "tests/test_spoken_answers_hf.py",
                 "qwen3_omni_talker": "tests/test_spoken_answers_hf.py"}
# The default family, run end to end by the CLI, batching and sample tests: left out of the spoken-digits run.
DEFAULT_FAMILY = "qwen2_audio"


def _fixtures(families) -> list[str]:
    return [f"tiny_{name}" for family in families for name in family.tiny_models if name not in OTHER_LAYOUTS]


def every_family() -> list[str]:
    """Each proven family's tiny models, but the default family's: plain lm_eval at batch sizes 1 and 4."""
    return [f for f in _fixtures(family_adapters.proven_families()) if f != f"tiny_{DEFAULT_FAMILY}"]


def encoded_alone() -> list[str]:
    """The families whose adapter encodes each request's audio on its own (``audio_method``): their tiny models."""
    return _fixtures(f for f in family_adapters.proven_families()
                     if family_adapters.adapter_class(f).audio_method is not None)


def batched_clips() -> list[str]:
    """The families whose clips go to the model as the processor batched them: each family's first tiny model."""
    return [f"tiny_{f.tiny_models[0]}" for f in family_adapters.proven_families()
            if family_adapters.adapter_class(f).audio_method is None]


def first_quick_rest_slow(fixtures: list[str]) -> list:
    """A proof's tiny models as pytest parameters: the first in the README's test command, the others marked slow
    (.ci/run runs them all), where every family's run of a proof costs 5 to 20 s and the command has six minutes."""
    import pytest

    return [fixture if i == 0 else pytest.param(fixture, marks=pytest.mark.slow) for i, fixture in enumerate(fixtures)]


PROOFS = {"every_family": every_family, "encoded_alone": encoded_alone, "batched_clips": batched_clips}
