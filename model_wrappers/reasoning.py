"""A thinking model's reasoning trace, kept apart from its answer.

A thinking model writes a trace (``<think>...</think>`` for Qwen3-Omni Thinking; a server's reasoning parser hands
it over as ``reasoning_content`` or ``reasoning``) and then its answer.
Only the answer may reach a task's filters, scorers and judges: a trace that mentions every option would
otherwise be scored as if it were the answer. :func:`split_trace` cuts a reply at the trace's end;
:class:`Reasoned` is the answer (a ``str``, what lm-eval scores) that carries its trace, which the seam writes
into the logged sample (``reasoning``); :func:`count` notes per task how many answers had a trace, how long the
traces were and how many were cut off by the token limit (``lm_eval_audio_data.reasoning_traces`` in the
results). A trace that never ends (the model ran out of tokens while thinking) is not an answer: the item is
answered empty, as the task scores an empty answer (wrong for every scorer here, except an official reading that
stands in a random option for an unread answer, as VoiceBench's script does, and a judge's lowest grade), and counted
as ``unfinished``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass


log = logging.getLogger("lm_eval.audio")


@dataclass(frozen=True)
class TraceMarkers:
    """What opens and closes a family's trace in its output text."""

    open: str
    close: str


THINK = TraceMarkers("<think>", "</think>")


class Reasoned(str):
    """The answer of a reply that had a reasoning trace: the ``str`` is the answer alone (empty where the trace
    never ended); ``reasoning`` the trace, ``finished`` whether it ended, ``trace_tokens`` its length in tokens
    where the model wrapper knows it.

    Anywhere else it is the ``str`` it holds: called with a string alone (lm-eval's ``process_results`` makes the gold
    answer ``type(result)(gold)``), it gives that plain ``str``."""

    def __new__(cls, answer: str, reasoning: str | None = None, finished: bool = True, trace_tokens: int | None = None):
        if reasoning is None:
            return str(answer)
        obj = super().__new__(cls, answer)
        obj.reasoning, obj.finished, obj.trace_tokens = reasoning, finished, trace_tokens
        return obj

    def __reduce__(self):  # kept through --use_cache's pickling and the gather of several ranks
        return (Reasoned, (str(self), self.reasoning, self.finished, self.trace_tokens))


def split_trace(text: str, markers: TraceMarkers = THINK, opened: bool = False, lone_close: bool = True) -> str:
    """``text`` without its trace: a :class:`Reasoned` where it has one, else ``text`` unchanged.

    ``opened``: the prompt ends with the open marker (the template opened the trace, as Qwen3's thinking templates
    do), so the reply starts inside it. A reply whose first words are the open marker, or that holds the close
    marker, has a trace too (``lone_close``; not for a model that is not known to think, whose answer may mention the
    marker): a template may open it without saying so. The answer starts after the close marker, its leading
    whitespace dropped; with no close marker the trace is unfinished and the answer empty."""
    start = None
    stripped = text.lstrip()
    if stripped.startswith(markers.open):
        start = len(text) - len(stripped) + len(markers.open)
    elif opened or (lone_close and markers.close in text):
        start = 0
    if start is None:
        return text
    end = text.find(markers.close, start)
    if end < 0:
        return Reasoned("", text[start:].strip(), finished=False)
    return Reasoned(text[end + len(markers.close):].lstrip(), text[start:end].strip())


def traces_of(responses) -> list[tuple[str, bool]]:
    """The (trace, finished) of each answer with a trace among a logged sample's ``resps`` (nested lists)."""
    if isinstance(responses, Reasoned):
        return [(responses.reasoning, responses.finished)]
    if isinstance(responses, (list, tuple)) and not isinstance(responses, str):
        return [trace for item in responses for trace in traces_of(item)]
    return []


def with_trace(answer: str, reasoning: str | None, finished: bool, trace_tokens: int | None = None) -> str:
    """The answer with a trace a server handed over apart (``reasoning_content``), or ``answer`` as it is."""
    if not reasoning and finished:
        return answer
    return Reasoned(answer if finished else "", reasoning or "", finished, trace_tokens)


