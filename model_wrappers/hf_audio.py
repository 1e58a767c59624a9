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


from lm_eval_audio.audio.markers import encode_chat_context
from lm_eval_audio.model_wrappers import checkpoints, devices, failed_requests, families, family_adapters, reasoning
from lm_eval_audio.model_wrappers import generation_config as greedy  # the parameter of that name shadows it
from lm_eval_audio.model_wrappers.batching import Batcher
from lm_eval_audio.model_wrappers.hf_clips import ClipFailed, ClipsMixin
from lm_eval_audio.model_wrappers.hf_loading import audio_window_seconds, load_model
from lm_eval_audio.model_wrappers.hf_prompts import PromptsMixin, prompt_encoder
from lm_eval_audio.model_wrappers.hf_scoring import LoglikelihoodMixin
from lm_eval_audio.model_wrappers.hf_speech import SpeechMixin, talker_of
from lm_eval_audio.model_wrappers.hf_audio_args import HF_AUDIO_ARGS
from lm_eval_audio.model_wrappers.wrapper_base import AudioLM
from lm_eval_audio.model_wrappers.request_parts import RequestParts, generation_settings, split_request

log = logging.getLogger("lm_eval.audio.hf_audio")

WHO = "hf-audio"


def _heaviest_first(groups: list[list[RequestParts]]) -> list[list[RequestParts]]:
    return sorted(groups, key=lambda g: (-g[0].seconds, -len(g[0].context)))


