"""How each model family's checkpoints take their prompt and audio: one small adapter per family.

:class:`FamilyAdapter` is the generic path: the processor's ``audio=``, the checkpoint's chat template
with typed content parts, ``generate`` and one forward for scoring. Qwen2-Audio runs on it unchanged. A
family whose checkpoints differ overrides only what differs (the packages it needs, how its messages
reach its template, its default system prompt, which adapter weights are on for audio), and each
adapter is proven on a tiny model of the family's own classes in ``tests/test_model_families.py``.
:mod:`families` says which family a checkpoint is; this module says how that family is run.
"""

from __future__ import annotations

import importlib.util

from lm_eval_audio.model_wrappers import families, reasoning
from lm_eval_audio.model_wrappers.families import (
    AUDIO_FLAMINGO_3,
    GEMMA4,
    MUSIC_FLAMINGO,
    GEMMA3N,
    GENERIC_PATH,
    GRANITE_SPEECH,
    PHI4_MULTIMODAL,
    QWEN2_5_OMNI,
    QWEN3_OMNI,
    VOXTRAL,
    Family,
    UnsupportedFamily,
)


class FamilyAdapter:
    """The generic path; a family's adapter overrides the hooks its checkpoints need."""

    does = "nothing beyond the generic path"  # one line for messages: what the adapter changes
    # True where the family's audio encoder is not padding-invariant: requests with audio are then generated
    # one at a time, so that a clip is encoded as at batch size 1 whatever the batch size (multiple-choice
    # scoring always runs a document's prompt and clip alone).
    clips_alone = False
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

    def needs(self) -> list[tuple[str, str, str]]:
        """(module, the setup.cfg extra that pins it, what it is for) for each package this checkpoint needs."""
        return []

    def check_checkpoint(self) -> None:
        """:class:`UnsupportedFamily` for a checkpoint of the family that cannot be evaluated; from its config.json,
        before anything loads."""

    def check_packages(self) -> None:
        """:class:`UnsupportedFamily` naming the first missing package; before any weight loads."""
        for module, extra, why in self.needs():
            if importlib.util.find_spec(module) is None:
                raise UnsupportedFamily(
                    f"hf-audio: {self.family.name} ({self.pretrained!r}) needs {module} for {why}, and it is not "
                    f"installed; install the {extra} extra: pip install -e '.[{extra}]' in the lm-eval-audio clone "
                    "(bash scripts/setup.sh installs every family's extra)"
                )

    def load(self, load_kwargs: dict):
        """The model to run, loaded from the checkpoint; None for transformers' auto classes (the generic path)."""
        return None

    def prepare_processor(self, processor) -> None:
        """Fix what loading leaves wrong in the checkpoint's processor."""

    def attach(self, model) -> None:
        """Check the loaded model and keep it for :meth:`before_call`."""
        self.model = model

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
        return None

    def record(self) -> dict:
        """What the results JSON says about how this family ran (``lm_eval_audio_model``)."""
        if self.clips_alone:
            return {"audio_batching": "one request with audio per generate() (its audio encoder is not padding-invariant)"}
        return {}


# granite-speech-3.3-2b's model card, the transformers usage example: its system prompt, word for word (the
# checkpoint's chat_template.jinja would otherwise write today's date into every prompt).
GRANITE_MODEL_CARD_SYSTEM_PROMPT = (
    "Knowledge Cutoff Date: April 2024.\nToday's Date: April 9, 2025.\n"
    "You are Granite, developed by IBM. You are a helpful AI assistant"
)


