"""How each model family's checkpoints take their prompt and audio: one module per family in this package.

:class:`FamilyAdapter` is the generic path: the processor's ``audio=``, the checkpoint's chat template
with typed content parts, ``generate`` and one forward for scoring. Qwen2-Audio runs on it unchanged. A
family whose checkpoints differ overrides only what differs (the packages it needs, how its messages
reach its template, its default system prompt, which adapter weights are on for audio), and each
adapter is proven on a tiny model of the family's own classes (``tests/test_model_families.py``,
``tests/test_recent_families.py``).

A family is one module here: its :class:`~lm_eval_audio.model_wrappers.families.Family` record (everything about
it: model types and name parts, example, extra, tiny models, thinking budget, authors' notes) and its adapter,
registered where they are defined (:func:`register`, or :func:`register_families` for a family the generic path runs
as it is); with its tiny-model builder in ``lm_eval_audio/testing/tiny_models/`` and its extra in setup.cfg, nothing
else names it. The families hf-audio refuses or leaves to their own server are records in :mod:`.not_run`.
:func:`resolve` says which family a checkpoint is (or refuses it, with the family's own refusal), and the family's
adapter how it is run; the refusals, the served recipes, the authors' prompts and the tests' family proofs all read
the records (:func:`all_families`).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import pkgutil

from lm_eval_audio.model_wrappers import families, reasoning
from lm_eval_audio.model_wrappers.clip_encoding import AudioMethod, EncodedAlone
from lm_eval_audio.model_wrappers.families import GENERIC_PATH, Family, UnsupportedFamily


def older_than_transformers_needs(module: str) -> str | None:
    """Why the installed ``module`` is older than the installed transformers requires, or None. transformers states
    its own minimum for peft (``MIN_PEFT_VERSION``) and checks it only when a LoRA is switched on or off, that is in
    the middle of a run: transformers 5.24 asks peft>=0.22.0, which no release met on 2026-11-28."""
    if module != "peft":
        return None
    from importlib import metadata

    from packaging.version import Version
    from transformers.integrations import peft as integration

    minimum = getattr(integration, "MIN_PEFT_VERSION", None)
    installed = metadata.version("peft")
    if minimum is None or Version(installed) >= Version(minimum):
        return None
    return (f"transformers {metadata.version('transformers')} switches a LoRA only with peft>={minimum}, while peft "
            f"{installed} is installed: pip install 'peft>={minimum}', or, where no such peft is released yet, a "
            "transformers whose minimum it meets (transformers 5.23 asks peft>=0.20.0): pip install 'transformers==5.23.*'")


class FamilyAdapter:
    """The generic path; a family's adapter overrides the hooks its checkpoints need."""

    does = "nothing beyond the generic path"  # one line for messages: what the adapter changes
    # Where the family's audio path (processor and encoder) is not padding-invariant: the model's method that encodes
    # a call's audio. Each request of a batch then goes through the processor alone and that method runs once per
    # request on the request's own output (clip_encoding), so a clip is heard as at batch size 1 whatever the batch
    # size; the batch is decoded together. None: the processor's batch goes to the model as it is.
    audio_method: AudioMethod | None = None
    # True where the processor renders and tokenizes the prompt itself, the clips inside it (it takes no
    # text with audio=): the model inputs then come from :meth:`encode`, not from a chat template's text.
    encodes_prompt = False
    # True where the processor's padding= reaches its feature extractor too and must not (Audio Flamingo: padding a
    # call's windows to the longest instead of to 30 s breaks the encoder): padding is then asked of the text only.
    pads_text_only = False
    # False where transformers' generate(stop_strings=...) cannot read the family's tokenizer: generation then
    # runs to max_gen_toks or EOS, and the answer is cut at the task's stop strings after decoding, as always.
    stops_in_generate = True

    def __init__(self, family: Family, pretrained: str, config: dict | None, revision: str | None = None) -> None:
        self.family, self.pretrained, self.config, self.revision = family, pretrained, config or {}, revision
        self.model = None
        self.encoded_alone: EncodedAlone | None = None

    def needs(self) -> list[tuple[str, str]]:
        """(module, what it is for) for each package this checkpoint needs, each pinned by the family's extra
        (:attr:`Family.extra`)."""
        return []

    def check_checkpoint(self) -> None:
        """:class:`UnsupportedFamily` for a checkpoint of the family that cannot be evaluated; from its config.json,
        before anything loads."""

    def check_packages(self) -> None:
        """:class:`UnsupportedFamily` naming the first missing package, or one older than the installed
        transformers requires; before any weight loads."""
        extra = self.family.extra
        for module, why in self.needs():
            if importlib.util.find_spec(module) is None:
                raise UnsupportedFamily(
                    f"hf-audio: {self.family.name} ({self.pretrained!r}) needs {module} for {why}, and it is not "
                    f"installed; install the {extra} extra: pip install -e '.[{extra}]' in the lm-eval-audio clone "
                    "(bash scripts/setup.sh installs every family's extra)"
                )
            shortfall = older_than_transformers_needs(module)
            if shortfall:
                raise UnsupportedFamily(f"hf-audio: {self.family.name} ({self.pretrained!r}) needs {module} for {why}, "
                                        f"and {shortfall}")

    def load(self, load_kwargs: dict):
        """The model to run, loaded from the checkpoint; None for transformers' auto classes (the generic path)."""
        return None

    def prepare_processor(self, processor) -> None:
        """Fix what loading leaves wrong in the checkpoint's processor."""

    def attach(self, model) -> None:
        """Check the loaded model and keep it for :meth:`before_call`; put :attr:`audio_method` in its place."""
        self.model = model
        if self.audio_method is not None:
            self.encoded_alone = EncodedAlone(model, self.audio_method, self.family.name)

    def hearing(self, inputs, to_device):
        """The context of a model call on ``inputs`` (the batch :func:`clip_encoding.collate` joined, for a family with
        an :attr:`audio_method`): its requests' own inputs for the audio method."""
        return self.encoded_alone.rows_of(inputs, to_device) if self.encoded_alone else contextlib.nullcontext()

    def check_settings(self, long_audio: str, max_audio_seconds: float | None) -> None:
        """Refuse, before any request, the settings the family cannot run with."""

    def default_system_prompt(self) -> str | None:
        """The system turn when neither the task nor ``system_prompt=`` gives one; None leaves it to the template."""
        return None

    def messages(self, messages: list[dict], audio_token: str | None) -> list[dict]:
        """The turns as the checkpoint's chat template takes them."""
        return messages

    def encode(self, processor, conversations: list[list[dict]], clips: list[list], sampling_rate: int):
        """The model inputs of a batch of conversations (turns as :meth:`messages` gave them) and each
        row's audio parts in order (``clips``: arrays at ``sampling_rate``); for ``encodes_prompt`` only."""
        raise NotImplementedError(f"hf-audio: the {self.family.name} adapter renders prompts as text")

    def audio_window_seconds(self, from_processor: float | None) -> float | None:
        """How much of a clip the model hears at once (None: the whole clip), given the processor's window."""
        return from_processor

    def before_call(self, has_audio: bool) -> None:
        """Put the model in the state for a batch with (or without) audio; called before every forward
        and generate, so that no state carries over from the previous call."""

    def trace_markers(self, processor) -> reasoning.TraceMarkers | None:
        """How the family marks a reasoning trace, where its checkpoint thinks (None: it answers straight away). A
        checkpoint whose template opens ``<think>`` in its generation prompt thinks. (A template that merely mentions
        ``<think>``, as Qwen3's do to re-render an earlier turn's reasoning, does not make its checkpoint a thinking
        one.)"""
        template = getattr(processor, "chat_template", None)
        if not template or reasoning.THINK.open not in template:
            return None
        turns = self.messages([{"role": "user", "content": [{"type": "text", "text": "Which digit?"}]}], None)
        try:
            prompt = processor.apply_chat_template(turns, tokenize=False, add_generation_prompt=True)
        except Exception:
            return None
        return reasoning.THINK if isinstance(prompt, str) and prompt.rstrip().endswith(reasoning.THINK.open) else None

    def thinking_budget(self) -> int | None:
        """The new tokens the family's documentation gives a thinking variant for its trace and answer together
        (None: none documented); the default of ``thinking_budget=``."""
        return self.family.thinking_budget

    def record(self) -> dict:
        """What the results JSON says about how this family ran (``lm_eval_audio_model``)."""
        if self.audio_method is not None:
            return {"audio_batching": "each request's audio through the processor and the audio encoder on its own, as "
                                      "at batch size 1 (the family's audio path is not padding-invariant); the batch "
                                      "decoded together"}
        return {}


