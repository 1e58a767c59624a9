"""Audio Flamingo 3 and Music Flamingo: their own model class, one clip per request, the audio window."""

from __future__ import annotations


from lm_eval_audio.model_wrappers.families import Family, UnsupportedFamily
from lm_eval_audio.model_wrappers.family_adapters import FamilyAdapter, register

AUDIO_FLAMINGO_3 = Family(
    "Audio Flamingo 3", ("audioflamingo3",), "nvidia/audio-flamingo-3-hf", name_parts=("audio-flamingo-3",),
    tiny_models=("audioflamingo3",),
    # NVIDIA/audio-flamingo@1337fb9 llava/eval/eval_audio_bench.py:115, chat_templates/qwen2.jinja
    authors_notes="Audio Flamingo 3's evaluation asks each item's question as its eval JSON writes it (the "
    "evaluation script in llava/eval/, line 115), with the checkpoint's generation config; its chat template adds the "
    "system turn 'You are a helpful assistant.' where none is given")
MUSIC_FLAMINGO = Family("Music Flamingo", ("musicflamingo",), "nvidia/music-flamingo-2601-hf",
                        tiny_models=("musicflamingo",))


@register(AUDIO_FLAMINGO_3, MUSIC_FLAMINGO)
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