class GraniteSpeechAdapter(FamilyAdapter):
    """granite-speech-3.x and granite-speech-4.1 plus (whose encoder also passes some middle layers' outputs to the
    projector; processor, prompt and LoRA are the same): a Granite LLM whose speech LoRA (q_proj, v_proj; ``adapter_config.json`` at the
    checkpoint's root, loaded by transformers through peft) is meant to be on only for audio: the model's
    own ``generate()`` switches it by whether audio features are passed, and nothing switches it for a
    plain forward, so scoring would inherit whatever the last ``generate()`` left. Here the state is set
    before every call. The checkpoint's template takes string content with ``<|audio|>`` where the
    audio goes (typed content parts raise a TypeError in it)."""

    does = ("its speech LoRA set on for audio and off for text before every call, <|audio|> in string content, "
            "requests with audio generated one at a time")
    # Its encoder takes no attention mask and the feature extractor pads a call's clips to the longest: a clip next
    # to a longer one encodes differently (a request's log-probs move by 4 in the tiny model), so clips go alone.
    clips_alone = True

    def _has_lora(self) -> bool:
        return bool(self.config.get("has_lora_adapter"))

    def needs(self) -> list[tuple[str, str, str]]:
        return [("peft", "granite-speech", "its speech LoRA (has_lora_adapter in config.json)")] if self._has_lora() else []

    def attach(self, model) -> None:
        if self._has_lora() and not getattr(model, "_hf_peft_config_loaded", False):
            raise UnsupportedFamily(
                f"hf-audio: {self.family.name} ({self.pretrained!r}): config.json says has_lora_adapter but no speech "
                "LoRA was loaded (adapter_config.json and adapter_model.safetensors belong next to config.json); "
                "download the whole checkpoint"
            )
        super().attach(model)

    def default_system_prompt(self) -> str:
        return GRANITE_MODEL_CARD_SYSTEM_PROMPT

    def messages(self, messages: list[dict], audio_token: str | None) -> list[dict]:
        def flat(content):
            if isinstance(content, str):
                return content
            return "".join(audio_token if part.get("type") == "audio" else part.get("text", "") for part in content)

        return [{**m, "content": flat(m["content"])} for m in messages]

    def before_call(self, has_audio: bool) -> None:
        if self._has_lora():
            (self.model.enable_adapters if has_audio else self.model.disable_adapters)()

    def record(self) -> dict:
        lora = "on for requests with audio, off for text-only ones" if self._has_lora() else "none in this checkpoint"
        return {"speech_lora": lora, **super().record()}


class Gemma3nAdapter(FamilyAdapter):
    """Gemma 3n: the generic path, with one package and one batching rule. Loading the model builds its timm
    vision tower even for audio (timm). Its audio encoder is not padding-invariant: a clip padded to a longer
    one in its batch gets up to three more valid mel frames, and its last frames see the padding through the
    subsampling convolutions, so its last audio token changes. Requests with audio are therefore generated one
    at a time (multiple-choice scoring runs each document's clip alone anyway). Its template writes
    ``{{ bos_token }}`` itself, which the generic path tokenizes without adding a second BOS."""

    does = "requests with audio generated one at a time (its audio encoder is not padding-invariant)"
    clips_alone = True

    def needs(self) -> list[tuple[str, str, str]]:
        return [("timm", "gemma3n", "the vision tower every Gemma 3n model builds at load, audio or not")]


class Gemma4Adapter(FamilyAdapter):
    """Gemma 4: the generic path (its template writes BOS, which the generic path does not add again; its audio
    encoder is padding-invariant, so clips are batched), with one package and one refusal. Its processor loads
    torchvision image and video processors. Only the small checkpoints (E2B, E4B) have an audio tower; the larger
    ones share the model_type and the processor's feature extractor, and would run deaf. Its thinking mode is off
    unless a template is asked to enable it, which hf-audio never does (its thought markers are special tokens,
    which decoding would drop into the answer)."""

    does = "checkpoints without an audio tower refused"

    def needs(self) -> list[tuple[str, str, str]]:
        return [("torchvision", "gemma4", "the image and video processors its processor loads")]

    def check_checkpoint(self) -> None:
        if not self.config.get("audio_config"):
            raise UnsupportedFamily(
                f"hf-audio: {self.family.name} ({self.pretrained!r}) has no audio tower (config.json has no "
                "audio_config: only the E2B and E4B checkpoints hear audio); evaluate one of those")


class Qwen25OmniAdapter(FamilyAdapter):
    """Qwen2.5-Omni: the thinker alone. The published checkpoints set ``enable_audio_output``, so transformers'
    top-level class builds the speech talker and token2wav too (about 2 GB more), its ``generate()`` speaks every
    answer and returns ``(text_ids, wav)``, caps the answer at its own ``thinker_max_new_tokens`` (1,024) instead
    of the task's, and it has no forward for log-likelihoods. The thinker (the audio encoder and the text model)
    loads from the same checkpoint, generates text with the task's settings and scores continuations. Its
    processor loads a torchvision video processor, and pads every clip to 30 s as Qwen2-Audio's does."""

    does = "the thinker alone (audio encoder and text model), without the speech talker"

    def needs(self) -> list[tuple[str, str, str]]:
        return [("torchvision", "qwen2-5-omni", "the video processor its processor loads")]

    def load(self, load_kwargs: dict):
        from transformers import Qwen2_5OmniThinkerForConditionalGeneration

        return Qwen2_5OmniThinkerForConditionalGeneration.from_pretrained(self.pretrained, **load_kwargs)

    def record(self) -> dict:
        return {"model": "the thinker only (text out); the speech talker is not loaded"}