class HFAudioLM(SpeechMixin, ClipsMixin, PromptsMixin, LoglikelihoodMixin, AudioLM):
    """The LM: loading and generation here; spoken answers, clips, prompts and log-likelihoods in the mixins beside
    it; its arguments in ``hf_audio_args``."""

    WHO = WHO
    ARGS = HF_AUDIO_ARGS
    IGNORED = ("parallelize",)  # set by some lm-eval front ends; device_map covers it
    BUDGET_FROM_GEN_KWARGS = True  # it knows from the checkpoint whether it thinks

    @staticmethod
    def checked_config(pretrained: str, revision: str | None, gguf_file: str | None, family: str | None,
                       speaks: bool = False, voice: str | None = None) -> dict:
        """The checkpoint found (a local folder, or a Hub id cached or reachable) and its config.json read, before a
        weight or the processor loads: a refused family, or one without its package, may not even load one
        (Voxtral without mistral_common); with ``speaks`` (spoken_answers=true), its talker and the voice."""
        config = checkpoints.config_json(WHO, pretrained, revision, gguf_file)
        family_adapters.refuse_known(pretrained, config, family)
        family_adapters.check_packages(pretrained, config)
        if speaks:
            talker_of(family_adapters.proven(config) or families.GENERIC_PATH, pretrained, config, voice)
        return config

    @classmethod
    def check_before_loading(cls, model_args: dict, device: str | None) -> None:
        """What the command line names, checked before lm-eval builds the model (the seam's checks): the device the
        user named, the checkpoint and its family. The arguments themselves are checked when the model is built
        (``hf_audio_args``)."""
        settings = cls.read_settings(model_args)
        devices.check(WHO, settings.device or device)
        if settings.pretrained:
            cls.checked_config(str(settings.pretrained), settings.revision, settings.gguf_file, settings.family,
                               settings.spoken_answers, settings.voice)

    def __init__(self, **given) -> None:
        super().__init__(**given)
        settings = self.settings
        if settings.pretrained is None:
            raise ValueError(f"{WHO}: name the checkpoint with pretrained= (a Hub id or a local folder)")

        import torch
        from transformers import AutoProcessor

        device = settings.device
        self.process_rank, self.process_count, self.accelerator = 0, 1, None
        if int(os.environ.get("WORLD_SIZE", "1")) > 1 and settings.device_map is None:
            from accelerate import Accelerator

            # On CPU, accelerate only joins the process group (gloo) when asked to.
            on_cpu = not torch.cuda.is_available() or str(device).startswith("cpu")
            self.accelerator = Accelerator(cpu=on_cpu)
            self.process_rank = self.accelerator.process_index
            self.process_count = self.accelerator.num_processes
            device = str(self.accelerator.device)
        if device is None or (device == devices.LM_EVAL_DEFAULT and not torch.cuda.is_available()):
            # lm-eval's CLI passes cuda:0 when --device is not given, GPU or not: nothing was asked for (the seam
            # refuses a --device cuda:0 the user named on a machine without CUDA before the model loads).
            if device is not None:
                log.info("hf-audio: no CUDA device: running on cpu")
            device = "cuda" if torch.cuda.is_available() else "cpu"
        else:
            devices.check(WHO, device)  # named in --model_args, or by a caller of lm-eval's Python API

        self.pretrained = pretrained = settings.pretrained
        gguf = {"gguf_file": settings.gguf_file} if settings.gguf_file else {}
        config = self.checked_config(pretrained, settings.revision, settings.gguf_file, settings.family,
                                     settings.spoken_answers, settings.voice)
        self.processor = AutoProcessor.from_pretrained(
            pretrained, trust_remote_code=settings.trust_remote_code, revision=settings.revision, **gguf
        )
        self.tokenizer = getattr(self.processor, "tokenizer", None) or self.processor
        self.family = family_adapters.resolve(pretrained, config, self._feature_extractor() is not None, settings.family)
        log.info("hf-audio: %s runs as family %s", pretrained, self.family.name)
        self.adapter = family_adapters.for_family(self.family, pretrained, config, settings.revision)
        self.adapter.prepare_processor(self.processor)
        if type(self.adapter) is not family_adapters.FamilyAdapter:
            log.info("hf-audio: the %s adapter: %s", self.family.name, self.adapter.does)
        load_kwargs = {"dtype": settings.dtype, "trust_remote_code": settings.trust_remote_code,
                       "revision": settings.revision, **gguf}
        if settings.attn_implementation:
            load_kwargs["attn_implementation"] = settings.attn_implementation
        if settings.device_map:
            load_kwargs["device_map"] = settings.device_map
        if settings.spoken_answers:  # the talker too (hf_speech); its thinker answers everything else
            self.model = self._load_speaking(load_kwargs, config)
            if not settings.device_map:
                self.speaker_model.to(device)
        else:
            self.model = (self.adapter.load(load_kwargs) or load_model(pretrained, **load_kwargs)).eval()
        if not settings.device_map:
            self.model.to(device)
        self.adapter.attach(self.model)
        self.model_device = self.model.device
        self._neutral_generation = (greedy.neutralizing_kwargs(self.model.generation_config)
                                    if settings.generation_config == "neutral" else {})
        # Into the results JSON (lm_eval_audio_model): what decoded the answers.
        # (a talker's own system prompt where its speech needs one: Qwen2.5-Omni's)
        speech_prompt = self.talker.system_prompt if self.speaker_model is not None else None
        self.system_prompt = (settings.system_prompt if settings.system_prompt is not None
                              else speech_prompt or self.adapter.default_system_prompt())
        markers = {"auto": self.adapter.trace_markers(self.processor), "true": reasoning.THINK,
                   "false": None}[settings.thinking]
        self.thinking = reasoning.Thinking.of(markers, settings.thinking_budget, self.adapter.thinking_budget(), WHO)
        self.run_record = {**self.recorded_settings(), "family": self.family.name, "system_prompt": self.system_prompt,
                           **self.adapter.record(), "reasoning_trace": self.thinking.record(),
                           **greedy.record(settings.generation_config, getattr(self.model, "generation_config", None)),
                           # Requests by kind: audio always in the model's template (unless chat_template=False);
                           # text in it only under lm-eval's --apply_chat_template, as lm-eval's `hf` does.
                           "prompts": dict.fromkeys(("audio_with_template", "audio_without_template",
                                                     "text_with_template", "text_without_template"), 0)}
        if self.speaker_model is not None:
            self.run_record["speech"] = self._speech_record()

        self.max_new_tokens = settings.max_new_tokens
        self.progress_label = "hf-audio"  # what the progress bars say is running (cascade: its LLM)
        self.use_chat_template = settings.chat_template
        # How this family's prompts become model inputs: decided here, once (hf_prompts).
        self.prompt_encoder = prompt_encoder(self.adapter)
        self.prompt_encoder.check(self)
        self.audio_prompt = settings.audio_prompt if settings.audio_prompt is not None else self._default_audio_prompt()
        self.sampling_rate = self._sampling_rate()
        window = self._audio_window_seconds()
        self.max_audio_seconds = settings.max_audio_seconds or window
        self.long_audio = settings.long_audio
        self.adapter.check_settings(settings.long_audio, settings.max_audio_seconds)
        self._audio_token_id = self._find_audio_token_id()

        self.batcher = Batcher(settings.batch_size, settings.max_batch_size, "hf-audio")
        self.batch_sizes = self.batcher.found  # lm-eval records these in the results' config
        self._decoded: OrderedDict[str, list] = OrderedDict()  # recent clips, after the long-audio policy
        self._start_call([])

        if self.max_audio_seconds:
            what = (
                f"truncated to their first {self.max_audio_seconds:g} s"
                if self.long_audio == "truncate"
                else f"cut into {self.max_audio_seconds:g} s chunks, each passed as its own audio part"
            )
            log.info("hf-audio: clips longer than %g s are %s (long_audio=%s)", self.max_audio_seconds, what,
                     self.long_audio)
        else:
            log.info("hf-audio: no audio length limit known for this processor; clips are passed whole")

    def _fresh_requests(self, source) -> None:
        """Under another ``audio=`` condition (:meth:`under`): the loaded weights, processor, adapter and the batch
        sizes found shared; the request state and prompt counts its own."""
        self.run_record = {**source.run_record, "prompts": dict.fromkeys(source.run_record["prompts"], 0)}
        self._decoded = OrderedDict()
        self._start_call([])

    # --- properties lm-eval reads ---------------------------------------------------

    @property
    def rank(self) -> int:
        return self.process_rank

    @property
    def world_size(self) -> int:
        return self.process_count

    @property
    def device(self):
        return self.model_device

    @property
    def max_length(self) -> int:
        if self.settings.max_length:
            return self.settings.max_length
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
        return tensor if self.process_count <= 1 else self.accelerator.gather(tensor)

    def gather_object(self, obj, dst=0):
        if self.process_count <= 1:
            return [obj]
        import torch.distributed as dist

        result = [None] * self.process_count if self.process_rank == dst else None
        dist.gather_object(obj, result, dst=dst)
        return result

    def barrier(self) -> None:
        if self.process_count > 1:
            self.accelerator.wait_for_everyone()

    def _split_args(self, index: int, args: tuple) -> RequestParts:
        heard = self.max_audio_seconds if self.long_audio == "truncate" else None
        return split_request(index, args, WHO, measure=True, condition=self.audio_condition, heard_seconds=heard)

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

    def _to_device(self, inputs) -> dict:
        import torch

        dtype = self.model.dtype
        out = {}
        for k, v in inputs.items():
            if isinstance(v, torch.Tensor):
                v = v.to(self.model_device)
                if v.is_floating_point():
                    v = v.to(dtype)
            out[k] = v
        return out

    # --- generate_until ---------------------------------------------------------------

    def _generate_until(self, requests, disable_tqdm: bool) -> list[str]:
        return self.with_spoken(requests, lambda asked: self._generate_text(asked, disable_tqdm),
                                lambda todo, keep: self._speak(requests, todo, keep))

    def _generate_text(self, requests, disable_tqdm: bool) -> list[str]:
        self._start_call(requests)
        items = [self._split_args(i, req.args) for i, req in enumerate(requests)]
        if self.adapter.audio_method is not None:
            self._refuse_copies_of_several_clips(items)
        # A batch shares one gen_kwargs, and holds audio requests or text-only ones, never both (a family's
        # adapter state is set per call: Granite-Speech's LoRA is on for audio only); inside a group,
        # longest audio (then text) first.
        groups: dict[tuple, list[RequestParts]] = {}
        for item in items:
            groups.setdefault((json.dumps(item.second, sort_keys=True, default=str), bool(item.refs)), []).append(item)
        ordered = _heaviest_first(
            [sorted(g, key=lambda x: (-x.seconds, -len(x.context), x.index)) for g in groups.values()]
        )
        outs = self.batcher.run("generate_until", ordered, self._generate_batch, f"{self.progress_label} generate",
                                self._quiet(disable_tqdm), on_result=self._cache_partial("generate_until", requests),
                                **self._out_of_memory("generate_until"))
        self._report_audio_handling(outs)
        return outs

    def _refuse_copies_of_several_clips(self, items: list[RequestParts]) -> None:
        """generate() repeats each clip once per beam or returned sequence, not each request's clips together, so for a
        family whose clips are encoded per request (``clip_encoding``) a request with several clips (or one clip cut
        into chunks) cannot be copied so: such a request is not run, and fails alone as a counted failed request with
        the reason (the run's other answers are kept)."""
        config = getattr(self.model, "generation_config", None)
        for item in items:
            settings = {**self._neutral_generation, **generation_settings(item.second, self.max_new_tokens).other}
            copies = [settings.get(name, getattr(config, name, 1)) or 1 for name in ("num_beams", "num_return_sequences")]
            chunked = (self.long_audio == "chunk" and self.max_audio_seconds is not None
                       and item.seconds > self.max_audio_seconds)
            if copies != [1, 1] and (len(item.refs) > 1 or chunked):
                self._refused[item.index] = (
                    f"{self.family.name} with num_beams={copies[0]}, num_return_sequences={copies[1]} cannot run a "
                    "request holding several clips (or a clip cut into chunks): transformers' generate() copies each "
                    "clip, not each request's clips together, so the copies would hear them in the wrong places; run "
                    "it with num_beams=1 (--gen_kwargs num_beams=1)")

    def _without_unavailable(self, batch: list[RequestParts], run, kind: str) -> list:
        """Run the model on the rows whose audio exists and decodes; rows the loader marked
        unavailable get a ``not_run`` failure, rows whose clip cannot be decoded, or that the family cannot run
        (``_refused``), a counted failure."""
        keep = [item for item in batch if item.unavailable is None and item.index not in self._refused]
        self._not_run.update((item.index, item.unavailable) for item in batch if item.unavailable is not None)
        failed = {item.index: failed_requests.record(self.notes, WHO, self._requests[item.index],
                                                     self._refused[item.index], kind)
                  for item in batch if item.unavailable is None and item.index in self._refused}
        while True:
            try:
                results = iter(run(keep) if keep else [])
                break
            except ClipFailed as e:  # rare: run the batch again without that row
                failed[e.index] = failed_requests.record(self.notes, "hf-audio", self._requests[e.index], str(e.error), kind)
                keep = [item for item in keep if item.index != e.index]
        return [failed_requests.not_run(item.unavailable, kind) if item.unavailable is not None
                else failed[item.index] if item.index in failed else next(results) for item in batch]

    def _generate_batch(self, batch: list[RequestParts]) -> list[str]:
        return self._without_unavailable(batch, self._generate_rows, "generate_until")

    def _generate_rows(self, batch: list[RequestParts]) -> list[str]:
        import torch

        settings = self.thinking.settings(generation_settings(batch[0].second, self.max_new_tokens))
        kwargs, rendered, processed, inputs = self._prepared(batch, settings)
        prompt_len = inputs["input_ids"].shape[1]
        if settings.until and self.adapter.stops_in_generate and not self.thinking.markers:
            # Stopping early only saves the tokens past the stop: the text is cut at it below, and a
            # finished row's later tokens are discarded, so batch size cannot change what is kept. (A thinking
            # model's stop strings apply to its answer only, after the trace: never inside generate.)
            kwargs.update(stop_strings=settings.until, tokenizer=self.tokenizer)
        with torch.inference_mode(), self.adapter.hearing(processed, self._to_device):
            out = self.model.generate(
                **inputs, max_new_tokens=settings.max_new_tokens, pad_token_id=self._pad_id(), **kwargs,
            )
        decoded = self.tokenizer.batch_decode(out[:, prompt_len:], skip_special_tokens=True)
        answers = [self.thinking.answer(text, r.text, settings.until, self._count_tokens)
                   for text, r in zip(decoded, rendered)]
        self.thinking.count(self.notes, [getattr(self._requests[item.index], "task_name", None) for item in batch], answers)
        return answers

    def _prepared(self, batch: list[RequestParts], settings) -> tuple[dict, list, dict, dict]:
        """A batch ready for ``generate``: the decoding keyword arguments of ``settings`` (the checkpoint's own set
        aside unless generation_config=model), each request's rendered prompt, the processor's output and the model
        inputs on the device; the adapter set for the batch's audio. (Text and spoken answers alike.)"""
        kwargs = {**self._neutral_generation, **settings.other, "do_sample": settings.do_sample}
        if settings.do_sample:
            kwargs["temperature"] = settings.temperature
        clips = [self._clips(item) for item in batch]
        rendered = [self._render(item, c) for item, c in zip(batch, clips)]
        self.tokenizer.padding_side = "left"
        processed = self._process(rendered, clips)
        inputs = self._to_device(processed)
        self.adapter.before_call(bool(batch[0].refs))
        return kwargs, rendered, processed, inputs

    def _count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def _out_of_memory(self, kind: str) -> dict:
        """What the batcher does with a batch that runs out of memory: retried smaller and counted in this run's notes;
        a request that does not fit alone answered as a counted failure."""

        def unfit(item: RequestParts, error: str):
            return failed_requests.record(self.notes, WHO, self._requests[item.index], error, kind)

        return {"unfit": unfit, "notes": self.notes}

    def _cache_partial(self, kind: str, requests):
        """Each answer into lm-eval's ``--use_cache`` database as its batch finishes (lm-eval itself
        writes them only when the whole request type is done, so a killed run would keep none)."""

        def add(item: RequestParts, answer) -> None:
            if not failed_requests.is_failed(answer):  # asked again by a re-run
                self.cache_hook.add_partial(kind, requests[item.index].args, answer)

        return add

    def _start_call(self, requests) -> None:
        self._requests = requests
        self._prompts_counted: set[int] = set()  # the requests whose prompt is counted in run_record["prompts"]
        self._decoded.clear()
        self._long_clips: dict[str, set] = {"truncated": set(), "chunked": set()}  # clips by content key
        self._not_run: dict[int, str] = {}  # requests answered empty for an unavailable clip: the loader's reason
        self._refused: dict[int, str] = {}  # requests the family cannot run as asked, and why: counted failures
        self._last_prompt = None  # (document key, its prompt pass, its row), see _score_documents

    def _quiet(self, disable_tqdm: bool) -> bool:
        return disable_tqdm or self.process_rank != 0

    def _report_audio_handling(self, answers: list) -> None:
        failed_requests.summarize(self.notes, "hf-audio", answers, list(self._not_run.values()))
        if self._long_clips["truncated"]:
            log.warning(
                "hf-audio: %d clip(s) longer than %g s were truncated",
                len(self._long_clips["truncated"]), self.max_audio_seconds,
            )
        if self._long_clips["chunked"]:
            log.info(
                "hf-audio: %d clip(s) longer than %g s were chunked", len(self._long_clips["chunked"]), self.max_audio_seconds
            )

