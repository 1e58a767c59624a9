"""The Text-Backbone condition of ``diagnose``: an audio model's text LLM, asked the same prompts.

arXiv 2604.24401 reports, beside each audio model, the text-only LLM it is built on, given the task's
prompts without the audio: what the backbone alone knows. ``diagnose --text_backbone MODEL_ARGS`` builds
any lm-eval model (``--text_backbone_model``, ``hf`` by default) and wraps it in :class:`TextPromptsOnly`,
which hands it every request with the audio taken out exactly as ``audio=none`` takes it out (the audio
references dropped, the ``<audio>`` markers removed), so that a plain text model can run an audio task. As the
audio model asks an audio task's prompt in its chat template, so does the backbone: where lm-eval has not
rendered the prompt in it (no ``--apply_chat_template``), the prompt goes to the backbone as one user turn of its
own template (the paper's backbones ran in their chat templates).
"""

from __future__ import annotations

import dataclasses

from lm_eval.api.model import LM

from lm_eval_audio.audio.conditions import without_audio
from lm_eval_audio.model_wrappers.request_parts import is_multimodal_part

LABEL = "text_backbone"


def text_args(args: tuple) -> tuple:
    """A request's arguments without its audio: the context as ``audio=none`` leaves it, the other text
    arguments (a continuation, generation settings) as they are, and no multimodal dict."""
    context, *rest = args
    rest = [a for a in rest if not is_multimodal_part(a)]
    return (without_audio(context), *rest)


class TextPromptsOnly(LM):
    """Any lm-eval model, handed each request's text alone."""

    MULTIMODAL = True  # lm-eval's gate for tasks with audio: these requests are taken, their audio dropped here

    def __init__(self, lm: LM) -> None:
        super().__init__()
        self.lm = lm
        self.rendered_by_lm_eval = False  # lm-eval's --apply_chat_template rendered the prompts already

    def __getattr__(self, name):
        # The chat-template hooks and the rest of the inner model's interface (lm-eval reads them).
        if name == "lm":
            raise AttributeError(name)
        return getattr(self.lm, name)

    # What LM defines for itself, and lm-eval reads from the model it runs: the inner model's.
    @property
    def device(self):
        return self.lm.device

    @property
    def rank(self) -> int:
        return self.lm.rank

    @property
    def world_size(self) -> int:
        return self.lm.world_size

    @property
    def tokenizer_name(self) -> str:
        return self.lm.tokenizer_name

    def chat_template(self, chat_template: bool | str = False):
        return self.lm.chat_template(chat_template)

    def apply_chat_template(self, chat_history, add_generation_prompt: bool = True):
        self.rendered_by_lm_eval = True
        return self.lm.apply_chat_template(chat_history, add_generation_prompt=add_generation_prompt)

    def all_gather(self, tensor):
        return self.lm.all_gather(tensor)

    def gather_object(self, obj, dst=0):
        return self.lm.gather_object(obj, dst)

    def barrier(self) -> None:
        self.lm.barrier()

    def set_cache_hook(self, cache_hook) -> None:
        super().set_cache_hook(cache_hook)
        self.lm.set_cache_hook(cache_hook)

    def _text_only(self, requests) -> list:
        out = []
        for r in requests:
            args = text_args(r.args)
            if len(args) < len(r.args) and not self.rendered_by_lm_eval:  # an audio task's prompt, not yet rendered
                args = (self.lm.apply_chat_template([{"role": "user", "content": args[0]}]), *args[1:])
            out.append(dataclasses.replace(r, arguments=args))
        return out

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        return self.lm.loglikelihood(self._text_only(requests), disable_tqdm=disable_tqdm)

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        return self.lm.loglikelihood_rolling(self._text_only(requests), disable_tqdm=disable_tqdm)

    def generate_until(self, requests, disable_tqdm: bool = False):
        return self.lm.generate_until(self._text_only(requests), disable_tqdm=disable_tqdm)