# Qwen3-Omni-30B-A3B-Thinking: the model card's (QwenLM/Qwen3-Omni README, "vLLM Usage") sampling settings for the
# Thinking model give max_tokens=16384 (with max_model_len 32768).
QWEN3_OMNI_THINKING_BUDGET = 16384


class Qwen3OmniAdapter(FamilyAdapter):
    """Qwen3-Omni (Instruct, Thinking, Captioner; and a thinker saved on its own, ``qwen3_omni_moe_thinker``): the
    thinker alone. The Instruct checkpoint sets ``enable_audio_output``, so transformers' top-level class builds
    the speech talker and code2wav as well, its ``generate()`` runs them and caps the answer at its own
    ``thinker_max_new_tokens``. The thinker (audio encoder, vision encoder, MoE text model) loads from any of the
    layouts, generates text with the task's settings and scores continuations; the talker's weights stay on disk.
    Its processor pads the clips of a call to the longest and truncates none (chunk_length 300 s, truncation off),
    so a clip is heard whole; a clip padded next to a longer one encodes differently at its last frames, so
    requests with audio are generated one at a time. The processor loads a torchvision video processor."""

    does = "the thinker alone (no talker or code2wav loaded), requests with audio generated one at a time"
    clips_alone = True

    def needs(self) -> list[tuple[str, str, str]]:
        return [("torchvision", "qwen3-omni", "the video processor its processor loads")]

    def load(self, load_kwargs: dict):
        from transformers import Qwen3OmniMoeThinkerForConditionalGeneration

        return Qwen3OmniMoeThinkerForConditionalGeneration.from_pretrained(self.pretrained, **load_kwargs)

    def audio_window_seconds(self, from_processor: float | None) -> float | None:
        return None  # the processor truncates nothing: the whole clip reaches the audio encoder

    def trace_markers(self, processor) -> reasoning.TraceMarkers | None:
        # The Thinking checkpoint, by its name (the Hub id's or the folder's own, not a parent folder's), whether or
        # not its template opens the trace in the prompt.
        thinking = "thinking" in str(self.pretrained).rstrip("/").rsplit("/", 1)[-1].lower()
        return super().trace_markers(processor) or (reasoning.THINK if thinking else None)

    def thinking_budget(self) -> int | None:
        return QWEN3_OMNI_THINKING_BUDGET

    def record(self) -> dict:
        return {"model": "the thinker only (text out); the speech talker and code2wav are not loaded",
                **super().record()}


