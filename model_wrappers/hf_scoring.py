"""hf-audio's log-likelihoods: continuations scored as lm-eval's ``hf`` scores them (its tokenization of a
pair, the greedy flag), with one prompt pass per document whose choices share a key-value cache."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from lm_eval_audio.audio.refs import content_digest, describe
from lm_eval_audio.model_wrappers.hf_prompts import Rendered, plain_text
from lm_eval_audio.model_wrappers.request_parts import RequestParts

if TYPE_CHECKING:
    import torch


class PromptPass(NamedTuple):
    """A forward over some documents' prompts: what their continuations are scored from."""

    rendered: list[Rendered]
    mask: torch.Tensor  # (documents, padded width), right-padded
    lengths: list[int]  # each row's prompt tokens
    first: torch.Tensor  # (documents, vocabulary): log-probs after each row's last prompt token
    cache: object  # the key-value cache of the pass, one row per document


class LoglikelihoodMixin:
    """``HFAudioLM``'s ``loglikelihood`` and ``loglikelihood_rolling``."""

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
        special = self._add_special_tokens(Rendered(context, False, False))
        whole = self._encode(context + continuation, special)
        ctx = self._encode(context, special)
        return whole[: len(ctx)], whole[len(ctx) :]

    def _continuation_ids(self, rendered: Rendered, continuation: str) -> list[int]:
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
            **self._out_of_memory("loglikelihood"),
        )
        self._report_audio_handling(outs)
        return outs

    def _loglikelihood_batch(self, batch: list[RequestParts]) -> list[tuple[float, bool]]:
        return self._without_unavailable(batch, self._loglikelihood_rows, "loglikelihood")

    def _loglikelihood_rows(self, batch: list[RequestParts]) -> list[tuple[float, bool]]:
        """Score continuations. Plain-text rows are tokenized as lm-eval's ``hf`` model does and scored in
        one forward; rows needing the processor (audio, chat turns) are grouped by document (context and
        clips), and each document's prompt is run once for all of its choices (:meth:`_score_documents`)."""
        results: list[tuple[float, bool] | None] = [None] * len(batch)
        text_rows, pairs = [], []
        documents: dict[tuple, list[int]] = {}
        for row, item in enumerate(batch):
            if not plain_text(item):
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

    def _score_documents(self, documents: list[tuple[tuple, list[RequestParts]]], rows: list[list[int]]):
        """(rows, scores) per document. A document whose prompt the previous batch ran (its choices
        split by a batch boundary) reuses that pass; the others run their prompts in one forward per
        group (documents with audio, then text-only ones: an adapter's state is set per call), or one
        document per forward for a family whose text model has sliding-window layers."""
        pending = list(zip(documents, rows))
        if self._last_prompt is not None:
            key, prompt, d = self._last_prompt
            for entry in [e for e in pending if e[0][0] == key]:
                pending.remove(entry)
                yield entry[1], self._score_choices(prompt, [(d, entry[0][1])])[0]
        for has_audio in (True, False):
            group = [e for e in pending if bool(e[0][1][0].refs) == has_audio]
            alone = self._sliding_window_cache()
            for chunk in ([[e] for e in group] if alone else [group] if group else []):
                prompt = self._prompt_pass([items[0] for (_, items), _ in chunk])
                scored = self._score_choices(prompt, [(d, items) for d, ((_, items), _) in enumerate(chunk)])
                self._last_prompt = (chunk[-1][0][0], prompt, len(chunk) - 1)
                yield from zip([r for _, r in chunk], scored)

    def _sliding_window_cache(self) -> bool:
        """Whether the text model has sliding-window layers (Gemma 3n, Gemma 4): their cache keeps a prompt's last
        ``sliding_window`` positions, which for a row right-padded to a longer prompt are padding, not the row's own
        last tokens, so options scored after a shared prompt pass would see less of their prompt than alone (Gemma
        4's moved by 3.3). Such a model runs each document's prompt in a pass of its own."""
        text = self.model.config.get_text_config() if hasattr(self.model.config, "get_text_config") else self.model.config
        layers = getattr(text, "layer_types", None) or ()
        return bool(getattr(text, "sliding_window", None)) and ("sliding_attention" in layers or
                                                                 bool(getattr(text, "use_sliding_window", False)))

    def _prompt_pass(self, items: list[RequestParts]) -> PromptPass:
        """One forward over the prompts of several documents (one request each), right-padded, so each
        row's positions are those of an unpadded run; its key-value cache serves the choices after it."""
        import torch

        clips = [self._clips(item) for item in items]
        rendered = [self._render(item, c) for item, c in zip(items, clips)]
        if self.thinking.markers and rendered[0].after_header:  # an option is the answer, after an empty trace
            rendered = [r._replace(text=self.thinking.closed_for_scoring(r.text)) for r in rendered]
        self.tokenizer.padding_side = "right"
        inputs = self._process(rendered, clips)
        self.adapter.before_call(bool(items[0].refs))
        with torch.inference_mode(), self.adapter.hearing(inputs, self._to_device):
            out = self.model(**self._to_device(dict(inputs)), use_cache=True)
        mask = inputs["attention_mask"].cpu()
        lengths = mask.sum(dim=1)
        last = out.logits[torch.arange(len(items)), (lengths - 1).to(out.logits.device)]
        first = torch.log_softmax(last.float(), dim=-1).cpu()
        return PromptPass(rendered, mask, [int(n) for n in lengths], first, getattr(out, self._cache_argument()))

    def _cache_argument(self) -> str:
        """The name under which the model's forward takes and returns its key-value cache: ``cache`` since
        transformers 5.24, ``past_key_values`` before (5.24 still takes the old name, with a warning on every
        call, until 5.40)."""
        import inspect

        return "cache" if "cache" in inspect.signature(self.model.forward).parameters else "past_key_values"

    def _score_choices(self, prompt: PromptPass, documents: list[tuple[int, list[RequestParts]]]) -> list[list]:
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
            cache.batch_select_indices(torch.tensor([d for d, _ in rows], device=self.model_device))
            self.adapter.before_call(bool(documents[0][1][0].refs))  # the prompt pass may be an earlier batch's
            with torch.inference_mode():
                logits = self.model(**self._to_device({"input_ids": ids, "attention_mask": mask,
                                                       "position_ids": positions}),
                                    **{self._cache_argument(): cache}).logits
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
        for r, ((_ctx, cont), (ids, n_cont)) in enumerate(zip(pairs, rows)):
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
                windows.append(RequestParts(len(windows), "", window))
                owners.append(i)

        def score(batch):
            self.adapter.before_call(False)
            return self._score([w.second for w in batch], {}, truncatable=[True] * len(batch))

        ordered = sorted(windows, key=lambda w: (-len(w.second[0]) - len(w.second[1]), w.index))
        scores = self.batcher.run("loglikelihood_rolling", [ordered], score, f"{self.progress_label} rolling",
                                  self._quiet(disable_tqdm), notes=self.notes)
        totals = [0.0] * len(requests)
        for owner, (lp, _) in zip(owners, scores):
            totals[owner] += lp
        return totals
