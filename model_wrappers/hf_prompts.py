"""hf-audio's prompts: each request rendered in the model's template (or as plain text, as lm-eval's ``hf`` reads
text without ``--apply_chat_template``), with one audio slot per clip, then put through the processor and checked:
audio in means audio features and audio tokens out.

How a family's prompts become model inputs is decided once, at load (:func:`prompt_encoder`): the generic path
(:class:`TemplateEncoder`: the chat template renders text, ``processor(text=, audio=)`` tokenizes it with the clips),
or the family's processor rendering and tokenizing the turns itself, the clips inside (:class:`ProcessorEncoder`,
for an adapter that sets ``encodes_prompt``: Voxtral's)."""

from __future__ import annotations

from typing import NamedTuple

from lm_eval_audio.audio.markers import decode_chat_context, flatten_without_template, place_audio
from lm_eval_audio.audio.refs import describe
from lm_eval_audio.model_wrappers.clip_encoding import TEXT_KEYS, collate
from lm_eval_audio.model_wrappers.request_parts import RequestParts, chat_messages


class Rendered(NamedTuple):
    text: str  # the prompt; empty where the family's adapter encodes the turns itself
    templated: bool  # rendered by a chat template
    after_header: bool  # ends with the template's generation prompt (the assistant header)
    messages: list | None = None  # the turns, for an adapter that encodes them itself (encodes_prompt)


def plain_text(item: RequestParts) -> bool:
    """A text-only request whose context lm-eval's --apply_chat_template did not turn into turns: lm-eval's
    `hf` reads it as it is, without a template, and so does hf-audio. An audio task's request under audio=none
    is no such request: it keeps the template it has under audio=full."""
    return not item.audio_task and decode_chat_context(item.context) is None


class TemplateEncoder:
    """The generic path: text without a template is read as it is, turns are rendered to text by the chat
    template, and the processor tokenizes the text with the clips (``audio=``)."""

    def check(self, lm) -> None:
        """At load: the settings this path cannot run with."""
        if lm.use_chat_template and not getattr(lm.processor, "chat_template", None):
            raise ValueError(
                f"hf-audio: {lm.pretrained!r} has no chat template; pass chat_template=False "
                "(and audio_prompt=... if the model's prompt format needs one)"
            )

    def reads_plain_text(self, item: RequestParts) -> bool:
        """Whether the request's context goes to the model as it is (see :func:`plain_text`)."""
        return plain_text(item)

    def in_template(self, lm, messages: list[dict], add_generation_prompt: bool, continue_final: bool) -> Rendered:
        text = lm.processor.apply_chat_template(
            messages,
            tokenize=False,
            add_generation_prompt=not continue_final and add_generation_prompt,
            continue_final_message=continue_final,
        )
        return Rendered(text, True, not continue_final and add_generation_prompt)

    def process(self, lm, rendered: list[Rendered], clips_per_item: list[list], flat: list) -> dict:
        """The model inputs of a batch (``flat``: every chunk of every clip, in order)."""
        special = {lm._add_special_tokens(r) for r in rendered}
        if len(special) > 1:
            raise RuntimeError("hf-audio: a batch mixes chat-templated and plain prompts; run them in separate calls")
        kwargs = {"text": [r.text for r in rendered], "return_tensors": "pt"}
        # A family whose processor would pad the audio windows too gets padding for its text alone, on the side the
        # call needs (left to generate, right for a prompt pass): its processor picks left where none is given.
        kwargs.update({"text_kwargs": {"padding": True, "padding_side": lm.tokenizer.padding_side}}
                      if lm.adapter.pads_text_only else {"padding": True})
        if special != {None}:
            kwargs["add_special_tokens"] = special.pop()
        if flat:
            kwargs["audio"] = flat
            kwargs["sampling_rate"] = lm.sampling_rate
        return lm.processor(**kwargs)


