"""MMAU-Pro's official closed-question score: the choice nearest to the response in an embedding space.

sonalkum/MMAUPro@960e93a4, ``evaluate_closedended_with_nvembed``: the response and each choice are encoded by
``nvidia/NV-Embed-v2`` (``model.encode(texts, instruction="", max_length=4096)``), L2-normalised; the choice with
the highest dot product is the model's answer, right when it equals the ``answer`` string exactly. No letter is
read: a bare "B" is matched by similarity to the choices' texts. An empty response is encoded as "".

NV-Embed-v2 is a 7B model loaded with ``trust_remote_code``. It is loaded once per process, in the aggregation
step, from the local Hugging Face cache or the Hub (``mmau_pro_embedder`` in ``--metadata`` names another
checkpoint with the same ``encode`` method; ``mmau_pro_embedder_device``, default cuda when available;
``mmau_pro_embedder_local_files_only``, set by the bundled sample, never to try the Hub). Where it
cannot be loaded, :class:`EmbedderUnavailable` names it and what to do, and the task reports ``official_acc``
as NaN with that line, never as a number from another model.
"""

from __future__ import annotations

import functools
import os

DEFAULT_EMBEDDER = "nvidia/NV-Embed-v2"
MAX_LENGTH = 4096


class EmbedderUnavailable(RuntimeError):
    """The embedding model cannot be loaded here."""


_UNAVAILABLE: dict[tuple, EmbedderUnavailable] = {}  # tried once per process, as a loaded model is kept once


def load_encoder(name: str, device: str | None = None, local_files_only: bool = False):
    """``encode(texts) -> tensor`` of the embedding model, as the official script calls it."""
    key = (name, device, local_files_only)
    if key in _UNAVAILABLE:
        raise _UNAVAILABLE[key]
    try:
        return _load(name, device, local_files_only)
    except EmbedderUnavailable as e:
        _UNAVAILABLE[key] = e
        raise


@functools.lru_cache(maxsize=1)
def _load(name: str, device: str | None, local_files_only: bool):

    def unavailable(why: str) -> EmbedderUnavailable:
        return EmbedderUnavailable(
            f"MMAU-Pro's official closed-question score needs the embedding model {name} and it cannot be loaded "
            f"here ({why}); download it into the Hugging Face cache on a machine with a GPU "
            "(`hf download nvidia/NV-Embed-v2`), or name another local copy with "
            "--metadata '{\"mmau_pro_embedder\": \"/path\"}'"
        )

    if local_files_only and not os.path.isdir(name):
        from huggingface_hub import try_to_load_from_cache

        # transformers still asks the Hub for an adapter file when told not to: look in the cache first.
        try:
            cached = try_to_load_from_cache(name, "config.json")
        except ValueError:  # not a Hub name either (huggingface_hub's HFValidationError)
            cached = None
        if not isinstance(cached, str):
            raise unavailable("not a folder, and not in the local Hugging Face cache")
    try:
        import torch
        from transformers import AutoModel

        model = AutoModel.from_pretrained(name, trust_remote_code=True, local_files_only=local_files_only)
        model.to(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    except Exception as e:  # offline, not cached, out of memory, remote code failing on this transformers
        raise unavailable(f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}") from None
    if not hasattr(model, "encode"):
        raise EmbedderUnavailable(f"{name} has no encode(texts, instruction=, max_length=) method as NV-Embed-v2 has")
    return lambda texts: model.encode(texts, instruction="", max_length=MAX_LENGTH)


def matched_choices(items: list[dict], encode) -> list[str]:
    """The choice each response is nearest to (``items``: ``response`` and ``choices``)."""
    import torch
    import torch.nn.functional as F

    out = []
    with torch.no_grad():
        for item in items:
            response = F.normalize(torch.as_tensor(encode([item["response"] or ""])), p=2, dim=1)
            choices = F.normalize(torch.as_tensor(encode(list(item["choices"]))), p=2, dim=1)
            out.append(item["choices"][int(torch.argmax((response @ choices.T).squeeze(0)))])
    return out
