"""Where a checkpoint comes from, found before any weight loads: a local folder, or a Hugging Face Hub id that the
cache holds or the Hub (or ``HF_ENDPOINT``'s mirror) answers for. Anything else is one line that says what to do
(:class:`CheckpointNotFound`), within seconds: ``huggingface_hub``'s own download retries an unreachable Hub
for about 20 s per file, and transformers then fails with a long traceback."""

from __future__ import annotations

import os
import re

# A Hub repository id: "name" or "owner/name" (huggingface_hub's own rule: letters, digits, "-", "_", ".").
_HUB_ID = re.compile(r"^(?:[\w.-]+/)?[\w.-]+$")
_PROBE_SECONDS = 10


class CheckpointNotFound(ValueError):
    """A checkpoint that is neither a local folder nor reachable on the Hub; the message says what to do."""


def _local_advice() -> str:
    return "give a local folder holding config.json and the weights"


def _hub_advice() -> str:
    from huggingface_hub import constants

    return (f"point HF_ENDPOINT at a Hub mirror you can reach, or download it where there is internet (`hf download "
            f"<id>` fills the same cache, HF_HUB_CACHE={constants.HF_HUB_CACHE}) and run with HF_HUB_OFFLINE=1")


def _looks_local(name: str) -> bool:
    return name.startswith(("/", ".", "~")) or name.count("/") > 1 or not _HUB_ID.match(name)


def config_json(who: str, pretrained: str, revision: str | None = None, gguf_file: str | None = None,
                argument: str = "pretrained") -> dict:
    """The checkpoint's config.json (or a GGUF file's metadata) as a dict, found as transformers will find it, or
    :class:`CheckpointNotFound` naming the model argument (``argument=pretrained``) and what to do."""
    from transformers import PretrainedConfig

    gguf = {"gguf_file": gguf_file} if gguf_file else {}
    folder = os.path.expanduser(pretrained)
    if os.path.isdir(folder):
        try:
            return PretrainedConfig.get_config_dict(folder, revision=revision, **gguf)[0]
        except (OSError, ValueError) as e:
            wanted = f"the GGUF file {gguf_file}" if gguf_file else "config.json"
            raise CheckpointNotFound(f"{who}: {argument}={pretrained} is a folder without a readable {wanted} "
                                     f"({type(e).__name__}): {_local_advice()}") from None
    if _looks_local(pretrained):
        raise CheckpointNotFound(f"{who}: {argument}={pretrained}: no such folder (from {os.getcwd()}); "
                                 f"{_local_advice()}, or a Hub id such as Qwen/Qwen2-Audio-7B-Instruct")
    _reach_hub(f"{who}: {argument}", pretrained, revision, gguf_file)
    try:
        return PretrainedConfig.get_config_dict(pretrained, revision=revision, **gguf)[0]
    except (OSError, ValueError) as e:
        raise CheckpointNotFound(f"{who}: {argument}={pretrained}: the Hub has no readable config.json for it "
                                 f"({str(e).splitlines()[0][:200]}); {_local_advice()}") from None


def _reach_hub(named: str, repo_id: str, revision: str | None, gguf_file: str | None) -> None:
    """``named`` (``hf-audio: pretrained``): the Hub id is in the cache (offline) or answered for by the Hub, in one try without retries."""
    from huggingface_hub import HfApi, constants, try_to_load_from_cache
    from huggingface_hub.errors import GatedRepoError, HfHubHTTPError, RepositoryNotFoundError, RevisionNotFoundError

    cached = try_to_load_from_cache(repo_id, gguf_file or "config.json", revision=revision)
    if isinstance(cached, str):
        return
    if constants.HF_HUB_OFFLINE:
        raise CheckpointNotFound(
            f"{named}={repo_id} is no folder here (from {os.getcwd()}) and not in the Hugging Face cache (HF_HUB_CACHE={constants.HF_HUB_CACHE}) "
            f"and HF_HUB_OFFLINE=1 forbids the Hub: download it there where there is internet (`hf download "
            f"{repo_id}`), or unset HF_HUB_OFFLINE (HF_ENDPOINT for a mirror), or {_local_advice()}")
    try:
        HfApi().model_info(repo_id, revision=revision, timeout=_PROBE_SECONDS)
    except GatedRepoError:
        raise CheckpointNotFound(f"{named}={repo_id} is gated: accept its terms on its Hub page and export HF_TOKEN "
                                 "with a token of that account") from None
    except RevisionNotFoundError:
        raise CheckpointNotFound(f"{named}={repo_id}: no revision {revision!r}") from None
    except RepositoryNotFoundError:
        raise CheckpointNotFound(
            f"{named}={repo_id} is neither a folder here (from {os.getcwd()}) nor a model the Hub at "
            f"{constants.ENDPOINT} knows (private? export HF_TOKEN); {_local_advice()}") from None
    except HfHubHTTPError:
        return  # an answer, not one we can read (a mirror without the models API): transformers asks for config.json
    except Exception as e:  # no answer at all: no network, a wrong HF_ENDPOINT, a proxy, a time-out
        raise CheckpointNotFound(
            f"{named}={repo_id} is no folder here (from {os.getcwd()}) and the Hub at {constants.ENDPOINT} cannot be reached "
            f"({type(e).__name__}: {str(e)[:120]}); {_hub_advice().replace('<id>', repo_id)}; or "
            f"{_local_advice()}") from None
