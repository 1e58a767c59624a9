"""Voxtral: its prompt rendered and tokenized by mistral_common."""

from __future__ import annotations


from lm_eval_audio.model_wrappers.families import Family
from lm_eval_audio.model_wrappers.family_adapters import FamilyAdapter, register

VOXTRAL = Family("Voxtral", ("voxtral",), "mistralai/Voxtral-Mini-3B-2507", extra="voxtral", tiny_models=("voxtral",))


@register(VOXTRAL)
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

    def needs(self) -> list[tuple[str, str]]:
        return [("mistral_common", "its tekken tokenizer and prompt format"),
                ("soxr", "mistral_common's audio path (mistral_common[audio])")]

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
