"""hf-audio's spoken answers: a family with a talker (Qwen2.5-Omni, Qwen3-Omni Instruct) answering in speech.

With ``spoken_answers=true`` the family's top-level class loads (its thinker, talker and waveform decoder:
:class:`~lm_eval_audio.model_wrappers.families.Talker`), and its thinker serves every text request and score as the
thinker-only default does; without it, nothing of the talker loads. A request of a task answered in speech goes
through the same prompt and processor path as a text request, then the model's own ``generate(...,
generation_mode="audio")`` with the voice asked (``voice=``, the card's default otherwise), the task's decoding
settings for the thinker and the talker's own sampling settings (``generate()``'s defaults, the cards', recorded),
one request at a time: the talker samples, and each request gets its own seed (``spoken_answers.seed_of``), so an
answer does not depend on what was generated before it or beside it.
"""

from __future__ import annotations

import inspect

from lm_eval_audio.audio.errors import AudioError
from lm_eval_audio.model_wrappers import failed_requests
from lm_eval_audio.model_wrappers.families import UnsupportedFamily
from lm_eval_audio.model_wrappers.hf_clips import ClipFailed
from lm_eval_audio.model_wrappers.request_parts import generation_settings
from lm_eval_audio.model_wrappers.spoken_answers import SpeakingMixin, Speech, seed_of


def talker_of(family, pretrained: str, config: dict, voice: str | None):
    """The family's talker and the voice to speak with, or :class:`UnsupportedFamily` before anything loads: a
    family without one, a checkpoint without one (``enable_audio_output`` unset: Qwen3-Omni Thinking, Captioner),
    a voice it does not ship."""
    talker = getattr(family, "talker", None)
    if talker is None:
        raise UnsupportedFamily(f"hf-audio: {family.name} ({pretrained!r}) answers in text only (it has no talker), so "
                                "spoken_answers=true cannot run on it; leave spoken_answers out, or evaluate a family "
                                "that speaks (Qwen2.5-Omni, Qwen3-Omni Instruct) or a served model that returns audio "
                                "(--model openai-audio)")
    if not (config or {}).get("enable_audio_output"):
        raise UnsupportedFamily(f"hf-audio: {pretrained!r} is a {family.name} checkpoint without a talker (its "
                                "config.json does not set enable_audio_output; Qwen3-Omni's Thinking and Captioner "
                                "answer in text only): spoken_answers=true needs an Instruct checkpoint")
    voice = voice or talker.default_speaker
    known = {name.lower(): name for name in talker.speakers}
    if voice.lower() not in known:
        raise UnsupportedFamily(f"hf-audio: voice={voice} is not a {family.name} speaker; give one of "
                                f"{', '.join(talker.speakers)} (default {talker.default_speaker})")
    return talker, known[voice.lower()]


class SpeechMixin(SpeakingMixin):
    """``HFAudioLM``'s spoken answers (reads what its ``__init__`` set: ``speaker_model``, ``talker``, ``voice``)."""

    speaker_model = None

    def _load_speaking(self, load_kwargs: dict, config: dict):
        """The family's top-level class, talker included; its thinker is returned for everything else."""
        self.talker, self.voice = talker_of(self.family, self.pretrained, config, self.settings.voice)
        import transformers

        self.speaker_model = getattr(transformers, self.talker.top_class).from_pretrained(self.pretrained,
                                                                                           **load_kwargs).eval()
        return self.speaker_model.thinker

    def _speech_record(self) -> dict:
        """What the results say of the speech: the voice, and the talker's sampling settings as ``generate()`` has
        them (the cards')."""
        defaults = {name: p.default for name, p in inspect.signature(self.speaker_model.generate).parameters.items()
                    if name.startswith("talker_") and p.default is not inspect.Parameter.empty}
        if self.settings.talker_max_new_tokens:
            defaults["talker_max_new_tokens"] = self.settings.talker_max_new_tokens
        return {"voice": self.voice, "sample_rate": self.talker.sample_rate, "talker_settings": defaults,
                "talker_settings_from": f"transformers' {self.talker.top_class}.generate defaults",
                "one_request_at_a_time": True, "source": self.talker.source}

    def speech_identity(self) -> dict:
        return {**super().speech_identity(), "voice": self.voice, "system_prompt": self.system_prompt}

    def _speak(self, requests, todo: list, keep) -> None:
        import torch

        self._start_call(requests)
        for index, key in todo:
            item = self._split_args(index, requests[index].args)
            if item.unavailable is not None:
                keep(index, failed_requests.not_run(item.unavailable, "generate_until"))
                continue
            try:
                keep(index, self._speak_one(item, seed_of(key)))
            except (ClipFailed, AudioError, torch.OutOfMemoryError) as e:  # this request only: counted and named
                keep(index, failed_requests.record(self.notes, self.WHO, requests[index], f"{type(e).__name__}: {e}"))

    def _speak_one(self, item, seed: int) -> Speech:
        """One request answered in speech: the model's own ``generate`` with the talker, seeded."""
        import torch

        settings = generation_settings(item.second, self.max_new_tokens)
        decoding, _, processed, inputs = self._prepared([item], settings)
        # the task's decoding settings are the thinker's; the talker keeps its own
        kwargs = {f"thinker_{k}": v for k, v in decoding.items()}
        kwargs["thinker_max_new_tokens"] = settings.max_new_tokens
        eos = self.model.generation_config.eos_token_id  # Qwen3-Omni's generate() would take its own 151645
        if eos is not None:
            kwargs["thinker_eos_token_id"] = eos
        if self.settings.talker_max_new_tokens:
            kwargs["talker_max_new_tokens"] = self.settings.talker_max_new_tokens
        torch.manual_seed(seed)
        with torch.inference_mode(), self.adapter.hearing(processed, self._to_device):
            text_ids, wav = self.speaker_model.generate(**inputs, speaker=self.voice, generation_mode="audio",
                                                        **kwargs)
        text = self.tokenizer.decode(text_ids[0, inputs["input_ids"].shape[1]:], skip_special_tokens=True)
        samples = wav.reshape(-1).float().cpu().numpy()
        return Speech(text.strip(), samples, self.talker.sample_rate, seed)
