"""``hf-audio``: any transformers audio-language model behind lm-eval's LM interface.

    lm_eval --model hf-audio --model_args pretrained=Qwen/Qwen2-Audio-7B-Instruct --tasks ...

Requests arrive as ``(context, gen_kwargs[, {"audio": [ref, ...]}])`` for generation and
``(context, continuation[, {"audio": [...]}])`` for log-likelihoods; text-only and audio
requests of different tasks come mixed in one call. Audio references are decoded here,
one batch at a time, and handed to the processor as ``audio=``: the keyword current
processors read. lm-eval's own audio model passes ``audios=``, which they do not read as
audio (ignored or rejected, depending on the processor and version), so a model can end
up hearing nothing. After every processor call we check that audio features and audio
tokens are really there.
"""

from __future__ import annotations

import json
import logging
import os
from collections import OrderedDict
from typing import NamedTuple

from lm_eval.api.model import LM

from lm_eval_audio.audio import decoding as audio_io
from lm_eval_audio.audio import conditions as audio_condition
from lm_eval_audio.model_wrappers import failed_requests, families, family_adapters
from lm_eval_audio.model_wrappers import generation_config as greedy
from lm_eval_audio.audio.refs import AudioError, content_digest, describe
from lm_eval_audio.model_wrappers.batching import Batcher
from lm_eval_audio.endpoints.model_args import as_bool, refuse_unknown
from lm_eval_audio.audio.markers import (
    decode_chat_context,
    encode_chat_context,
    flatten_without_template,
    place_audio,
)
from lm_eval_audio.model_wrappers.request_parts import RequestParts as _Item
from lm_eval_audio.model_wrappers.request_parts import chat_messages, cut_at_stops, generation_settings, split_request

log = logging.getLogger("lm_eval.audio.hf_audio")

# Keys of a processor's output that carry text, not audio.
_TEXT_KEYS = {"input_ids", "attention_mask", "token_type_ids", "position_ids"}
_LONG_AUDIO_POLICIES = ("truncate", "chunk")


_DECODED_CLIPS_KEPT = 64


class _ClipFailed(Exception):
    """A row's clip could not be decoded; ``index`` names the row."""

    def __init__(self, index: int, error: AudioError) -> None:
        super().__init__(str(error))
        self.index, self.error = index, error


def _heaviest_first(groups: list[list[_Item]]) -> list[list[_Item]]:
    return sorted(groups, key=lambda g: (-g[0].seconds, -len(g[0].context)))


def audio_window_seconds(feature_extractor, sampling_rate: int) -> float | None:
    """How much of a clip the feature extractor keeps: Whisper-style ``n_samples`` or ``chunk_length``,
    or the ``max_length`` (in samples) its ``__call__`` truncates to by default (Gemma 3n's 480,000)."""
    import inspect

    n_samples = getattr(feature_extractor, "n_samples", None)
    if n_samples:
        return n_samples / sampling_rate
    chunk = getattr(feature_extractor, "chunk_length", None)
    if chunk:
        return float(chunk)
    try:
        params = inspect.signature(feature_extractor.__call__).parameters
    except (TypeError, ValueError, AttributeError):
        return None
    max_length, truncation = params.get("max_length"), params.get("truncation")
    if max_length is not None and isinstance(max_length.default, int) and truncation is not None \
            and truncation.default is True:
        return max_length.default / sampling_rate
    return None


def _config_dict(pretrained: str, revision: str | None, gguf: dict) -> dict | None:
    """The checkpoint's config.json (or GGUF metadata) as a dict; None where there is none, which
    :mod:`families` turns into a clear error or transformers' own when the model loads."""
    from transformers import PretrainedConfig

    try:
        return PretrainedConfig.get_config_dict(pretrained, revision=revision, **gguf)[0]
    except (OSError, ValueError):
        return None


def _load_model(pretrained: str, **kwargs):
    """AutoModelForMultimodalLM first; other auto classes for architectures mapped elsewhere."""
    import transformers

    tried = []
    for name in (
        "AutoModelForMultimodalLM",
        "AutoModelForImageTextToText",
        "AutoModelForSpeechSeq2Seq",
        "AutoModelForCausalLM",
    ):
        auto = getattr(transformers, name, None)
        if auto is None:
            continue
        try:
            model = auto.from_pretrained(pretrained, **kwargs)
        except ValueError as e:  # "Unrecognized configuration class ..." for this auto class
            if "Unrecognized configuration class" not in str(e):
                raise
            tried.append(name)
            continue
        log.info("hf-audio: loaded %s with %s", type(model).__name__, name)
        return model
    raise ValueError(
        f"hf-audio: no transformers auto class can load {pretrained!r} (tried {', '.join(tried)}); "
        "if the model ships its own code, add trust_remote_code=True to --model_args"
    )


class _Rendered(NamedTuple):
    text: str  # the prompt; empty where the family's adapter encodes the turns itself
    templated: bool  # rendered by a chat template
    after_header: bool  # ends with the template's generation prompt (the assistant header)
    messages: list | None = None  # the turns, for an adapter that encodes them itself (encodes_prompt)