class AudioFlamingoAdapter(FamilyAdapter):
    """Audio Flamingo 3 and Music Flamingo: a Whisper-style encoder over 30 s windows, a projector and a Qwen2.5
    text model. In transformers 5.23 no multimodal auto class maps them, so the model loads with its own class. The
    processor takes one clip per prompt (a single ``<sound>``, which the template puts first in the user turn and
    the processor expands to the clip's frames: Music Flamingo wraps them in ``<|sound_bos|>``/``<|sound_eos|>``)
    and hears at most ``max_audio_len`` seconds of it (AF3 600, Music Flamingo 1,200: 20 or 40 windows), dropping
    the rest with a log line only. Here a longer clip is cut at that limit by ``long_audio=truncate`` and counted;
    ``chunk`` and requests with several clips are refused. Its ``padding=`` reaches the feature extractor, where
    padding to the longest window of a call instead of to 30 s breaks the encoder: padding is asked of the text
    side only. The default system prompt is the template's (AF3 "You are a helpful assistant.", Music Flamingo its
    own), and the checkpoint's sampling settings are set aside as for any checkpoint (``generation_config=``)."""

    does = ("loaded with its own class, one clip per request heard up to the processor's limit (longer clips cut there "
            "and counted), padding asked of the text only")
    pads_text_only = True

    def load(self, load_kwargs: dict):
        import transformers

        name = "MusicFlamingoForConditionalGeneration" if self.family is MUSIC_FLAMINGO else \
            "AudioFlamingo3ForConditionalGeneration"
        return getattr(transformers, name).from_pretrained(self.pretrained, **load_kwargs)

    def prepare_processor(self, processor) -> None:
        # Both processors of transformers 5.23 set it (600 s, 1,200 s); without it the limit would be unknown.
        if not getattr(processor, "max_audio_len", None):
            raise UnsupportedFamily(f"hf-audio: {self.family.name} ({self.pretrained!r}): its processor states no "
                                    "max_audio_len, so how much of a clip it hears is unknown; use transformers 5.23")
        self.max_audio_len = float(processor.max_audio_len)

    def audio_window_seconds(self, from_processor: float | None) -> float | None:
        return self.max_audio_len  # the processor cuts 30 s windows itself; it hears this much of a clip at most

    def check_settings(self, long_audio: str, max_audio_seconds: float | None) -> None:
        if long_audio == "chunk":
            raise UnsupportedFamily(
                f"hf-audio: {self.family.name} ({self.pretrained!r}) takes one clip per request and windows it itself "
                f"(up to {self.max_audio_len:g} s); leave long_audio=chunk out")
        if max_audio_seconds and self.max_audio_len and max_audio_seconds > self.max_audio_len:
            raise UnsupportedFamily(
                f"hf-audio: {self.family.name} ({self.pretrained!r}) hears at most {self.max_audio_len:g} s of a clip "
                f"(its processor's max_audio_len), not max_audio_seconds={max_audio_seconds:g}; pass at most that")

    def messages(self, messages: list[dict], audio_token: str | None) -> list[dict]:
        clips = sum(1 for m in messages if isinstance(m["content"], list)
                    for part in m["content"] if part.get("type") == "audio")
        if clips > 1:
            raise ValueError(
                f"hf-audio: {self.family.name} ({self.pretrained!r}) hears one clip per request (its template writes "
                f"one <sound> per prompt), and this request has {clips}; evaluate it on single-clip tasks")
        return messages

    def record(self) -> dict:
        return {"audio": f"one clip per request, heard up to {self.max_audio_len:g} s (its processor's 30 s windows); "
                         "longer clips are cut there (long_audio=truncate) and counted"}


class Phi4MultimodalAdapter(FamilyAdapter):
    """Phi-4-multimodal-instruct: a Phi-4-mini whose speech LoRA sits in the checkpoint's ``speech-lora/``
    folder, which ``from_pretrained`` never loads (the model would answer as if deaf). It is loaded here as
    adapter ``speech`` and set on for requests with audio and off for text-only ones before every call.
    In transformers 5.23 the processor loads without the chat template its tokenizer carries; it is given
    the tokenizer's. Its audio encoder is not padding-invariant, so requests with audio are generated one at
    a time. The image processor needs torchvision."""

    does = ("its speech LoRA (speech-lora/) loaded and set on for audio and off for text before every call, requests "
            "with audio generated one at a time")
    clips_alone = True
    LORA_FOLDER = "speech-lora"

    def needs(self) -> list[tuple[str, str, str]]:
        return [("peft", "phi4-multimodal", f"its speech LoRA ({self.LORA_FOLDER}/)"),
                ("torchvision", "phi4-multimodal", "the image processor its processor loads")]

    def prepare_processor(self, processor) -> None:
        if not getattr(processor, "chat_template", None):
            processor.chat_template = getattr(processor.tokenizer, "chat_template", None)

    def attach(self, model) -> None:
        try:
            where = {"subfolder": self.LORA_FOLDER, **({"revision": self.revision} if self.revision else {})}
            model.load_adapter(self.pretrained, adapter_name="speech", adapter_kwargs=where)
        except (OSError, ValueError) as e:
            raise UnsupportedFamily(
                f"hf-audio: {self.family.name} ({self.pretrained!r}): its speech LoRA could not be loaded from "
                f"{self.LORA_FOLDER}/ ({type(e).__name__}); download the whole checkpoint, {self.LORA_FOLDER}/ included"
            ) from e
        super().attach(model)

    def before_call(self, has_audio: bool) -> None:
        if has_audio:
            self.model.enable_adapters()
            self.model.set_adapter("speech")
        else:
            self.model.disable_adapters()

    def record(self) -> dict:
        return {"speech_lora": f"{self.LORA_FOLDER}/, on for requests with audio, off for text-only ones",
                **super().record()}


