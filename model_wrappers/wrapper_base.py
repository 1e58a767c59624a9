"""What the plugin's model wrappers (``hf-audio``, ``openai-audio``, ``cascade``) share: their arguments declared
once, read and checked into ``settings`` before anything loads, the notes of a run, and the same model under
another ``audio=`` condition.

A wrapper declares ``WHO`` (its name in messages) and ``ARGS`` (``endpoints.model_args.Arg``: name, default, help,
reader), and, where arguments must agree with each other or settings derive from several,
:meth:`AudioLM.checked_together`. lm-eval builds a wrapper with the ``--model_args`` given plus its own
``batch_size``, ``max_batch_size`` and ``device``; everything the wrapper reads comes from ``self.settings``.
"""

from __future__ import annotations

import copy

from lm_eval.api.model import LM, CacheHook

from lm_eval_audio.audio import conditions
from lm_eval_audio.audio.conditions import AudioCondition
from lm_eval_audio.endpoints.model_args import PROMPT_SOURCES, Arg, Settings, argument_table, choice, read_arguments
from lm_eval_audio.model_wrappers.run_notes import ModelNotes


def audio_arg() -> Arg:
    return Arg("audio", "full", "what the model hears: `full`, `none` (the task's text alone) or `fragment-N-K` "
               "(docs/DIAGNOSTICS.md)", read=lambda who, name, value: conditions.parse(value, who))


def prompts_arg(help_text: str) -> Arg:
    return Arg("prompts", "benchmark", help_text, read=choice(*PROMPT_SOURCES), recorded_as="prompts_from")


# What lm-eval passes every model (its --batch_size, --max_batch_size and --device).
def lm_eval_args(batch_size=1, max_batch_size=None, read_batch=None, read_max_batch=None,
                 device: bool = True) -> tuple[Arg, ...]:
    return (Arg("batch_size", batch_size, "lm-eval's --batch_size", read=read_batch, listed=False),
            Arg("max_batch_size", max_batch_size, "lm-eval's --max_batch_size", read=read_max_batch, listed=False),
            *((Arg("device", None, "lm-eval's --device", listed=False),) if device else ()))


class AudioLM(LM):
    """The base of the plugin's model wrappers."""

    MULTIMODAL = True
    WHO = ""
    ARGS: tuple[Arg, ...] = ()
    IGNORED: tuple[str, ...] = ()  # names some lm-eval front ends pass: let through, checked for credentials
    # Whether --gen_kwargs max_gen_toks=N is also the model's thinking_budget= (cli_patches.budget_from_gen_kwargs):
    # for a wrapper that knows from the checkpoint whether it thinks (openai-audio takes thinking_budget= as the word
    # that the served model thinks, so setting it would make every served model read as thinking).
    BUDGET_FROM_GEN_KWARGS = False
    # The results folder's name where lm-eval's own (after pretrained=, model=) is wrong (registry.results_folder_name)
    results_name = None

    def __init__(self, **given) -> None:
        super().__init__()
        self.settings = self.read_settings(given)
        self.notes = ModelNotes()  # what this run of the model could not answer, its traces' counts

    @classmethod
    def read_settings(cls, given: dict) -> Settings:
        """The settings ``given`` (what lm-eval passed) make: each argument read by its declaration, then checked
        against the others (:meth:`checked_together`). Raises on a credential, an unknown name, or a value of the
        wrong type, outside its choices, or that does not go with the others."""
        return Settings(**cls.checked_together(read_arguments(cls.WHO, cls.ARGS, given, cls.IGNORED)))

    @classmethod
    def checked_together(cls, values: dict) -> dict:
        """Checks between arguments, and settings derived from several (added to ``values``): none here."""
        return values

    @classmethod
    def check_before_loading(cls, model_args: dict, device: str | None) -> None:
        """The seam's checks before lm-eval builds the model (the arguments, read as the wrapper will read them);
        a wrapper adds the device and checkpoint it names."""
        cls.read_settings(model_args)

    def recorded_settings(self) -> dict:
        """The settings the results record (``lm_eval_audio_model``), under the keys their arguments declare."""
        return {arg.recorded_as: getattr(self.settings, arg.name) for arg in self.ARGS if arg.recorded_as}

    @classmethod
    def arguments_help(cls) -> str:
        """The arguments as a Markdown table: ``lm-eval-audio model-args``, and docs/MODELS.md."""
        return argument_table(cls.ARGS)

    @property
    def audio_condition(self) -> AudioCondition:
        """What the model hears (``audio=``), as read once from ``--model_args``."""
        return self.settings.audio

    def generate_until(self, requests, disable_tqdm: bool = False) -> list:
        """Each request's answer by the wrapper's own generation (``_generate_until``); a spoken conversation's
        (a document of several turns) is the list of its rounds' answers, each asked with the earlier ones in its
        context (``conversation``)."""
        from lm_eval_audio.model_wrappers import conversation

        return conversation.answered_in_turns(self, requests, lambda asked: self._generate_until(asked, disable_tqdm))

    def _generate_until(self, requests, disable_tqdm: bool) -> list:
        raise NotImplementedError

    def under(self, condition: AudioCondition):
        """This model under another ``audio=`` condition: a copy sharing what is loaded, with its own request state
        (:meth:`_fresh_requests`); ``self`` is left unchanged."""
        other = copy.copy(self)
        other.settings = self.settings.replace(audio=condition)
        other.cache_hook = CacheHook(None)
        other._fresh_requests(self)
        return other

    def _fresh_requests(self, source) -> None:
        """What a copy made by :meth:`under` must not share with ``source``: none here."""