@dataclass(frozen=True)
class Thinking:
    """How a model wrapper reads its model's replies: ``markers`` where the model thinks (None: it answers straight
    away, though a reply that holds a trace all the same still has it removed), and ``budget``, the new tokens a
    reply of a thinking model gets for trace and answer together."""

    markers: TraceMarkers | None
    budget: int | None
    budget_from: str  # where the budget comes from, for the results

    @classmethod
    def of(cls, markers: TraceMarkers | None, asked: int | None, documented: int | None, who: str) -> Thinking:
        """``asked``: ``thinking_budget=`` (None: not given); ``documented``: the family's budget for its thinking
        variant."""
        if markers is None:
            if asked is not None:  # (also what --gen_kwargs max_gen_toks=N sets: no warning for every such run)
                log.info("%s: thinking_budget=%d is not used: the model is not known to think (pass thinking=true "
                         "if it does)", who, asked)
            return cls(None, None, "")
        if asked is not None:
            thinking = cls(markers, asked, "thinking_budget= in --model_args (or --gen_kwargs max_gen_toks, which sets "
                                           "it for hf-audio)")
        elif documented is not None:
            thinking = cls(markers, documented, "the family's documented thinking budget")
        else:
            thinking = cls(markers, None, "")
        log.info("%s: the model thinks before it answers: %s", who, thinking.budget_said())
        return thinking

    def budget_said(self) -> str:
        if self.budget is None:
            return "each reply gets the task's max_gen_toks for trace and answer together (no thinking budget known)"
        return (f"each reply gets up to {self.budget:,} new tokens for trace and answer together ({self.budget_from}; "
                "thinking_budget= in --model_args sets it)")

    def settings(self, settings):
        """A request's generation settings (``request_parts.GenerationSettings``) with the thinking budget: a
        task's ``max_gen_toks`` is written for an answer (a letter, a sentence) and would cut every trace, so a
        thinking model gets at least its budget; a larger ``max_gen_toks`` is kept."""
        if self.budget is None or settings.max_new_tokens >= self.budget:
            return settings
        import dataclasses

        return dataclasses.replace(settings, max_new_tokens=self.budget)

    def closed_for_scoring(self, prompt: str) -> str:
        """The prompt a thinking model's continuations (multiple-choice options) are scored after: with an empty
        trace closed, as Qwen3's templates write a reply without thinking (``<think>\n\n</think>\n\n``), so that
        an option is scored as the answer and not as the first words of a trace. A prompt of a model that does
        not think, or of a family whose processor renders the prompt itself (empty here), is left as it is."""
        if self.markers is None or not prompt:
            return prompt
        if prompt.rstrip().endswith(self.markers.open):
            return prompt.rstrip() + "\n\n" + self.markers.close + "\n\n"
        return prompt + self.markers.open + "\n\n" + self.markers.close + "\n\n"

    def answer(self, text: str, prompt: str, until: list[str], count_tokens=None) -> str:
        """The reply's answer, its trace removed (``prompt``: the rendered prompt, which may have opened the trace)
        and cut at the task's stop strings, which apply to the answer alone."""
        from lm_eval_audio.model_wrappers.request_parts import cut_at_stops

        markers = self.markers or THINK
        answer = split_trace(text, markers, opened=prompt.rstrip().endswith(markers.open),
                             lone_close=self.markers is not None)
        if not isinstance(answer, Reasoned):
            return cut_at_stops(answer, until)
        tokens = count_tokens(answer.reasoning) if count_tokens else None
        return Reasoned(cut_at_stops(str(answer), until), answer.reasoning, answer.finished, tokens)

    def answer_of_reply(self, response: dict, until: list[str]) -> str:
        """The answer of a chat completion: a trace the server's reasoning parser handed over apart (``reasoning``,
        as vLLM names it since late 2025, or ``reasoning_content``, as SGLang and older vLLM do) is kept beside it;
        a trace left in the content is cut out as :meth:`answer` does. A reply the token limit stopped with its
        trace handed over and no content is an unfinished trace."""
        from lm_eval_audio.model_wrappers.request_parts import cut_at_stops

        choice = (response.get("choices") or [{}])[0]
        message = choice.get("message") or {}
        content = message.get("content") or ""
        trace = message.get("reasoning") or message.get("reasoning_content")
        details = (response.get("usage") or {}).get("completion_tokens_details") or {}
        tokens = details.get("reasoning_tokens") if isinstance(details, dict) else None
        if not trace:
            if self.markers and choice.get("finish_reason") == "length" and self.markers.close not in content:
                # a model known to think, stopped by the limit with no trace handed over and none closed in the
                # content: its template opened the trace in the prompt, and the whole reply is the cut-off trace
                return Reasoned("", content.strip(), finished=False, trace_tokens=tokens)
            return self.answer(content, "", until, None if tokens is None else lambda trace: tokens)
        finished = not (choice.get("finish_reason") == "length" and not content.strip())
        # (the content after a parsed-out trace keeps the newlines that followed </think>: dropped, as in answer())
        return with_trace(cut_at_stops(content.lstrip(), until), trace, finished, tokens)

    def count(self, notes, tasks: list[str | None], answers: list) -> None:
        """Each answer counted under its task, in the wrapper's ``notes`` (:func:`count`)."""
        by_task: dict[str, list] = {}
        for task, answer in zip(tasks, answers):
            by_task.setdefault(task or "unknown_task", []).append(answer)
        for task, group in by_task.items():
            count(notes, task, group, thinks=self.markers is not None)

    def record(self) -> dict | None:
        """What the results JSON says of the trace handling (``lm_eval_audio_model.reasoning_trace``)."""
        if self.markers is None:
            return None
        return {"markers": [self.markers.open, self.markers.close],
                "handling": "removed before any filter, scorer or judge; kept in each logged sample as reasoning; "
                            "an unfinished trace is answered empty (scored as the task scores an empty answer) "
                            "and counted; multiple-choice "
                            "options scored after an empty closed trace",
                "budget": self.budget, "budget_from": self.budget_from or "none documented: the task's max_gen_toks"}


