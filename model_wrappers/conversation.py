"""Spoken conversations: a document whose prompt is several user turns (``markers.encode_conversation``), each with
its clip, answered round by round, each answer in the context of the next, as the dialogue benchmarks' own inference
scripts hold them (URO-Bench's examples/*/inference_multi.py: the user's clip, then the model's own earlier answers
as assistant turns).

Every wrapper answers through :func:`answered_in_turns`: the call's other requests go to the wrapper's own
generation unchanged; a conversation's round k is a request of its own (the turns so far in chat form, the clips of
rounds 1..k, ``idx`` k so that a spoken answer of each round is kept in a file of its own), the rounds of every
conversation of the call answered together, one call per round. What a round adds to the next round's context is
the model's own text (a spoken answer's text channel, as URO-Bench's GLM-4-Voice script keeps its text tokens). The
conversation's answer, what lm-eval gets for its request, is the list of its rounds' answers. A round that fails
(a counted failure) ends its conversation there: the later rounds are counted failures too, never asked with a
turn missing from their context.
"""

from __future__ import annotations

from lm_eval.api.instance import Instance
from lm_eval.api.model import CacheHook

from lm_eval_audio.audio.markers import decode_conversation, encode_chat_context
from lm_eval_audio.model_wrappers import failed_requests
from lm_eval_audio.model_wrappers.request_parts import is_multimodal_part


def answered_in_turns(wrapper, requests, answer) -> list:
    """Each request's answer: ``answer(requests) -> answers`` (the wrapper's own generation) for the requests that
    are no conversation, and for each conversation the list of its rounds' answers."""
    talks = {}
    for index, request in enumerate(requests):
        found = decode_conversation(request.args[0])
        if found is not None:
            talks[index] = _checked(wrapper.WHO, request, *found)
    if not talks:
        return answer(requests)
    plain = [i for i in range(len(requests)) if i not in talks]
    out = dict(zip(plain, answer([requests[i] for i in plain]) if plain else []))
    history = {i: list(talk["before"]) for i, talk in talks.items()}
    rounds: dict[int, list] = {i: [] for i in talks}
    for k in range(max(len(talk["turns"]) for talk in talks.values())):
        live = [i for i, talk in talks.items() if k < len(talk["turns"]) and not _ended(rounds[i])]
        for i, talk in talks.items():  # a conversation a failed round ended: its later rounds are not asked
            if k < len(talk["turns"]) and i not in live:
                rounds[i].append(_not_asked(wrapper, requests[i], rounds[i], k))
        asked = []
        for i in live:
            talk, request = talks[i], requests[i]
            turns = history[i] + [{"role": "user", "content": talk["turns"][k]}]
            args = (encode_chat_context(turns, True), talk["gen_kwargs"], {"audio": talk["clips"][: k + 1]})
            asked.append(Instance(request.request_type, request.doc, args, idx=k,
                                  metadata=(request.task_name, request.doc_id, request.repeats)))
        for i, reply in zip(live, _uncached(wrapper, answer, asked) if asked else []):
            rounds[i].append(reply)
            history[i] += [{"role": "user", "content": talks[i]["turns"][k]},
                           {"role": "assistant", "content": str(getattr(reply, "text", reply))}]
    out.update(rounds)
    return [out[i] for i in range(len(requests))]


def _uncached(wrapper, answer, asked: list) -> list:
    """The rounds' answers, none of them handed to ``--use_cache`` (the wrapper's hook would key each by its round's
    request, which no run looks up): the conversation's list is cached whole, under the document's request."""
    hook, wrapper.cache_hook = wrapper.cache_hook, CacheHook(None)
    try:
        return answer(asked)
    finally:
        wrapper.cache_hook = hook


def _ended(replies: list) -> bool:
    return any(failed_requests.is_failed(reply) for reply in replies)


def _not_asked(wrapper, request, replies: list, k: int):
    """Round ``k``'s answer in a conversation an earlier round ended: where that round's clip was unavailable (the
    loader counted it), the same; else a failure counted under the document."""
    first = next(reply for reply in replies if failed_requests.is_failed(reply))
    reason = f"round {k + 1} was not asked: round {replies.index(first) + 1} of the conversation failed"
    if first.not_run:
        return failed_requests.not_run(f"{reason} ({first.error})", request.request_type)
    return failed_requests.record(wrapper.notes, wrapper.WHO, request, reason, request.request_type)


def _checked(who: str, request, before: list[dict], turns: list[str]) -> dict:
    """A conversation request's parts; a ValueError naming the document where its turns and clips do not pair."""
    args = list(request.args)
    extra = args.pop() if args and is_multimodal_part(args[-1]) else {}
    clips = [c for c in (extra.get("audio") or []) if c is not None]
    if not turns or len(clips) != len(turns):
        raise ValueError(f"{who}: {request.task_name} document {request.doc_id}: a conversation of {len(turns)} "
                         f"turn(s) carries {len(clips)} clip(s); its task's doc_to_audio must give one clip per turn")
    return {"before": before, "turns": turns, "clips": clips, "gen_kwargs": args[1] if len(args) > 1 else {}}
