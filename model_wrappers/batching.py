"""Batching for model wrappers: groups that never mix, heaviest first, order restored.

A batch shares one set of generation settings, so requests are first grouped (by
gen_kwargs, for instance); within a group the caller sorts heaviest first. With
``--batch_size auto`` the first batch of a request type is tried at max_batch_size and
halved on out-of-memory: it is the heaviest, so the size found holds for the rest.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable, Sequence

from tqdm import tqdm

log = logging.getLogger("lm_eval.audio.batching")


def is_out_of_memory(err: BaseException) -> bool:
    text = str(err).lower()
    return "out of memory" in text or "can't allocate memory" in text or "defaultcpuallocator" in text


class Batcher:
    """Runs items (anything with an ``index``) in batches; returns outputs by index order."""

    def __init__(self, batch_size: int | None, max_batch_size: int, name: str) -> None:
        self.batch_size = batch_size  # None: find it (--batch_size auto)
        self.max_batch_size = max_batch_size
        self.name = name
        self.found: dict[str, int] = {}  # request type -> size found by the auto search

    def run(
        self,
        kind: str,
        groups: Sequence[Sequence],
        run_batch: Callable[[list], list],
        desc: str,
        disable_tqdm: bool = False,
        on_result: Callable[[object, object], None] | None = None,
    ) -> list:
        """``groups`` each sorted heaviest first, and the heaviest group first (the auto search probes it).

        ``on_result(item, output)`` is called as each batch finishes (the wrappers hand each answer to
        lm-eval's request cache then, so a run killed midway keeps the batches already done).
        """
        results = _Results(on_result)
        pbar = tqdm(total=sum(len(g) for g in groups), desc=desc, disable=disable_tqdm)
        for group in groups:
            start = 0
            while start < len(group):
                size = self.batch_size or self.found.get(kind)
                if size is None:
                    done = self._probe(kind, list(group), run_batch, results)
                else:
                    batch = list(group[start : start + size])
                    results.add(batch, run_batch(batch))
                    done = len(batch)
                start += done
                pbar.update(done)
        pbar.close()
        return [results[i] for i in sorted(results)]

    def _probe(self, kind: str, items: list, run_batch, results: dict) -> int:
        """Run the first batch at the largest size that fits; returns how many items it ran."""
        import torch

        size = self.max_batch_size
        while True:
            batch = items[:size]
            try:
                outs = run_batch(batch)
            except (RuntimeError, torch.OutOfMemoryError) as e:
                if not is_out_of_memory(e) or size == 1:
                    raise
                gc.collect()
                if torch.cuda.is_available():
                    torch.cuda.empty_cache()
                size = max(1, size // 2)
                continue
            results.add(batch, outs)
            self.found[kind] = size
            log.info("%s: batch size %d for %s requests (--batch_size auto)", self.name, size, kind)
            return len(batch)


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
