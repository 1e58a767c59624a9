"""Where the audio goes in a prompt.

A task marks each clip's place with ``<audio>`` in its prompt text; with no marker,
the clips go before the text of the last user turn. A clip that the long-audio policy
cut into chunks fills its place with one audio part per chunk.

When lm-eval itself applies the chat template (``--apply_chat_template``), the model
is asked to render turns before it sees the request's audio. ``encode_chat_context``
keeps the turns as JSON behind a marker instead, and the model wrapper renders them
once the audio is at hand.
"""

from __future__ import annotations

import json

AUDIO_PLACEHOLDER = "<audio>"
_CHAT_MARKER = "<|lm_eval_audio:chat|>"


def encode_chat_context(chat_history: list[dict], add_generation_prompt: bool = True) -> str:
    payload = {"messages": chat_history, "add_generation_prompt": bool(add_generation_prompt)}
    return _CHAT_MARKER + json.dumps(payload, ensure_ascii=False)


def decode_chat_context(context: str) -> tuple[list[dict], bool] | None:
    """The turns and the generation-prompt flag, or None for a plain-text context."""
    if not context.startswith(_CHAT_MARKER):
        return None
    payload = json.loads(context[len(_CHAT_MARKER) :])
    return payload["messages"], payload["add_generation_prompt"]


_CONVERSATION_MARKER = "<|lm_eval_audio:conversation|>"


def encode_conversation(turns: list[str], context: list[dict] = ()) -> str:
    """A task's prompt for a spoken conversation (``doc_to_text``): the user's turns, each with its clip's
    ``<audio>`` marker, to be answered one after another, each answer in the context of the next
    (``model_wrappers.conversation``); the request carries the turns' clips in order. ``context``: the turns a
    benchmark gives as the dialogue so far (chat messages, text only), before the first turn the model answers."""
    for turn in context:
        if turn.get("role") not in ("user", "assistant") or not isinstance(turn.get("content"), str):
            raise ValueError(f"a conversation's context turn must be a user or assistant turn of text: {turn!r}")
    payload = {"turns": list(turns), **({"context": list(context)} if context else {})}
    return _CONVERSATION_MARKER + json.dumps(payload, ensure_ascii=False)


def decode_conversation(context: str) -> tuple[list[dict], list[str]] | None:
    """(the turns before the conversation, the user's turns) of a conversation's prompt, or None for any other. The
    turns before it: a system turn, then the context the benchmark gave. lm-eval may have put the prompt in a chat
    (``--apply_chat_template``: the turns before it are its system turn) or after plain text
    (``--system_instruction`` without a template: a system turn here)."""
    chat = decode_chat_context(context)
    if chat is not None:
        messages = chat[0]
        found = [i for i, m in enumerate(messages) if isinstance(m.get("content"), str)
                 and m["content"].startswith(_CONVERSATION_MARKER)]
        if not found:
            return None
        before, text = messages[: found[0]], messages[found[0]]["content"]
    else:
        at = context.find(_CONVERSATION_MARKER)
        if at < 0:
            return None
        before = [{"role": "system", "content": context[:at].strip()}] if context[:at].strip() else []
        text = context[at:]
    payload = json.loads(text[len(_CONVERSATION_MARKER):])
    return before + list(payload.get("context", [])), list(payload["turns"])


def _parts(content) -> list[dict]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content)


def count_markers(messages: list[dict]) -> int:
    """How many ``<audio>`` markers the turns' text holds."""
    return sum(
        part.get("text", "").count(AUDIO_PLACEHOLDER)
        for m in messages
        for part in _parts(m["content"])
        if part.get("type") == "text"
    )


def place_audio(messages: list[dict], slots_per_clip: list[int], where: str = "") -> list[dict]:
    """Replace ``<audio>`` markers (or prepend to the last user turn) with audio parts.

    Messages that get audio have list content (``{"type": "audio"}`` and
    ``{"type": "text"}`` parts); the others keep their content as it was.
    """
    n_markers = count_markers(messages)
    if not slots_per_clip:
        if n_markers:
            raise ValueError(
                f"the prompt has {n_markers} {AUDIO_PLACEHOLDER} marker(s) but the request carries no audio{where and ' (' + where + ')'}: "
                "check the task's doc_to_audio"
            )
        return messages
    if n_markers not in (0, len(slots_per_clip)):
        hint = "use one marker per clip, or none to put the audio first"
        if n_markers > len(slots_per_clip):
            hint += (
                ". If this is a few-shot run: lm-eval passes only the evaluated document's audio, not the "
                "examples', so their markers have no clip; evaluate audio tasks with --num_fewshot 0"
            )
        raise ValueError(
            f"the prompt has {n_markers} {AUDIO_PLACEHOLDER} marker(s) but the request carries "
            f"{len(slots_per_clip)} clip(s) ({where}); {hint}"
        )

    def audio_parts(clip: int) -> list[dict]:
        return [{"type": "audio", "audio": f"clip {clip + 1}"} for _ in range(slots_per_clip[clip])]

    out = []
    if n_markers == 0:
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        for i, m in enumerate(messages):
            if i == last_user:
                parts = [p for c in range(len(slots_per_clip)) for p in audio_parts(c)]
                m = {**m, "content": parts + [p for p in _parts(m["content"]) if p.get("text", True) != ""]}
            out.append(m)
        return out

    clip = 0
    for m in messages:
        parts = _parts(m["content"])
        if not any(AUDIO_PLACEHOLDER in p.get("text", "") for p in parts if p.get("type") == "text"):
            out.append(m)
            continue
        new_parts = []
        for p in parts:
            if p.get("type") != "text" or AUDIO_PLACEHOLDER not in p["text"]:
                new_parts.append(p)
                continue
            pieces = p["text"].split(AUDIO_PLACEHOLDER)
            for k, piece in enumerate(pieces):
                if k:
                    new_parts += audio_parts(clip)
                    clip += 1
                if piece:
                    new_parts.append({"type": "text", "text": piece})
        out.append({**m, "content": new_parts})
    return out


def flatten_without_template(messages: list[dict], audio_prompt: str) -> str:
    """The prompt as plain text, each audio part replaced by the model's audio marker."""
    return "".join(
        audio_prompt if part.get("type") == "audio" else part.get("text", "")
        for m in messages
        for part in _parts(m["content"])
    )