class VoxtralAdapter(FamilyAdapter):
    """Voxtral (Mini-3B, Small-24B): the checkpoints carry no Jinja chat template but a ``tekken.json`` that
    mistral_common reads (transformers' ``MistralCommonBackend``), and the processor's ``__call__`` takes no
    audio (``audio=`` is dropped without a word, so the generic path would run the model deaf). Audio reaches
    the model only through the processor's ``apply_chat_template``, which renders and tokenizes the conversation
    with mistral_common, the format the model card points to (``<s>[INST][BEGIN_AUDIO][AUDIO]...text[/INST]``),
    and computes the log-mel features of the clips it was handed. So the clips go into the conversation, as
    base64 WAV (float samples, exact), and the prompt comes back as token ids. mistral_common pads each clip to
    a multiple of 30 s on its own and the encoder takes each 30 s window alone, so batching cannot change what a
    clip encodes to; clips longer than 30 s are passed whole (one window after another, as the model card
    has it), not truncated. mistral_common (tekken v7) refuses a system turn in a conversation with audio."""

    does = ("the prompt rendered and tokenized by mistral_common with the clips inside it (its processor takes no "
            "audio=), clips passed whole")
    encodes_prompt = True
    stops_in_generate = False  # MistralCommonBackend has no _convert_id_to_token, which StopStringCriteria reads

    def needs(self) -> list[tuple[str, str, str]]:
        return [("mistral_common", "voxtral", "its tekken tokenizer and prompt format"),
                ("soxr", "voxtral", "mistral_common's audio path (mistral_common[audio])")]

    def audio_window_seconds(self, from_processor: float | None) -> float | None:
        return None

    def encode(self, processor, conversations: list[list[dict]], clips: list[list], sampling_rate: int):
        import base64
        import io

        import soundfile as sf

        def wav(samples) -> str:
            buffer = io.BytesIO()
            sf.write(buffer, samples, sampling_rate, format="WAV", subtype="FLOAT")
            return base64.b64encode(buffer.getvalue()).decode("ascii")

        rows = []
        for messages, row_clips in zip(conversations, clips):
            if row_clips and any(m["role"] == "system" for m in messages):
                raise ValueError(
                    f"hf-audio: {self.family.name} ({self.pretrained!r}) takes no system prompt in a conversation "
                    "with audio (mistral_common refuses it); leave out system_prompt= and --system_instruction"
                )
            pending = iter(row_clips)

            def with_clips(parts: list[dict]) -> list[dict]:
                return [{"type": "audio", "base64": wav(next(pending))} if part.get("type") == "audio" else part  # noqa: B023 (called at once, inside this iteration)
                        for part in parts]

            rows.append([{**m, "content": with_clips(m["content"])} if isinstance(m["content"], list) else m
                         for m in messages])
        final = {messages[-1]["role"] == "assistant" for messages in conversations}
        if len(final) > 1:
            raise RuntimeError("hf-audio: a batch mixes prompts that end with an assistant turn and prompts that "
                               "do not; run them in separate calls")
        # The processor tokenizes whatever tokenize= says, and pads with the tokenizer's padding side.
        return processor.apply_chat_template(rows, continue_final_message=final.pop())

    def record(self) -> dict:
        return {"prompt": "rendered and tokenized by mistral_common (tekken.json), the clips inside it"}


_ADAPTERS: dict[str, type[FamilyAdapter]] = {
    GRANITE_SPEECH.name: GraniteSpeechAdapter, GEMMA3N.name: Gemma3nAdapter, QWEN2_5_OMNI.name: Qwen25OmniAdapter,
    PHI4_MULTIMODAL.name: Phi4MultimodalAdapter, VOXTRAL.name: VoxtralAdapter, QWEN3_OMNI.name: Qwen3OmniAdapter,
    AUDIO_FLAMINGO_3.name: AudioFlamingoAdapter, MUSIC_FLAMINGO.name: AudioFlamingoAdapter, GEMMA4.name: Gemma4Adapter,
}


def check_packages(pretrained: str, config: dict | None) -> None:
    """The checkpoint and the packages of its family, checked before its processor loads (which may need them)."""
    family = families.proven(config)
    if family is not None:
        adapter = for_family(family, pretrained, config)
        adapter.check_checkpoint()
        adapter.check_packages()


def for_family(family: Family, pretrained: str, config: dict | None, revision: str | None = None) -> FamilyAdapter:
    """The adapter that runs ``family``; family=generic on a checkpoint whose family has its own adapter
    is refused, since the generic path would skip what that adapter does."""
    if family is GENERIC_PATH:
        own = families.proven(config)
        if own and own.name in _ADAPTERS:
            raise UnsupportedFamily(
                f"hf-audio: family=generic would run {pretrained!r} without the {own.name} adapter "
                f"({_ADAPTERS[own.name].does}); leave family= out"
            )
    return _ADAPTERS.get(family.name, FamilyAdapter)(family, pretrained, config, revision)
