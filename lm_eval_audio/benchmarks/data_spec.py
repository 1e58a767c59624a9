"""Where a benchmark's data comes from, declared once: its folder's ``data.py`` holds one :class:`DataSpec` (the
environment variable and the ``--metadata`` key naming a local copy, the Hub repository or layout, the bundled
synthetic sample, what a local copy holds and what the errors say to do), and :func:`resolve` picks the source for
a run: the bundled sample where asked, else the local folder the ``--metadata`` key names (it wins) or the variable
does (an empty value is none), else the Hub repository at the run's revision (``hub_data.open_snapshot``: its
listing read, nothing fetched yet). Nothing else reads the variable or the key, so a benchmark's source is one
declaration, and its data check before the model loads (``Benchmark.check_data``) is that same resolution.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lm_eval_audio.benchmarks.hub_data import DataSource, Snapshot, open_snapshot, revision_for

# What the errors say to do, unless a benchmark writes its own (``DataSpec.advice``): filled with the spec's fields
# (``{variable}``, ``{metadata_key}``, ``{repo}``, ``{holds}``, ``{download}``, ``{sample_group}``, ``{local_dir}``).
ADVICE = ("Unset {variable} to let the tasks fetch it from the Hub, or download it yourself (`huggingface-cli download "
          "{repo} --repo-type dataset --local-dir {local_dir}`), then `export {variable}={local_dir}` or pass "
          "--metadata '{{\"{metadata_key}\": \"{local_dir}\"}}'. The folder must hold {holds}. To try the tasks "
          "without the data, run the synthetic `{sample_group}` group.")


@dataclass(frozen=True)
class DataSpec:
    """One benchmark's data source, as its folder declares it."""

    name: str  # as messages name the data: "AIR-Bench", "MMAU test-mini"
    variable: str  # the environment variable naming a local copy in the official layout
    metadata_key: str  # the --metadata key naming one (it wins over the variable)
    # The Hub: a dataset repository's id, or a layout object with ``repo_id`` (what a folder is made of, e.g.
    # ``choice_layout.HubLayout``); None where the data is not on the Hub in a layout the tasks read.
    hub: Any = None
    sample: Path | None = None  # the bundled synthetic sample, in the official layout (``<folder>/sample_data``)
    holds: str | tuple[str, ...] = ""  # what a local copy holds (the files tried in order, or words)
    download: str = ""  # how to download it by hand, where the advice says so
    # What an error says to do: a template of the spec's fields, or ``advice(spec, root)``
    advice: str | Callable[[DataSpec, Path | None], str] = ADVICE
    error: type[Exception] = ValueError  # the benchmark's data error
    local_dir: str = "/data/x"  # the folder the advice's example downloads into

    @property
    def repo(self) -> str | None:
        return self.hub if isinstance(self.hub, str) or self.hub is None else self.hub.repo_id

    @property
    def folder(self) -> Path | None:
        """The benchmark's folder: the one holding its sample (``sample_data/``)."""
        return self.sample.parent if self.sample is not None else None

    @property
    def sample_group(self) -> str:
        """The bundled sample's group: ``<folder>_sample``."""
        return f"{self.folder.name}_sample" if self.sample is not None else ""

    def help(self, root: Path | None = None) -> str:
        """What to do where the data is not there (``root``: the local folder set, where one is)."""
        if callable(self.advice):
            return self.advice(self, root)
        holds = " or ".join(self.holds) if isinstance(self.holds, tuple) else self.holds
        return self.advice.format(variable=self.variable, metadata_key=self.metadata_key, repo=self.repo, holds=holds,
                                  download=self.download, sample_group=self.sample_group, local_dir=self.local_dir)


def chosen(spec: DataSpec, metadata: dict) -> str | None:
    """The local folder a run names, as given: ``--metadata``'s key, else the variable; None (an empty value too)
    for the Hub."""
    return metadata.get(spec.metadata_key) or os.environ.get(spec.variable) or None


def open_hub(spec: DataSpec, metadata: dict, repo: str | None = None) -> Snapshot:
    """The spec's repository (or ``repo``, another the benchmark reads beside it) at the run's revision, its errors
    naming the benchmark and its variable."""
    repo = repo or spec.repo
    return open_snapshot(repo, revision_for(repo, metadata), spec.name, spec.variable)


def resolve(spec: DataSpec, metadata: dict, sample: bool = False) -> DataSource:
    """Where a run reads the benchmark's data: the bundled sample (``sample``), the local folder (checked to exist),
    or the Hub snapshot (its listing read, nothing fetched): a :class:`~hub_data.DataSource` with no file read yet."""
    if sample:
        if spec.sample is None:
            raise spec.error(f"{spec.name} has no bundled sample")
        return DataSource(spec.sample)
    raw = chosen(spec, metadata)
    if raw:
        root = Path(raw).expanduser()
        if not root.is_dir():
            raise spec.error(f"{spec.name} data folder {str(root)!r} does not exist. " + spec.help(root))
        return DataSource(root)
    if spec.repo is None:
        raise spec.error(f"{spec.name} is not on the Hugging Face Hub in the layout its official evaluation reads, so "
                         "it cannot be fetched for you, and no local folder is set. " + spec.help())
    snapshot = open_hub(spec, metadata)
    return DataSource(snapshot.root, snapshot)


def is_sample_task(task: str) -> bool:
    """Whether ``task`` (a task or group name) is a benchmark's bundled synthetic sample (``<benchmark>_sample...``)."""
    return "_sample" in task


def listed_source(spec: DataSpec, metadata: dict, sample: bool, listing: str | tuple[str, ...],
                  what: str) -> DataSource:
    """The source of a benchmark whose tasks read listing files (``listing``, one or several, relative to its
    folder), then only the clips their documents name: the bundled sample, the local folder, or the Hub snapshot with
    the listings fetched (the clips come when the run's documents are known). Without a listing, one line naming the
    folder or repository and the fix."""
    listings = (listing,) if isinstance(listing, str) else tuple(listing)
    source = resolve(spec, metadata, sample)
    snapshot = source.snapshot
    if snapshot is None:
        for name in listings:
            if not (source.root / name).is_file():
                raise spec.error(f"{spec.name} folder {str(source.root)!r} holds no {name}. " + spec.help())
        return source.reading([source.root / name for name in listings])
    for name in listings:
        if name not in snapshot.files:
            raise spec.error(f"{snapshot.label} lists no {name}: not the layout this plugin reads. " + spec.help())
    snapshot.fetch([snapshot.files[name] for name in listings], what, needed_to_plan=True)
    return DataSource(snapshot.root, snapshot, listings)


def real_tasks(tasks: list[str]) -> bool:
    """Whether a run names a task that reads the benchmark's data (not only its bundled sample)."""
    return not all(is_sample_task(t) for t in tasks)


def data_check(data_module: str, attribute: str = "DATA", settings: Callable[[dict], object] | None = None):
    """A folder's ``Benchmark.check_data`` derived from its spec: ``settings(metadata)`` (its ``--metadata``
    settings read, and refused alike), then, where the run names a task that is not the sample's, :func:`resolve`:
    a local copy, where one is set, exists, or else the Hub repository answers (or the cache holds it, offline); the
    files are fetched by each task as it loads: only what it reads. ``data_module`` names the module holding the
    spec (``attribute``), imported only when a run has its tasks."""

    def check(tasks: list[str], metadata: dict) -> None:
        import importlib

        if settings is not None:
            settings(metadata)
        if real_tasks(tasks):
            resolve(getattr(importlib.import_module(data_module), attribute), metadata)

    return check
