"""hf-audio's clips: each request's audio decoded at the processor's rate, the long-audio policy applied
(truncate, or cut into chunks the model hears one by one), the last few kept by content so a multiple-choice
document's clip is decoded once."""

from __future__ import annotations

from lm_eval_audio.audio import decoding
from lm_eval_audio.audio.refs import AudioError, content_digest
from lm_eval_audio.model_wrappers.request_parts import RequestParts

DECODED_CLIPS_KEPT = 64


class ClipFailed(Exception):
    """A row's clip could not be decoded; ``index`` names the row."""

    def __init__(self, index: int, error: AudioError) -> None:
        super().__init__(str(error))
        self.index, self.error = index, error



class ClipsMixin:
    """``HFAudioLM``'s clip decoding (reads ``processor``, ``sampling_rate``, ``max_audio_seconds``, ``long_audio``;
    keeps ``_decoded`` and ``_long_clips``, reset per call)."""

    def _clips(self, item: RequestParts) -> list:
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
            raise ClipFailed(item.index, e) from e

    def _clip(self, ref) -> list:
        key = content_digest(ref)
        if key in self._decoded:
            self._decoded.move_to_end(key)
            return self._decoded[key]
        samples = decoding.load(ref, self.sampling_rate)
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
        if len(self._decoded) > DECODED_CLIPS_KEPT:
            self._decoded.popitem(last=False)
        return chunks