# Every family's record, in the order their modules register them, and the adapter that runs each family hf-audio
# runs (one the generic path runs as it is has none).
_FAMILIES: list[Family] = []
_ADAPTERS: dict[str, type[FamilyAdapter]] = {}


def _register(family: Family) -> None:
    for known in _FAMILIES:
        if family.name == known.name or set(family.model_types) & set(known.model_types):
            raise ValueError(f"hf-audio: the family {family.name} ({', '.join(family.model_types)}) is registered twice")
    if family.runs and not family.tiny_models:
        raise ValueError(f"hf-audio: the family {family.name} names no tiny model that proves it (Family.tiny_models)")
    _FAMILIES.append(family)


def register(*proven: Family):
    """A class decorator: the adapter runs the families ``proven`` (each proven on a tiny model of its classes)."""

    def add(adapter: type[FamilyAdapter]) -> type[FamilyAdapter]:
        for family in proven:
            _register(family)
            _ADAPTERS[family.name] = adapter
        return adapter

    return add


def register_families(*records: Family) -> None:
    """Families registered without an adapter of their own: one the generic path runs as it is, or ones hf-audio
    does not run (``not_run``)."""
    for family in records:
        _register(family)


def all_families() -> tuple[Family, ...]:
    """Every family's record: those hf-audio runs, refuses, or leaves to their own server."""
    return tuple(_FAMILIES)