class ProcessorEncoder(TemplateEncoder):
    """The family's processor renders and tokenizes the turns itself, the clips inside (the adapter's ``encode``):
    every prompt goes in the template, text without ``--apply_chat_template`` too, and there is no
    ``chat_template=False``."""

    def check(self, lm) -> None:
        if not lm.use_chat_template:
            raise ValueError(
                f"hf-audio: {lm.family.name} ({lm.pretrained!r}) takes its prompt only as its processor renders "
                "it (audio included); leave chat_template=False out"
            )

    def reads_plain_text(self, item: RequestParts) -> bool:
        return False

    def in_template(self, lm, messages: list[dict], add_generation_prompt: bool, continue_final: bool) -> Rendered:
        # (mistral_common: a prompt ending with a user turn ends with [/INST])
        return Rendered("", True, messages[-1]["role"] != "assistant", messages)

    def process(self, lm, rendered: list[Rendered], clips_per_item: list[list], flat: list) -> dict:
        return lm.adapter.encode(lm.processor, [r.messages for r in rendered],
                                 [[chunk for chunks in clips for chunk in chunks] for clips in clips_per_item],
                                 lm.sampling_rate)


def prompt_encoder(adapter) -> TemplateEncoder:
    """How the family's prompts become model inputs: the one place that reads the adapter's ``encodes_prompt``."""
    return ProcessorEncoder() if adapter.encodes_prompt else TemplateEncoder()


class PromptsMixin:
    """``HFAudioLM``'s prompt rendering and processor calls (reads ``processor``, ``tokenizer``, ``adapter``,
    ``prompt_encoder``, ``system_prompt``, ``use_chat_template``, ``audio_prompt``, ``sampling_rate``; counts
    prompts in ``run_record``, each request of a call once: ``_prompts_counted``)."""

    def _render(self, item: RequestParts, clips: list, add_generation_prompt: bool = True) -> Rendered:
        """The prompt for one request, with one audio slot per (chunked) clip; counted by kind in the results."""
        rendered = self._render_prompt(item, clips, add_generation_prompt)
        if item.index not in self._prompts_counted:  # once per request, though a batch retried smaller renders it again
            self._prompts_counted.add(item.index)
            kind = ("audio" if item.refs else "text") + ("_with_template" if rendered.templated else "_without_template")
            self.run_record["prompts"][kind] += 1
        return rendered

    def _render_prompt(self, item: RequestParts, clips: list, add_generation_prompt: bool) -> Rendered:
        if self.prompt_encoder.reads_plain_text(item):
            # Text without lm-eval's --apply_chat_template: the context as it is, as lm-eval's `hf` reads it, so
            # an audio model's text scores and a text model's come from one protocol. (A family whose processor
            # renders and tokenizes every prompt, Voxtral, has no plain-text path: its text goes in its template.)
            return Rendered(item.context, False, False)
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
            return Rendered(flatten_without_template(messages, self.audio_prompt or ""), False, False)
        continue_final = not add_generation_prompt and messages[-1]["role"] == "assistant"
        return self.prompt_encoder.in_template(self, messages, add_generation_prompt, continue_final)

    def _add_special_tokens(self, rendered: Rendered) -> bool | None:
        """Whether tokenizing adds the tokenizer's special tokens: never to a chat template's output, which
        has them already (transformers' apply_chat_template rule; else Gemma-style templates get two BOS),
        nor to text that starts with BOS (lm-eval's rule); otherwise the tokenizer's default (None)."""
        if rendered.templated:
            return False
        bos = getattr(self.tokenizer, "bos_token", None)
        return False if bos and rendered.text.startswith(bos) else None

    def _process(self, rendered: list[Rendered], clips_per_item: list[list]) -> dict:
        """Processor call for a batch, checked: audio in means audio features out. For a family whose audio path is
        not padding-invariant (its adapter's ``audio_method``) each request goes through the processor alone and the
        outputs are joined (``clip_encoding.collate``), keeping each request's own for its audio encoder."""
        flat = [chunk for clips in clips_per_item for chunks in clips for chunk in chunks]
        if flat and self.adapter.audio_method is not None:
            rows = [dict(self.prompt_encoder.process(self, [r], [clips], [c for chunks in clips for c in chunks]))
                    for r, clips in zip(rendered, clips_per_item)]
            inputs = collate(rows, self.tokenizer.padding_side, self._pad_id(), self.adapter.audio_method.encoder_only)
        else:
            inputs = self.prompt_encoder.process(self, rendered, clips_per_item, flat)
        if flat:
            self._check_audio_reached(inputs, clips_per_item)
        return inputs

    def _pad_id(self) -> int:
        """The token a batch's shorter prompts are padded with: the tokenizer's pad token, else its EOS."""
        return self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.tokenizer.eos_token_id

    def _check_audio_reached(self, inputs, clips_per_item) -> None:
        features = [k for k, v in inputs.items() if k not in TEXT_KEYS and hasattr(v, "numel") and v.numel() > 0]
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
