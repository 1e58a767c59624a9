"""Batching for model wrappers: groups that never mix, heaviest first, order restored, and batches that do not fit
retried smaller.

A batch shares one set of generation settings, so requests are first grouped (by gen_kwargs, for instance); within a
group the caller sorts heaviest first. With ``--batch_size auto`` the first batch of a request type is tried at
max_batch_size and halved until it fits: it is the heaviest, so the size found usually holds for the rest. Any later
batch that runs out of memory (a fixed ``--batch_size`` too large for the card, a longer answer than the first batch's)
is run again in parts of half its size, and that request type's following batches run at the largest size that fitted:
each such retry is logged and counted in the results (``lm_eval_audio_data.out_of_memory_retries``), so a run does not
die after hours for one batch too many. A request that does not fit even alone is answered as a counted failure
(``unfit``, for generation and log-likelihoods), not a crash, and does not lower the size for the others.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable, Sequence

from tqdm import tqdm

log = logging.getLogger("lm_eval.audio.batching")

OUT_OF_MEMORY_RETRIES = "out_of_memory_retries"  # lm_eval_audio_data: request type -> batches retried smaller


def is_out_of_memory(err: BaseException) -> bool:
    text = str(err).lower()
    return "out of memory" in text or "can't allocate memory" in text or "defaultcpuallocator" in text


def _free_memory() -> None:
    import torch

    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


class Batcher:
    """Runs items (anything with an ``index``) in batches; returns outputs by index order."""

    def __init__(self, batch_size: int | None, max_batch_size: int, name: str) -> None:
        self.batch_size = batch_size  # None: find it (--batch_size auto)
        self.max_batch_size = max_batch_size
        self.name = name
        self.found: dict[str, int] = {}  # request type -> the size its batches run at (lm-eval records it)

    def run(
        self,
        kind: str,
        groups: Sequence[Sequence],
        run_batch: Callable[[list], list],
        desc: str,
        disable_tqdm: bool = False,
        on_result: Callable[[object, object], None] | None = None,
        unfit: Callable[[object, str], object] | None = None,
        notes=None,
    ) -> list:
        """``groups`` each sorted heaviest first, and the heaviest group first (the auto search probes it).

        ``on_result(item, output)`` is called as each batch finishes (the wrappers hand each answer to lm-eval's request
        cache then, so a run killed midway keeps the batches already done). ``unfit(item, error)`` answers a request
        that runs out of memory alone (without it, that error is raised); ``notes`` (the wrapper's run notes) counts
        the batches retried smaller.
        """
        results = _Results(on_result)
        pbar = tqdm(total=sum(len(g) for g in groups), desc=desc, disable=disable_tqdm)
        for group in groups:
            start = 0
            while start < len(group):
                size = self.found.get(kind) or self.batch_size or self.max_batch_size
                batch = list(group[start : start + size])
                searching = self.batch_size is None and kind not in self.found  # --batch_size auto, not found yet
                fitted = self._fitting(kind, batch, size, run_batch, results, unfit, notes, searching)
                if fitted and (searching or fitted < size):
                    self.found[kind] = fitted
                    if searching:
                        log.info("%s: batch size %d for %s requests (--batch_size auto)", self.name, fitted, kind)
                start += len(batch)
                pbar.update(len(batch))
        pbar.close()
        return [results[i] for i in sorted(results)]

    def _fitting(self, kind: str, batch: list, size: int, run_batch, results, unfit, notes, searching: bool) -> int:
        """Run ``batch`` (at most ``size`` requests); where it runs out of memory, run it again in parts of half the
        size (and so on down to single requests). Returns the largest size shown to fit: a part as large as its size
        that ran (0 where none did; a shorter part, a group's last, shows nothing, nor does a request that does not fit
        even alone, which says nothing of the batch size)."""
        import torch

        try:
            results.add(batch, run_batch(batch))
        except (RuntimeError, torch.OutOfMemoryError) as e:
            if not is_out_of_memory(e):
                raise
            error = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
        else:
            return size if len(batch) == size else 0
        _free_memory()  # outside the except block: its traceback holds the failed batch's tensors
        if len(batch) == 1:
            if unfit is None:
                raise RuntimeError(f"{self.name}: one {kind} request does not fit in memory alone ({error}); run on a "
                                   "device with more memory")
            log.warning("%s: a %s request does not fit in memory even alone; it is answered as a failed request (%s)",
                        self.name, kind, error)
            results.add(batch, [unfit(batch[0], f"out of memory at batch size 1 ({error})")])
            return 0
        half = max(1, min(size // 2, len(batch) - 1))  # fewer than the batch held, so each retry makes progress
        if not searching:
            if notes is not None:
                notes.add(OUT_OF_MEMORY_RETRIES, kind, 1)
            log.warning("%s: a batch of %d %s requests ran out of memory (%s); it runs again in batches of %d, and the "
                        "following %s batches at the largest size that fits (counted in the results under "
                        "lm_eval_audio_data.%s)", self.name, len(batch), kind, error, half, kind, OUT_OF_MEMORY_RETRIES)
        return max(self._fitting(kind, batch[at : at + half], half, run_batch, results, unfit, notes, searching)
                   for at in range(0, len(batch), half))


class _Results(dict):
    """Outputs by item index, announced to ``on_result`` as they arrive."""

    def __init__(self, on_result) -> None:
        super().__init__()
        self._on_result = on_result

    def add(self, batch: list, outs: list) -> None:
        for item, out in zip(batch, outs, strict=True):
            self[item.index] = out
            if self._on_result is not None:
                self._on_result(item, out)
