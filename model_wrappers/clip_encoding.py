"""Each request's audio encoded as at batch size 1, the batch decoded together: for a family whose audio path is not
padding-invariant (Qwen3-Omni, Phi-4-multimodal, Gemma 3n, Granite-Speech).

Two things make a clip padded beside a longer one sound different to such a family. Its processor pads the waveform
before the features are taken, so the shorter clip's last frames see zeros where alone they see the STFT's own edge,
and its mask may count a frame more. Its encoder then reads padded frames: Qwen3-Omni's convolutions over a chunk
padded to the longest chunk, Phi-4's and Gemma 3n's conformers, Granite-Speech's encoder (no mask) and windowed
projector. The text decoder is exact under left padding with an attention mask, as the other families show.

So for these families each request goes through the processor alone, and :func:`collate` joins the requests' outputs
into one batch (the text padded on the call's side, the audio tensors zero-padded; those pads are never read, below).
The model's own audio method (:class:`AudioMethod`: ``get_audio_features``, or Phi-4's encoder) is replaced on the
loaded model by :class:`EncodedAlone`, which runs it once per request on that request's own processor output and
joins the results as the batch's call would have returned them. The model then scatters them into the batch's input
embeddings at the audio placeholders and decodes the batch in one ``generate`` or forward.

None of the four takes precomputed audio embeddings through its ``forward`` in transformers 5.23 (Qwen3-Omni's
``mm_encoder_outputs`` holds images and videos only), which is why the method is replaced on the instance rather than
bypassed: with such an argument, :class:`EncodedAlone`'s results could be passed in instead.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lm_eval_audio.model_wrappers.families import UnsupportedFamily

if TYPE_CHECKING:
    import torch

# Keys of a processor's output that carry text, not audio: padded on the call's side with the pad token (ids) or 0.
TEXT_KEYS = ("input_ids", "attention_mask", "token_type_ids", "position_ids")


class CollatedInputs(dict):
    """A batch's model inputs joined from its requests' own processor outputs, which it keeps (``rows``) for the audio
    encoder."""

    def __init__(self, batch: dict, rows: list[dict]) -> None:
        super().__init__(batch)
        self.rows = rows


def _pad_to(tensor: torch.Tensor, shape: tuple[int, ...], value, side: str = "right") -> torch.Tensor:
    """``tensor`` padded with ``value`` to ``shape`` (its first axis kept), at the end of each axis, or at the start
    of its last one for ``side="left"``."""
    import torch.nn.functional as F

    pads: list[int] = []
    for axis in reversed(range(1, tensor.dim())):
        missing = shape[axis] - tensor.shape[axis]
        pads += [missing, 0] if side == "left" else [0, missing]
    return F.pad(tensor, pads, value=value) if any(pads) else tensor


def _padded_alike(tensors: list, value, side: str = "right") -> list:
    """The tensors padded with ``value`` to the largest size on each axis but the first (see :func:`_pad_to`)."""
    shape = tuple(max(t.shape[axis] for t in tensors) for axis in range(tensors[0].dim()))
    return [_pad_to(t, shape, value, side) for t in tensors]


def collate(rows: list[dict], padding_side: str, pad_id: int, encoder_only: tuple[str, ...] = ()) -> CollatedInputs:
    """One batch of model inputs from each request's own processor output (``rows``, in batch order).

    Text keys are padded on ``padding_side`` (left to generate, right for a prompt pass), with ``pad_id`` for the ids
    and 0 elsewhere, as the processor pads a batch. Every other tensor is zero-padded (False for a mask) on each axis
    but the first and concatenated along it: one entry per clip, the requests' clips in order. ``encoder_only``
    names keys only the audio encoder reads (Phi-4's ``audio_attention_mask``, given only for a request with several
    clips): they stay in the rows and are left out of the batch."""
    import torch

    keys = [k for k in rows[0] if k not in encoder_only]
    for row in rows[1:]:
        if [k for k in row if k not in encoder_only] != keys:
            raise RuntimeError(f"hf-audio: the processor gave requests of one batch different inputs ({sorted(keys)} "
                               f"and {sorted(row)}); name the extra ones encoder_only in the family's AudioMethod")
    batch = {}
    for key in keys:
        tensors = [row[key] for row in rows]
        if not all(isinstance(t, torch.Tensor) for t in tensors):
            raise RuntimeError(f"hf-audio: the processor's {key!r} is not a tensor; it cannot be collated")
        if key in TEXT_KEYS:
            batch[key] = torch.cat(_padded_alike(tensors, pad_id if key == "input_ids" else 0, padding_side))
        else:
            batch[key] = torch.cat(_padded_alike(tensors, False if tensors[0].dtype == torch.bool else 0))
    return CollatedInputs(batch, rows)


def packed(outputs: list):
    """The per-request outputs of a method that returns its clips' frames packed along the first axis (Qwen3-Omni's
    ``get_audio_features``), joined: concatenated."""
    import torch

    return _join(outputs, lambda field, tensors: torch.cat(tensors))


def padded(fills: dict[str, object] | None = None):
    """A join for a method that returns one row per clip, frames along the second axis (Gemma 3n, Granite-Speech,
    Phi-4's encoder): each request's rows zero-padded to the longest (``fills`` gives another value per field, e.g.
    Gemma 3n's ``audio_mel_mask``: True, padding) and concatenated. The model reads each clip's own frames only (its
    mask, or its ``audio_embed_sizes``)."""
    fills = fills or {}

    def join(outputs: list):
        import torch  # when a model runs, not when a family module (or a benchmark's authors' prompts) is imported

        return _join(outputs, lambda field, tensors: torch.cat(_padded_alike(tensors, fills.get(field, 0))))

    return join


def _join(outputs: list, combine: Callable[[str, list], object]):
    """Tensor outputs combined; a ModelOutput's tensor fields each combined, its empty fields left empty."""
    import torch

    first = outputs[0]
    if isinstance(first, torch.Tensor):
        return combine("", outputs)
    fields = {}
    for field, value in first.items():
        values = [out.get(field) for out in outputs]
        if all(isinstance(v, torch.Tensor) for v in values):
            fields[field] = combine(field, values)
        elif all(v is None for v in values):
            fields[field] = None
        else:
            raise RuntimeError(f"hf-audio: the audio encoder's {field!r} output ({type(value).__name__}) cannot be "
                               "joined across requests; run with batch_size=1")
    return type(first)(**fields)


@dataclass(frozen=True)
class AudioMethod:
    """Where a family's model turns a call's audio inputs into what it scatters at the audio placeholders, and how one
    request's own processor output feeds it."""

    owner: str  # the attribute path from the loaded model to the object whose method it is ("" for the model itself)
    name: str  # the method: its forward calls it once per call with audio
    clips_key: str  # the processor output whose first axis counts a request's clips
    arguments: Callable[[dict], tuple[tuple, dict]]  # one request's processor output -> the method's arguments
    join: Callable[[list], object]  # the requests' results, in order -> the batch's
    encoder_only: tuple[str, ...] = ()  # processor outputs only this method reads (see :func:`collate`)
    # (one request's processor output, the model's config) -> whether the request's clips are encoded exactly alike
    # in one call with its neighbours' (each run of such requests in the batch then shares one call); None: never
    together: Callable[[dict, object], bool] | None = None


class EncodedAlone:
    """``method`` of the loaded model, run once per request of the call on that request's own processor output (set
    for the call with :meth:`rows_of`), or once per run of neighbouring requests the family's ``together`` says are
    encoded exactly alike together; the results joined as the batch's. The arguments the model passes are only
    checked against them. Called outside such a call (the model used directly), it runs as transformers defines it
    on a single clip and refuses several."""

    def __init__(self, model, method: AudioMethod, family: str) -> None:
        owner = model
        try:
            for part in filter(None, method.owner.split(".")):
                owner = getattr(owner, part)
            self.original = getattr(owner, method.name)
        except AttributeError as e:
            from transformers import __version__

            raise UnsupportedFamily(
                f"hf-audio: {family}: the loaded {type(model).__name__} has no {'.'.join(filter(None, (method.owner, method.name)))} "
                f"in transformers {__version__} ({e}), where hf-audio encodes each request's audio on its own; install "
                "the transformers of requirements/lock.txt") from e
        self.owner, self.method, self.family, self.config = owner, method, family, model.config
        self._rows: list[dict] | None = None
        setattr(owner, method.name, self)

    @contextlib.contextmanager
    def rows_of(self, inputs, to_device: Callable[[dict], dict]):
        """For the model call inside: the requests' own processor outputs (``inputs.rows``, on the model's device)."""
        rows = getattr(inputs, "rows", None)
        self._rows = None if rows is None else [to_device(dict(row)) for row in rows]
        try:
            yield
        finally:
            self._rows = None

    def __call__(self, *args, **kwargs):
        given = args[0] if args else next(iter(kwargs.values()))
        if self._rows is None:
            if given.shape[0] == 1:  # one clip: heard alone whatever the call
                return self.original(*args, **kwargs)
            raise RuntimeError(
                f"hf-audio: {self.family}'s audio encoder was called on {given.shape[0]} clips without its requests' own "
                "inputs; every call with audio goes through hf-audio's processor step (collate) so that each clip is "
                "encoded as alone")
        clips = [row[self.method.clips_key].shape[0] for row in self._rows]
        copies = given.shape[0] // sum(clips)  # generate() repeats each row's inputs once per beam or returned sequence
        if copies < 1 or given.shape[0] % sum(clips):
            raise RuntimeError(f"hf-audio: {self.family}'s audio encoder was given {given.shape[0]} clips for requests "
                               f"holding {sum(clips)}; the batch and its requests' inputs disagree")
        if copies > 1 and max(clips) > 1:
            raise RuntimeError(f"hf-audio: {self.family} with num_beams or num_return_sequences above 1 and a request "
                               "holding several clips: transformers repeats each clip, not each request, so the copies "
                               "would hear their clips in the wrong places; run such tasks with num_beams=1")
        passed = {k: v for k, v in kwargs.items() if k == "return_dict"}
        results, shared = [], []
        for row in [*self._rows, None]:
            if row is not None and copies == 1 and self.method.together and self.method.together(row, self.config):
                shared.append(row)
                continue
            for rows in ([shared] if shared else []) + ([[row]] if row is not None else []):
                call_args, call_kwargs = self.method.arguments(rows[0] if len(rows) == 1 else collate(rows, "right", 0))
                results += [self.original(*call_args, **call_kwargs, **passed)] * copies
            shared = []
        return self.method.join(results)
