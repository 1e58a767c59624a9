"""Where the Hugging Face Hub is for this process, read when asked (``HF_HUB_CACHE``/``HF_HOME``, ``HF_ENDPOINT``,
``HF_HUB_OFFLINE``), and what an error says to do when a benchmark's data cannot be had from it: one place for the
advice, so it names the tasks the command named and never the command that just failed."""

from __future__ import annotations

import os
from pathlib import Path

from lm_eval_audio.benchmarks.hub_files import HubDataError
from lm_eval_audio.storage import run_state


def cache_root() -> Path:
    """The Hugging Face cache, resolved as ``huggingface_hub`` resolves it, read when asked (not at import)."""
    from huggingface_hub import constants

    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    return Path(constants.HF_HUB_CACHE)


def endpoint() -> str | None:
    return os.environ.get("HF_ENDPOINT", "").rstrip("/") or None


def offline() -> bool:
    """``HF_HUB_OFFLINE``, as ``huggingface_hub`` read it (at its import): the client refuses the network then."""
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE)


def without_the_hub(local_folder: str | None) -> str:
    """What to do where a benchmark's Hub data cannot be had here: fetch it ahead (``download`` for exactly the tasks
    the command named) into the cache and run with HF_HUB_OFFLINE=1, a mirror (HF_ENDPOINT), or a local copy (the
    benchmark's variable, ``local_folder``)."""
    # the tasks the command under way named, and whether it is ``download`` (storage.run_state): what to do names
    # exactly those tasks, and never the command that just failed
    run = run_state.current()
    tasks, downloading = run.asked, run.downloading
    if downloading:
        steps = ["run it where there is internet" + (" (HF_HUB_OFFLINE=1 is set here: unset it)" if offline() else ""),
                 "point HF_ENDPOINT at a Hub mirror you can reach"]
    else:
        steps = [f"fetch it where there is internet with `lm-eval-audio download --tasks "
                 f"{','.join(tasks) or '<the tasks you run>'}`, into the same cache (HF_HOME or HF_HUB_CACHE), and "
                 "run with HF_HUB_OFFLINE=1",
                 "point HF_ENDPOINT at a Hub mirror you can reach" + (" and unset HF_HUB_OFFLINE" if offline() else "")]
    if local_folder:
        steps.append(f"set {local_folder} to a copy in the official layout")
    return "; or ".join(steps)


def hub_error(e: Exception, snapshot_or_repo, path: str | None = None, local_folder: str | None = None) -> HubDataError:
    """One line for what the Hub or the network refused, and what to do."""
    from huggingface_hub import errors

    if isinstance(e, HubDataError):
        return e
    repo = getattr(snapshot_or_repo, "repo_id", snapshot_or_repo)
    local_folder = local_folder or getattr(snapshot_or_repo, "local_folder", None)
    where = f"{repo}" + (f" ({path})" if path else "")
    status = getattr(getattr(e, "response", None), "status_code", None)
    hub = endpoint() or "https://huggingface.co"
    if isinstance(e, errors.GatedRepoError) or status in (401, 403):
        return HubDataError(
            f"the Hub refused {where} (HTTP {status or 401}): the dataset is gated or private. Accept its terms at "
            f"{hub}/datasets/{repo} with your account, then set HF_TOKEN to a token of that account")
    if isinstance(e, errors.RevisionNotFoundError):
        return HubDataError(f"{repo} has no such revision: pass a branch, tag or commit it has (data_revision, or "
                            "data_revisions: {repo: revision}, in --metadata)")
    if isinstance(e, errors.RepositoryNotFoundError) or status == 404:
        return HubDataError(f"{where} is not on the Hub at {hub}: check HF_ENDPOINT"
                            + (f", or set {local_folder} to a local copy" if local_folder else ""))
    if isinstance(e, (errors.OfflineModeIsEnabled, errors.LocalEntryNotFoundError)):
        return HubDataError(f"{where}: HF_HUB_OFFLINE=1 forbids the Hub and it is not in the cache: "
                            f"{without_the_hub(local_folder)}")
    text = " ".join(str(e).split())  # one line, whatever the client's message holds
    return HubDataError(f"{where}: fetching from {hub} failed ({type(e).__name__}: {text}); run again to resume "
                        f"(what was fetched is kept); without a network to the Hub here, {without_the_hub(local_folder)}")