def proven_families() -> tuple[Family, ...]:
    """Every family hf-audio runs (each registered by its module in this package)."""
    return tuple(f for f in _FAMILIES if f.runs)


def adapter_class(family: Family) -> type[FamilyAdapter]:
    return _ADAPTERS.get(family.name, FamilyAdapter)


def check_packages(pretrained: str, config: dict | None) -> None:
    """The checkpoint and the packages of its family, checked before its processor loads (which may need them)."""
    family = proven(config)
    if family is not None:
        adapter = for_family(family, pretrained, config)
        adapter.check_checkpoint()
        adapter.check_packages()


def for_family(family: Family, pretrained: str, config: dict | None, revision: str | None = None) -> FamilyAdapter:
    """The adapter that runs ``family``; family=generic on a checkpoint whose family has its own adapter
    is refused, since the generic path would skip what that adapter does."""
    if family is GENERIC_PATH:
        own = proven(config)
        if own and own.name in _ADAPTERS:
            raise UnsupportedFamily(
                f"hf-audio: family=generic would run {pretrained!r} without the {own.name} adapter "
                f"({_ADAPTERS[own.name].does}); leave family= out"
            )
    return adapter_class(family)(family, pretrained, config, revision)


def of_model_type(model_type: str) -> Family | None:
    """The family whose checkpoints have ``model_type`` (run or refused)."""
    return next((f for f in _FAMILIES if model_type and model_type in f.model_types), None)


def named_in(text: str, families) -> Family | None:
    """The first of ``families`` one of whose name parts ``text`` holds, case aside."""
    text = text.lower()
    return next((f for f in families if any(part in text for part in f.name_parts)), None)


def refuse_known(pretrained: str, config: dict | None, family: str | None) -> None:
    """:class:`UnsupportedFamily` for a family known to go wrong, or one transformers does not implement;
    checked before the processor loads (a refused family's processor may need packages we do not install)."""
    if family not in (None, families.GENERIC):
        raise UnsupportedFamily(f"hf-audio: family={family!r} is not an option; leave it out, or pass family=generic")
    model_type = str((config or {}).get("model_type", ""))
    # A model_type we know decides (a fine-tuned Qwen2-Audio in a folder named after another family is Qwen2-Audio);
    # the name is read for checkpoints whose config.json says nothing we know.
    known = of_model_type(model_type)
    if known is None:
        # the checkpoint's own name, its architectures and model_type
        text = " ".join([families.checkpoint_name(pretrained), *(str(v) for v in (config or {}).get("architectures") or ()), model_type])
        known = named_in(text, [f for f in _FAMILIES if f.served is not None])
    if known is not None and not known.runs:
        raise UnsupportedFamily(known.refusal(pretrained, model_type if model_type in known.model_types else ""))


def proven(config: dict | None) -> Family | None:
    """The proven family of a checkpoint's config.json, if it is one."""
    family = of_model_type(str((config or {}).get("model_type", "")))
    return family if family is not None and family.runs else None


def resolve(pretrained: str, config: dict | None, has_audio_processor: bool, family: str | None) -> Family:
    """The family to run ``pretrained`` as, or :class:`UnsupportedFamily`.

    ``config`` is the checkpoint's config.json as a dict (None if unreadable); ``family`` the ``family=``
    model argument (None or ``generic``).
    """
    refuse_known(pretrained, config, family)
    model_type = str((config or {}).get("model_type", ""))
    if family == families.GENERIC:
        return GENERIC_PATH
    if family_of_config := proven(config):
        return family_of_config
    if not has_audio_processor:
        return families.TEXT_ONLY
    raise UnsupportedFamily(
        f"hf-audio: {pretrained!r} (model_type {model_type or 'unknown'}) is an audio family hf-audio has not been "
        f"proven on ({', '.join(f.name for f in proven_families())} are); pass family=generic in --model_args to run it through "
        "the generic path (processor audio=, chat template, generate) and check the prompts in the logged samples, "
        f"or {families.SERVE}"
    )


# Every family module of this package, imported once so that each registers its family.
for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")