def count(notes, task: str, answers: list, thinks: bool = False) -> None:
    """Note, for ``task``, the answers, those with a trace, the traces' length and the unfinished ones (into the
    results' ``lm_eval_audio_data.reasoning_traces``); :func:`warn_unfinished` says the unfinished ones once the run
    has answered. Answers of a model that does not think are noted only where one had a trace."""
    traced = [a for a in answers if isinstance(a, Reasoned)]
    if not traced and not thinks:
        return
    entry = notes.data_notes.setdefault("reasoning_traces", {}).setdefault(
        task, {"answers": 0, "traces": 0, "unfinished": 0, "trace_chars": 0, "trace_tokens": 0,
               "answers_with_token_count": 0})
    entry["answers"] += len(answers)
    entry["traces"] += len(traced)
    unfinished = sum(not a.finished for a in traced)
    entry["unfinished"] += unfinished
    entry["trace_chars"] += sum(len(a.reasoning) for a in traced)
    known = [a.trace_tokens for a in traced if a.trace_tokens is not None]
    entry["trace_tokens"] += sum(known)
    entry["answers_with_token_count"] += len(known)
    entry["mean_trace_chars"] = round(entry["trace_chars"] / entry["traces"], 1) if entry["traces"] else 0.0
    if entry["answers_with_token_count"]:
        entry["mean_trace_tokens"] = round(entry["trace_tokens"] / entry["answers_with_token_count"], 1)


def warn_unfinished(notes) -> None:
    """Once the model has answered every request of the run: for each task, how many of its answers ran out of
    tokens inside the trace, of how many (the totals :func:`count` noted batch by batch)."""
    for task, entry in (notes.data_notes.get("reasoning_traces") or {}).items():
        if entry["unfinished"]:
            log.warning("%s: %d of %d answer(s) ran out of tokens inside the reasoning trace; they are answered empty, "
                        "scored as the task scores an empty answer (counted as unfinished under "
                        "lm_eval_audio_data.reasoning_traces); raise thinking_budget= in --model_args (or --gen_kwargs "
                        "max_gen_toks=N) to let them finish", task, entry["unfinished"], entry["answers"])