class _PromptPass(NamedTuple):
    """A forward over some documents' prompts: what their continuations are scored from."""

    rendered: list[_Rendered]
    mask: "torch.Tensor"  # (documents, padded width), right-padded
    lengths: list[int]  # each row's prompt tokens
    first: "torch.Tensor"  # (documents, vocabulary): log-probs after each row's last prompt token
    cache: object  # the key-value cache of the pass, one row per document


def _plain_text(item: _Item) -> bool:
    """A text-only request whose context lm-eval's --apply_chat_template did not turn into turns: lm-eval's
    `hf` reads it as it is, without a template, and so does hf-audio. An audio task's request under audio=none
    is no such request: it keeps the template it has under audio=full."""
    return not item.audio_task and decode_chat_context(item.context) is None


class HFAudioLM(LM):
    MULTIMODAL = True

    def __init__(
        self,
        pretrained: str,
        dtype: str = "auto",
        device: str | None = None,
        device_map: str | None = None,
        trust_remote_code: bool = False,
        attn_implementation: str | None = None,
        revision: str | None = None,
        gguf_file: str | None = None,
        max_new_tokens: int = 256,
        system_prompt: str | None = None,
        chat_template: bool = True,
        audio_prompt: str | None = None,
        max_audio_seconds: float | None = None,
        long_audio: str = "truncate",
        batch_size: int | str = 1,
        max_batch_size: int | None = 64,
        max_length: int | None = None,
        audio: str = "full",
        family: str | None = None,
        generation_config: str = "neutral",
        **unknown,
    ) -> None:
        super().__init__()
        unknown.pop("parallelize", None)  # set by some lm-eval front ends; device_map covers it
        refuse_unknown("hf-audio", unknown, HFAudioLM.__init__, locals())
        self.audio_condition = audio_condition.parse(audio, "hf-audio")
        if long_audio not in _LONG_AUDIO_POLICIES:
            raise ValueError(f"hf-audio: long_audio must be one of {_LONG_AUDIO_POLICIES}, got {long_audio!r}")
        if max_audio_seconds is not None and float(max_audio_seconds) <= 0:
            raise ValueError(
                f"hf-audio: max_audio_seconds must be positive, got {max_audio_seconds!r} "
                "(leave it out to use the processor's own window)"
            )
        if generation_config not in greedy.CHOICES:
            raise ValueError(f"hf-audio: generation_config must be one of {greedy.CHOICES}, got {generation_config!r}")
        chat_template = as_bool("hf-audio", "chat_template", chat_template)
        trust_remote_code = as_bool("hf-audio", "trust_remote_code", trust_remote_code)

        import torch
        from transformers import AutoProcessor

        if dtype != "auto" and not isinstance(getattr(torch, str(dtype), None), torch.dtype):
            raise ValueError(f"hf-audio: dtype={dtype!r} is not a torch dtype; use auto, float32, bfloat16 or float16")

        self._rank, self._world_size, self.accelerator = 0, 1, None
        if int(os.environ.get("WORLD_SIZE", "1")) > 1 and device_map is None:
            from accelerate import Accelerator

            # On CPU, accelerate only joins the process group (gloo) when asked to.
            on_cpu = not torch.cuda.is_available() or str(device).startswith("cpu")
            self.accelerator = Accelerator(cpu=on_cpu)
            self._rank = self.accelerator.process_index
            self._world_size = self.accelerator.num_processes
            device = str(self.accelerator.device)
        if device is None or (str(device).startswith("cuda") and not torch.cuda.is_available()):
            if device is not None:
                # lm-eval's CLI passes --device cuda by default, GPU or not.
                log.warning("hf-audio: device %s requested but CUDA is not available; using cpu", device)
            device = "cuda" if torch.cuda.is_available() else "cpu"

        self.pretrained = pretrained
        gguf = {"gguf_file": gguf_file} if gguf_file else {}
        config = _config_dict(pretrained, revision, gguf)
        # Before the processor: a refused family, or one without its package, may not even load one (Voxtral
        # without mistral_common).
        families.refuse_known(pretrained, config, family)
        family_adapters.check_packages(pretrained, config)
        self.processor = AutoProcessor.from_pretrained(
            pretrained, trust_remote_code=trust_remote_code, revision=revision, **gguf
        )
        self.tokenizer = getattr(self.processor, "tokenizer", None) or self.processor
        self.family = families.resolve(pretrained, config, self._feature_extractor() is not None, family)
        log.info("hf-audio: %s runs as family %s", pretrained, self.family.name)
        self.adapter = family_adapters.for_family(self.family, pretrained, config, revision)
        self.adapter.prepare_processor(self.processor)
        if type(self.adapter) is not family_adapters.FamilyAdapter:
            log.info("hf-audio: the %s adapter: %s", self.family.name, self.adapter.does)
        load_kwargs = {"dtype": dtype, "trust_remote_code": trust_remote_code, "revision": revision, **gguf}
        if attn_implementation:
            load_kwargs["attn_implementation"] = attn_implementation
        if device_map:
            load_kwargs["device_map"] = device_map
        self.model = (self.adapter.load(load_kwargs) or _load_model(pretrained, **load_kwargs)).eval()
        if not device_map:
            self.model.to(device)
        self.adapter.attach(self.model)
        self._device = self.model.device
        self._neutral_generation = (
            greedy.neutralizing_kwargs(self.model.generation_config) if generation_config == "neutral" else {})
        # Into the results JSON (lm_eval_audio_model): what decoded the answers.
        self.system_prompt = system_prompt if system_prompt is not None else self.adapter.default_system_prompt()
        self.run_record = {"family": self.family.name, "system_prompt": self.system_prompt, **self.adapter.record(),
                           **greedy.record(generation_config, getattr(self.model, "generation_config", None)),
                           # Requests by kind: audio always in the model's template (unless chat_template=False);
                           # text in it only under lm-eval's --apply_chat_template, as lm-eval's `hf` does.
                           "prompts": dict.fromkeys(("audio_with_template", "audio_without_template",
                                                     "text_with_template", "text_without_template"), 0)}

        self.max_new_tokens = int(max_new_tokens)
        self.progress_label = "hf-audio"  # what the progress bars say is running (cascade: its LLM)
        self.use_chat_template = chat_template
        if self.adapter.encodes_prompt:
            if not self.use_chat_template:
                raise ValueError(
                    f"hf-audio: {self.family.name} ({pretrained!r}) takes its prompt only as its processor renders "
                    "it (audio included); leave chat_template=False out"
                )
        elif self.use_chat_template and not getattr(self.processor, "chat_template", None):
            raise ValueError(
                f"hf-audio: {pretrained!r} has no chat template; pass chat_template=False "
                "(and audio_prompt=... if the model's prompt format needs one)"
            )
        self.audio_prompt = audio_prompt if audio_prompt is not None else self._default_audio_prompt()
        self.sampling_rate = self._sampling_rate()
        window = self._audio_window_seconds()
        self.max_audio_seconds = float(max_audio_seconds) if max_audio_seconds else window
        self.long_audio = long_audio
        self._max_length = max_length
        self._audio_token_id = self._find_audio_token_id()

        auto = str(batch_size).startswith("auto")
        self.batcher = Batcher(None if auto else int(batch_size), int(max_batch_size or 64), "hf-audio")
        self.batch_sizes = self.batcher.found  # lm-eval records these in the results' config
        self._decoded: OrderedDict[str, list] = OrderedDict()  # recent clips, after the long-audio policy
        self._start_call([])

        if self.max_audio_seconds:
            what = (
                f"truncated to their first {self.max_audio_seconds:g} s"
                if long_audio == "truncate"
                else f"cut into {self.max_audio_seconds:g} s chunks, each passed as its own audio part"
            )
            log.info("hf-audio: clips longer than %g s are %s (long_audio=%s)", self.max_audio_seconds, what, long_audio)
        else:
            log.info("hf-audio: no audio length limit known for this processor; clips are passed whole")

    # --- properties lm-eval reads ---------------------------------------------------

    @property
    def max_length(self) -> int:
        if self._max_length:
            return int(self._max_length)
        config = getattr(self.model.config, "text_config", None) or self.model.config
        for attr in ("max_position_embeddings", "n_positions", "seq_length"):
            if getattr(config, attr, None):
                return int(getattr(config, attr))
        return int(min(getattr(self.tokenizer, "model_max_length", 2048), 1 << 20))

    @property
    def tokenizer_name(self) -> str:
        return str(self.pretrained).replace("/", "__")

    def chat_template(self, chat_template: bool | str = False) -> str | None:
        return getattr(self.processor, "chat_template", None)

    def apply_chat_template(self, chat_history: list[dict], add_generation_prompt: bool = True) -> str:
        # Rendering needs the audio, which only arrives with the request: keep the turns
        # structured and render in _render (see lm_eval_audio.audio.markers).
        return encode_chat_context(chat_history, add_generation_prompt)

    # --- distributed primitives (accelerate launch -m lm_eval ...) --------------------

    def all_gather(self, tensor):
        return tensor if self._world_size <= 1 else self.accelerator.gather(tensor)

    def gather_object(self, obj, dst=0):
        if self._world_size <= 1:
            return [obj]
        import torch.distributed as dist

        result = [None] * self._world_size if self._rank == dst else None
        dist.gather_object(obj, result, dst=dst)
        return result

    def barrier(self) -> None:
        if self._world_size > 1:
            self.accelerator.wait_for_everyone()

    def _split_args(self, index: int, args: tuple) -> _Item:
        heard = self.max_audio_seconds if self.long_audio == "truncate" else None
        return split_request(index, args, "hf-audio", measure=True, condition=self.audio_condition,
                             heard_seconds=heard)

    # --- processor facts ----------------------------------------------------------------

    def _feature_extractor(self):
        return getattr(self.processor, "feature_extractor", None) or getattr(self.processor, "audio_processor", None)

    def _sampling_rate(self) -> int:
        fe = self._feature_extractor()
        for obj in (fe, self.processor):
            sr = getattr(obj, "sampling_rate", None)
            if sr:
                return int(sr)
        if fe is None:
            log.info("hf-audio: %s has no audio processor; it serves text-only requests", self.pretrained)
        else:
            log.warning("hf-audio: the processor states no sampling rate; resampling audio to 16000 Hz")
        return 16000

    def _audio_window_seconds(self) -> float | None:
        return self.adapter.audio_window_seconds(audio_window_seconds(self._feature_extractor(), self.sampling_rate))

    def _default_audio_prompt(self) -> str | None:
        token = getattr(self.processor, "audio_token", None)
        if token is None:
            return None
        bos = getattr(self.processor, "audio_bos_token", None) or ""
        eos = getattr(self.processor, "audio_eos_token", None) or ""
        return f"{bos}{token}{eos}"

    def _find_audio_token_id(self) -> int | None:
        token_id = getattr(self.processor, "audio_token_id", None)
        if token_id is None and getattr(self.processor, "audio_token", None):
            token_id = self.tokenizer.convert_tokens_to_ids(self.processor.audio_token)
        if token_id is None:
            token_id = getattr(self.model.config, "audio_token_id", None) or getattr(
                self.model.config, "audio_token_index", None
            )
        return None if token_id is None else int(token_id)

    # --- building model inputs --------------------------------------------------------

    def _clips(self, item: _Item) -> list:
        """Decode an item's audio and apply the long-audio policy: one list of chunks per clip.

        A multiple-choice document sends the same clip once per choice; the last few
        decoded clips are kept, keyed by content, so each is decoded once.
        """
        if item.refs and self._feature_extractor() is None:
            raise ValueError(
                f"hf-audio: {self.pretrained!r} has no audio processor (a text-only model), and request {item.index} "
                "carries audio; evaluate a text LLM on audio tasks with --model cascade (speech recognition, then the LLM)"
            )
        try:
            return [self._clip(ref) for ref in item.refs]
        except AudioError as e:
            raise _ClipFailed(item.index, e) from e

    def _clip(self, ref) -> list:
        key = content_digest(ref)
        if key in self._decoded:
            self._decoded.move_to_end(key)
            return self._decoded[key]
        samples = audio_io.load(ref, self.sampling_rate)
        limit = int(self.max_audio_seconds * self.sampling_rate) if self.max_audio_seconds else None
        if not limit or len(samples) <= limit:
            chunks = [samples]
        elif self.long_audio == "truncate":
            self._long_clips["truncated"].add(key)
            chunks = [samples[:limit]]
        else:
            self._long_clips["chunked"].add(key)
            chunks = [samples[i : i + limit] for i in range(0, len(samples), limit)]
        self._decoded[key] = chunks
        if len(self._decoded) > _DECODED_CLIPS_KEPT:
            self._decoded.popitem(last=False)
        return chunks

    def _render(self, item: _Item, clips: list, add_generation_prompt: bool = True) -> _Rendered:
        """The prompt for one request, with one audio slot per (chunked) clip; counted by kind in the results."""
        rendered = self._render_prompt(item, clips, add_generation_prompt)
        kind = ("audio" if item.refs else "text") + ("_with_template" if rendered.templated else "_without_template")
        self.run_record["prompts"][kind] += 1
        return rendered

    def _render_prompt(self, item: _Item, clips: list, add_generation_prompt: bool) -> _Rendered:
        if _plain_text(item) and not self.adapter.encodes_prompt:
            # Text without lm-eval's --apply_chat_template: the context as it is, as lm-eval's `hf` reads it, so
            # an audio model's text scores and a text model's come from one protocol. (A family whose processor
            # renders and tokenizes every prompt, Voxtral, has no plain-text path: its text goes in its template.)
            return _Rendered(item.context, False, False)
        messages, from_chat = chat_messages(item.context, self.system_prompt)
        if from_chat is not None:
            add_generation_prompt = from_chat
        messages = place_audio(messages, [len(c) for c in clips], where=describe(item.refs[0]) if item.refs else "")
        messages = self.adapter.messages(messages, getattr(self.processor, "audio_token", None))
        if not self.use_chat_template and from_chat is None:
            if clips and not self.audio_prompt:
                raise ValueError(
                    f"hf-audio: chat_template=False but {self.pretrained!r}'s processor names no audio token; "
                    "pass audio_prompt=... with the model's documented audio marker"
                )
            return _Rendered(flatten_without_template(messages, self.audio_prompt or ""), False, False)
        continue_final = not add_generation_prompt and messages[-1]["role"] == "assistant"
        if self.adapter.encodes_prompt:  # (mistral_common: a prompt ending with a user turn ends with [/INST])
            return _Rendered("", True, messages[-1]["role"] != "assistant", messages)
        text = self.processor.apply_chat_template(
            messages,
            tokenize=False,
            add_generation_prompt=not continue_final and add_generation_prompt,
            continue_final_message=continue_final,
        )
        return _Rendered(text, True, not continue_final and add_generation_prompt)

    def _add_special_tokens(self, rendered: _Rendered) -> bool | None:
        """Whether tokenizing adds the tokenizer's special tokens: never to a chat template's output, which
        has them already (transformers' apply_chat_template rule; else Gemma-style templates get two BOS),
        nor to text that starts with BOS (lm-eval's rule); otherwise the tokenizer's default (None)."""
        if rendered.templated:
            return False
        bos = getattr(self.tokenizer, "bos_token", None)
        return False if bos and rendered.text.startswith(bos) else None

    def _process(self, rendered: list[_Rendered], clips_per_item: list[list]) -> dict:
        """Processor call for a batch, checked: audio in means audio features out."""
        flat = [chunk for clips in clips_per_item for chunks in clips for chunk in chunks]
        if self.adapter.encodes_prompt:
            inputs = self.adapter.encode(self.processor, [r.messages for r in rendered],
                                         [[chunk for chunks in clips for chunk in chunks] for clips in clips_per_item],
                                         self.sampling_rate)
            if flat:
                self._check_audio_reached(inputs, clips_per_item)
            return inputs
        special = {self._add_special_tokens(r) for r in rendered}
        if len(special) > 1:
            raise RuntimeError("hf-audio: a batch mixes chat-templated and plain prompts; run them in separate calls")
        kwargs = {"text": [r.text for r in rendered], "return_tensors": "pt", "padding": True}
        if special != {None}:
            kwargs["add_special_tokens"] = special.pop()
        if flat:
            kwargs["audio"] = flat
            kwargs["sampling_rate"] = self.sampling_rate
        inputs = self.processor(**kwargs)
        if flat:
            self._check_audio_reached(inputs, clips_per_item)
        return inputs

    def _check_audio_reached(self, inputs, clips_per_item) -> None:
        features = [k for k, v in inputs.items() if k not in _TEXT_KEYS and hasattr(v, "numel") and v.numel() > 0]
        if not features:
            raise RuntimeError(
                f"hf-audio: the processor of {self.pretrained!r} returned no audio features "
                f"(keys: {sorted(inputs.keys())}); the model would run on text alone"
            )
        if self._audio_token_id is not None:
            counts = (inputs["input_ids"] == self._audio_token_id).sum(dim=1).tolist()
            for row, (clips, count) in enumerate(zip(clips_per_item, counts)):
                if clips and count == 0:
                    raise RuntimeError(
                        f"hf-audio: request {row} of the batch has {len(clips)} clip(s) but no audio token "
                        f"(id {self._audio_token_id}) in its input ids; the prompt lost its audio slot"
                    )

    def _to_device(self, inputs) -> dict:
        import torch

        dtype = self.model.dtype
        out = {}
        for k, v in inputs.items():
            if isinstance(v, torch.Tensor):
                v = v.to(self._device)
                if v.is_floating_point():
                    v = v.to(dtype)
            out[k] = v
        return out

    # --- generate_until ---------------------------------------------------------------

    def generate_until(self, requests, disable_tqdm: bool = False) -> list[str]:
        self._start_call(requests)
        items = [self._split_args(i, req.args) for i, req in enumerate(requests)]
        # A batch shares one gen_kwargs, and holds audio requests or text-only ones, never both (a family's
        # adapter state is set per call: Granite-Speech's LoRA is on for audio only); inside a group,
        # longest audio (then text) first.
        groups: dict[tuple, list[_Item]] = {}
        for item in items:
            groups.setdefault((json.dumps(item.second, sort_keys=True, default=str), bool(item.refs)), []).append(item)
        ordered = _heaviest_first(
            [sorted(g, key=lambda x: (-x.seconds, -len(x.context), x.index)) for g in groups.values()]
        )
        if self.adapter.clips_alone:
            ordered = [part for group in ordered for part in ([[item] for item in group] if group[0].refs else [group])]
        outs = self.batcher.run("generate_until", ordered, self._generate_batch, f"{self.progress_label} generate",
                                self._quiet(disable_tqdm), on_result=self._cache_partial("generate_until", requests))
        self._report_audio_handling(outs)
        return outs

    def _without_unavailable(self, batch: list[_Item], run, empty, kind: str) -> list:
        """Run the model on the rows whose audio exists and decodes; rows the loader marked
        unavailable get ``empty``, rows whose clip cannot be decoded a counted failure."""
        keep = [item for item in batch if item.unavailable is None]
        self._not_run.update((item.index, item.unavailable) for item in batch if item.unavailable is not None)
        failed = {}
        while True:
            try:
                results = iter(run(keep) if keep else [])
                break
            except _ClipFailed as e:  # rare: run the batch again without that row
                failed[e.index] = failed_requests.record("hf-audio", self._requests[e.index], str(e.error), kind)
                keep = [item for item in keep if item.index != e.index]
        return [empty if item.unavailable is not None else failed[item.index] if item.index in failed else next(results)
                for item in batch]

    def _generate_batch(self, batch: list[_Item]) -> list[str]:
        return self._without_unavailable(batch, self._generate_rows, "", "generate_until")

    def _generate_rows(self, batch: list[_Item]) -> list[str]:
        import torch

        settings = generation_settings(batch[0].second, self.max_new_tokens)
        kwargs = {**self._neutral_generation, **settings.other, "do_sample": settings.do_sample}
        if settings.do_sample:
            kwargs["temperature"] = settings.temperature
        clips = [self._clips(item) for item in batch]
        rendered = [self._render(item, c) for item, c in zip(batch, clips)]
        self.tokenizer.padding_side = "left"
        inputs = self._to_device(self._process(rendered, clips))
        pad_id = self.tokenizer.pad_token_id
        if pad_id is None:
            pad_id = self.tokenizer.eos_token_id
        prompt_len = inputs["input_ids"].shape[1]
        self.adapter.before_call(bool(batch[0].refs))
        if settings.until and self.adapter.stops_in_generate:
            # Stopping early only saves the tokens past the stop: the text is cut at it below, and a
            # finished row's later tokens are discarded, so batch size cannot change what is kept.
            kwargs.update(stop_strings=settings.until, tokenizer=self.tokenizer)
        with torch.inference_mode():
            out = self.model.generate(
                **inputs, max_new_tokens=settings.max_new_tokens, pad_token_id=pad_id, **kwargs,
            )
        decoded = self.tokenizer.batch_decode(out[:, prompt_len:], skip_special_tokens=True)
        return [cut_at_stops(text, settings.until) for text in decoded]

    def _cache_partial(self, kind: str, requests):
        """Each answer into lm-eval's ``--use_cache`` database as its batch finishes (lm-eval itself
        writes them only when the whole request type is done, so a killed run would keep none)."""

        def add(item: _Item, answer) -> None:
            if not failed_requests.is_failed(answer):  # asked again by a re-run
                self.cache_hook.add_partial(kind, requests[item.index].args, answer)

        return add

    def _start_call(self, requests) -> None:
        self._requests = requests
        self._decoded.clear()
        self._long_clips: dict[str, set] = {"truncated": set(), "chunked": set()}  # clips by content key
        self._not_run: dict[int, str] = {}  # requests answered empty for an unavailable clip: the loader's reason
        self._last_prompt = None  # (document key, its prompt pass, its row), see _score_documents

    def _quiet(self, disable_tqdm: bool) -> bool:
        return disable_tqdm or self._rank != 0

    def _report_audio_handling(self, answers: list) -> None:
        failed_requests.summarize("hf-audio", answers, list(self._not_run.values()))
        if self._long_clips["truncated"]:
            log.warning(
                "hf-audio: %d clip(s) longer than %g s were truncated",
                len(self._long_clips["truncated"]), self.max_audio_seconds,
            )
        if self._long_clips["chunked"]:
            log.info(
                "hf-audio: %d clip(s) longer than %g s were chunked", len(self._long_clips["chunked"]), self.max_audio_seconds
            )

    # --- log-likelihoods ---------------------------------------------------------------

    def _encode(self, text: str, add_special_tokens: bool | None) -> list[int]:
        special = {} if add_special_tokens is None else {"add_special_tokens": add_special_tokens}
        return self.tokenizer(text, **special)["input_ids"]

    def _text_pair(self, context: str, continuation: str) -> tuple[list[int], list[int]]:
        """lm-eval's ``hf`` encoding of a plain-text pair: trailing spaces of the context move to the
        continuation, the whole string is encoded with the tokenizer's special tokens (BOS where it adds
        one, unless the text starts with it), and split at the context's length."""
        n_spaces = len(context) - len(context.rstrip())
        if n_spaces:
            continuation = context[-n_spaces:] + continuation
            context = context[:-n_spaces]
        special = self._add_special_tokens(_Rendered(context, False, False))
        whole = self._encode(context + continuation, special)
        ctx = self._encode(context, special)
        return whole[: len(ctx)], whole[len(ctx) :]

    def _continuation_ids(self, rendered: _Rendered, continuation: str) -> list[int]:
        """The continuation's tokens as the prompt and continuation tokenize together, split at the
        prompt's length (lm-eval's ``hf`` rule). A prompt an adapter encodes itself ends with a control token
        (Voxtral's ``[/INST]``), which no text token merges with: the continuation is tokenized alone."""
        if rendered.messages is not None:
            return self._encode(continuation, False)
        special = self._add_special_tokens(rendered)
        whole = self._encode(rendered.text + continuation, special)
        return whole[len(self._encode(rendered.text, special)) :]

    def _prefix_token_id(self) -> int:
        for attr in ("bos_token_id", "eos_token_id", "pad_token_id"):
            value = getattr(self.tokenizer, attr, None)
            if value is not None:
                return int(value)
        raise ValueError(f"hf-audio: the tokenizer of {self.pretrained!r} has no BOS/EOS token for empty contexts")

    def loglikelihood(self, requests, disable_tqdm: bool = False) -> list[tuple[float, bool]]:
        self._start_call(requests)
        items = [self._split_args(i, req.args) for i, req in enumerate(requests)]
        # A document's choices share context and clip: adjacent, so that they share a batch and its prompt pass.
        ordered = sorted(items, key=lambda x: (-x.seconds, -len(x.context), x.context, x.index))
        outs = self.batcher.run(
            "loglikelihood", [ordered], self._loglikelihood_batch, f"{self.progress_label} loglikelihood",
            self._quiet(disable_tqdm), on_result=self._cache_partial("loglikelihood", requests),
        )
        self._report_audio_handling(outs)
        return outs

    def _loglikelihood_batch(self, batch: list[_Item]) -> list[tuple[float, bool]]:
        return self._without_unavailable(batch, self._loglikelihood_rows, (float("-inf"), False), "loglikelihood")

    def _loglikelihood_rows(self, batch: list[_Item]) -> list[tuple[float, bool]]:
        """Score continuations. Plain-text rows are tokenized as lm-eval's ``hf`` model does and scored in
        one forward; rows needing the processor (audio, chat turns) are grouped by document (context and
        clips), and each document's prompt is run once for all of its choices (:meth:`_score_documents`)."""
        results: list[tuple[float, bool] | None] = [None] * len(batch)
        text_rows, pairs = [], []
        documents: dict[tuple, list[int]] = {}
        for row, item in enumerate(batch):
            if not _plain_text(item):
                key = (item.context, tuple(content_digest(ref) for ref in item.refs))
                documents.setdefault(key, []).append(row)
                continue
            text_rows.append(row)
            if item.context == "":  # lm-eval's rule: BOS (or EOS) as the context, unless it opens the continuation
                cont = self._encode(item.second, False)
                prefix = self._prefix_token_id()
                pairs.append(([prefix], cont) if not cont or cont[0] != prefix else (cont[:1], cont[1:]))
            else:
                pairs.append(self._text_pair(item.context, item.second))
        if text_rows:
            self.run_record["prompts"]["text_without_template"] += len(text_rows)
            self.adapter.before_call(False)
            for row, scored in zip(text_rows, self._score(pairs, {}, truncatable=[True] * len(pairs))):
                results[row] = scored
        for rows, scored in self._score_documents([(key, [batch[r] for r in rows]) for key, rows in documents.items()],
                                                  [rows for rows in documents.values()]):
            for row, value in zip(rows, scored):
                results[row] = value
        return results

    def _score_documents(self, documents: list[tuple[tuple, list[_Item]]], rows: list[list[int]]):
        """(rows, scores) per document. A document whose prompt the previous batch ran (its choices
        split by a batch boundary) reuses that pass; the others run their prompts in one forward per
        group (documents with audio, then text-only ones: an adapter's state is set per call), or one
        document per forward for a family whose audio encoder is not padding-invariant."""
        pending = list(zip(documents, rows))
        if self._last_prompt is not None:
            key, prompt, d = self._last_prompt
            for entry in [e for e in pending if e[0][0] == key]:
                pending.remove(entry)
                yield entry[1], self._score_choices(prompt, [(d, entry[0][1])])[0]
        for has_audio in (True, False):
            group = [e for e in pending if bool(e[0][1][0].refs) == has_audio]
            alone = has_audio and self.adapter.clips_alone
            for chunk in ([[e] for e in group] if alone else [group] if group else []):
                prompt = self._prompt_pass([items[0] for (_, items), _ in chunk])
                scored = self._score_choices(prompt, [(d, items) for d, ((_, items), _) in enumerate(chunk)])
                self._last_prompt = (chunk[-1][0][0], prompt, len(chunk) - 1)
                yield from zip([r for _, r in chunk], scored)

    def _prompt_pass(self, items: list[_Item]) -> _PromptPass:
        """One forward over the prompts of several documents (one request each), right-padded, so each
        row's positions are those of an unpadded run; its key-value cache serves the choices after it."""
        import torch

        clips = [self._clips(item) for item in items]
        rendered = [self._render(item, c) for item, c in zip(items, clips)]
        self.tokenizer.padding_side = "right"
        inputs = self._process(rendered, clips)
        self.adapter.before_call(bool(items[0].refs))
        with torch.inference_mode():
            out = self.model(**self._to_device(dict(inputs)), use_cache=True)
        mask = inputs["attention_mask"].cpu()
        lengths = mask.sum(dim=1)
        last = out.logits[torch.arange(len(items)), (lengths - 1).to(out.logits.device)]
        first = torch.log_softmax(last.float(), dim=-1).cpu()
        return _PromptPass(rendered, mask, [int(n) for n in lengths], first, out.past_key_values)

    def _score_choices(self, prompt: _PromptPass, documents: list[tuple[int, list[_Item]]]) -> list[list]:
        """The continuations of the documents of one prompt pass (each document's choices), run together
        after it from its key-value cache, so a 10-choice item costs little more than a 1-choice one.

        Each continuation is tokenized with its prompt and split at the prompt's length, as lm-eval's
        ``hf`` does; after a chat template's assistant header lm-eval's target delimiter is dropped, as
        lm-eval does under --apply_chat_template.
        """
        import copy

        import torch

        rows = []  # (prompt row, continuation ids)
        for d, items in documents:
            rendered = prompt.rendered[d]
            for it in items:
                rows.append((d, self._continuation_ids(rendered, it.second.lstrip() if rendered.after_header
                                                       else it.second)))
            longest = max(len(cont) for _, cont in rows[-len(items):])
            if prompt.lengths[d] + longest > self.max_length + 1:
                raise ValueError(
                    f"hf-audio: request {items[0].index} is {prompt.lengths[d] + longest} tokens with its audio, "
                    f"over max_length {self.max_length}"
                )
        longest = max(len(cont) for _, cont in rows)
        width = prompt.mask.shape[1]
        rest = None
        if longest > 1:
            n = len(rows)
            pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
            ids = torch.full((n, longest - 1), pad, dtype=torch.long)
            mask = torch.zeros((n, width + longest - 1), dtype=torch.long)
            positions = torch.zeros((n, longest - 1), dtype=torch.long)
            for j, (d, cont) in enumerate(rows):
                ids[j, : len(cont) - 1] = torch.tensor(cont[:-1], dtype=torch.long)
                mask[j, :width] = prompt.mask[d]
                mask[j, width : width + len(cont) - 1] = 1
                # Positions stated, not inferred from the mask: they follow the row's own prompt, not the
                # padded width, and models with multimodal rotary positions (Qwen2.5-Omni's thinker) would
                # infer them from state their last forward left.
                positions[j] = torch.arange(prompt.lengths[d], prompt.lengths[d] + longest - 1)
            cache = copy.deepcopy(prompt.cache)  # the pass is kept for the last document's next batch
            cache.batch_select_indices(torch.tensor([d for d, _ in rows], device=self._device))
            self.adapter.before_call(bool(documents[0][1][0].refs))  # the prompt pass may be an earlier batch's
            with torch.inference_mode():
                logits = self.model(**self._to_device({"input_ids": ids, "attention_mask": mask,
                                                       "position_ids": positions}),
                                    past_key_values=cache).logits
            rest = torch.log_softmax(logits.float(), dim=-1).cpu()
        scored = []
        for j, (d, cont) in enumerate(rows):
            steps = [prompt.first[d]] + [rest[j, t] for t in range(len(cont) - 1)]
            total = sum(float(lp[token]) for lp, token in zip(steps, cont))
            scored.append((total, all(int(lp.argmax()) == token for lp, token in zip(steps, cont))))
        out, start = [], 0
        for _, items in documents:
            out.append(scored[start : start + len(items)])
            start += len(items)
        return out

    def _score(self, pairs, features: dict, truncatable: list[bool]) -> list[tuple[float, bool]]:
        """Sum of continuation log-probs and whether greedy decoding reproduces it.

        Rows are right-padded: with a causal mask, positions after a row's end change
        nothing before it, so a row scores the same in any batch.
        """
        import torch

        rows = []
        for (ctx, cont), can_cut in zip(pairs, truncatable):
            ids = ctx + cont
            if len(ids) > self.max_length + 1:
                if not can_cut:
                    raise ValueError(
                        f"hf-audio: a request with audio is {len(ids)} tokens, over max_length {self.max_length}"
                    )
                ids = ids[-(self.max_length + 1) :]
            rows.append((ids[:-1], len(cont)))  # the last token is only a target
        width = max(len(ids) for ids, _ in rows)
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        input_ids = torch.full((len(rows), width), pad, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for r, (ids, _) in enumerate(rows):
            input_ids[r, : len(ids)] = torch.tensor(ids, dtype=torch.long)
            mask[r, : len(ids)] = 1
        inputs = self._to_device({"input_ids": input_ids, "attention_mask": mask, **features})
        with torch.inference_mode():
            logits = self.model(**inputs).logits.float()
        logprobs = torch.log_softmax(logits, dim=-1).cpu()
        results = []
        for r, ((ctx, cont), (ids, n_cont)) in enumerate(zip(pairs, rows)):
            end = len(ids)
            target = torch.tensor(cont[-n_cont:] if n_cont else [], dtype=torch.long)
            row_lp = logprobs[r, end - n_cont : end]
            total = float(row_lp.gather(-1, target.unsqueeze(-1)).sum()) if n_cont else 0.0
            greedy = bool((row_lp.argmax(-1) == target).all()) if n_cont else True
            results.append((total, greedy))
        return results

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False) -> list[float]:
        from lm_eval.utils import get_rolling_token_windows, make_disjoint_window

        windows, owners = [], []
        for i, req in enumerate(requests):
            item = self._split_args(i, req.args)
            if item.refs:
                raise ValueError(
                    "hf-audio: loglikelihood_rolling (perplexity tasks) is implemented for text; "
                    f"request {i} carries audio ({describe(item.refs[0])})"
                )
            tokens = self.tokenizer(item.context, add_special_tokens=False)["input_ids"]
            self.run_record["prompts"]["text_without_template"] += 1
            for window in map(
                make_disjoint_window,
                get_rolling_token_windows(
                    token_list=tokens,
                    prefix_token=self._prefix_token_id(),
                    max_seq_len=self.max_length,
                    context_len=1,
                ),
            ):
                windows.append(_Item(len(windows), "", window))
                owners.append(i)

        def score(batch):
            self.adapter.before_call(False)
            return self._score([w.second for w in batch], {}, truncatable=[True] * len(batch))

        ordered = sorted(windows, key=lambda w: (-len(w.second[0]) - len(w.second[1]), w.index))
        scores = self.batcher.run("loglikelihood_rolling", [ordered], score, f"{self.progress_label} rolling",
                                  self._quiet(disable_tqdm))
        totals = [0.0] * len(requests)
        for owner, (lp, _) in zip(owners, scores):
            totals[owner] += lp
        return totals
