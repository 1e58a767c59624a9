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
    from lm_eval_audio.benchmarks.hub_access import cache_root

    return (f"point HF_ENDPOINT at a Hub mirror you can reach, or download it where there is internet (`hf download "
            f"<id>` fills the same cache, HF_HUB_CACHE={cache_root()}) and run with HF_HUB_OFFLINE=1")


def local_path(name: str) -> str:
    """``name`` with a leading ``~`` expanded (a shell leaves it in ``pretrained=~/m``, and transformers does not
    expand it): what the checks and the load both read."""
    return os.path.expanduser(name) if isinstance(name, str) and name.startswith("~") else name


def _looks_local(name: str) -> bool:
    """Not a Hub repository id, as huggingface_hub's own rule has it (so a name it would refuse is said to be no
    folder here, in one line)."""
    from huggingface_hub.errors import HFValidationError
    from huggingface_hub.utils import validate_repo_id

    if name.startswith(("/", ".", "~")) or name.count("/") > 1 or not _HUB_ID.match(name):
        return True
    try:
        validate_repo_id(name)
    except HFValidationError:
        return True
    return False


def config_json(who: str, pretrained: str, revision: str | None = None, gguf_file: str | None = None,
                argument: str = "pretrained") -> dict:
    """The checkpoint's config.json (or a GGUF file's metadata) as a dict, found as transformers will find it, or
    :class:`CheckpointNotFound` naming the model argument (``argument=pretrained``) and what to do."""
    from transformers import PretrainedConfig

    gguf = {"gguf_file": gguf_file} if gguf_file else {}
    folder = local_path(pretrained)
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
    _reach_hub(f"{who}: {argument}", pretrained, revision, gguf_file or "config.json")
    from lm_eval_audio.benchmarks.hub_access import cache_root

    try:
        return PretrainedConfig.get_config_dict(pretrained, revision=revision, cache_dir=str(cache_root()), **gguf)[0]
    except (OSError, ValueError) as e:
        raise CheckpointNotFound(f"{who}: {argument}={pretrained}: the Hub has no readable config.json for it "
                                 f"({str(e).splitlines()[0][:200]}; a gated or private model wants HF_TOKEN); "
                                 f"{_local_advice()}") from None


def hub_snapshot(who: str, model: str, files: tuple[str, ...], argument: str = "pretrained") -> str:
    """The folder of Hub id ``model``'s ``files`` (a checkpoint transformers does not load: FunASR's, say) in the Hub
    cache, fetched there on first use; :class:`CheckpointNotFound` naming ``argument`` and what to do otherwise."""
    from huggingface_hub import snapshot_download

    from lm_eval_audio.benchmarks.hub_access import cache_root, offline

    if _looks_local(model):
        raise CheckpointNotFound(f"{who}: {argument}={model}: no such folder (from {os.getcwd()}); give a local "
                                 f"folder holding {', '.join(files)}, or a Hub id")
    _reach_hub(f"{who}: {argument}", model, None, files[0])
    try:
        return snapshot_download(model, allow_patterns=list(files), cache_dir=str(cache_root()),
                                 local_files_only=offline())
    except Exception as e:  # cached in part, a broken download, a file the repository lacks
        raise CheckpointNotFound(f"{who}: {argument}={model}: its files ({', '.join(files)}) could not be had "
                                 f"({type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}); "
                                 f"{_hub_advice().replace('<id>', model)}") from None


def _reach_hub(named: str, repo_id: str, revision: str | None, probe_file: str) -> None:
    """``named`` (``hf-audio: pretrained``): the Hub id is in the cache (``probe_file`` there, offline) or answered
    for by the Hub, in one try without retries."""
    from huggingface_hub import HfApi, try_to_load_from_cache
    from huggingface_hub.errors import GatedRepoError, HfHubHTTPError, RepositoryNotFoundError, RevisionNotFoundError

    from lm_eval_audio.benchmarks.hub_access import cache_root, endpoint, offline

    # the cache, the mirror and offline mode as the data's are found: from the environment when asked
    cached = try_to_load_from_cache(repo_id, probe_file, cache_dir=cache_root(), revision=revision)
    if isinstance(cached, str):
        return
    if offline():
        raise CheckpointNotFound(
            f"{named}={repo_id} is no folder here (from {os.getcwd()}) and not in the Hugging Face cache (HF_HUB_CACHE={cache_root()}) "
            f"and HF_HUB_OFFLINE=1 forbids the Hub: download it there where there is internet (`hf download "
            f"{repo_id}`), or unset HF_HUB_OFFLINE (HF_ENDPOINT for a mirror), or {_local_advice()}")
    try:
        HfApi(endpoint=endpoint()).model_info(repo_id, revision=revision, timeout=_PROBE_SECONDS)
    except GatedRepoError:
        raise CheckpointNotFound(f"{named}={repo_id} is gated: accept its terms on its Hub page and export HF_TOKEN "
                                 "with a token of that account") from None
    except RevisionNotFoundError:
        raise CheckpointNotFound(f"{named}={repo_id}: no revision {revision!r}") from None
    except RepositoryNotFoundError:
        raise CheckpointNotFound(
            f"{named}={repo_id} is neither a folder here (from {os.getcwd()}) nor a model the Hub at "
            f"{endpoint() or 'https://huggingface.co'} knows (private? export HF_TOKEN); {_local_advice()}") from None
    except HfHubHTTPError:
        return  # an answer, not one we can read (a mirror without the models API): transformers asks for config.json
    except Exception as e:  # no answer at all: no network, a wrong HF_ENDPOINT, a proxy, a time-out
        raise CheckpointNotFound(
            f"{named}={repo_id} is no folder here (from {os.getcwd()}) and the Hub at {endpoint() or 'https://huggingface.co'} cannot be reached "
            f"({type(e).__name__}: {str(e)[:120]}); {_hub_advice().replace('<id>', repo_id)}; or "
            f"{_local_advice()}") from None


def hub_revision(model: str) -> str | None:
    """The commit of a Hub checkpoint in the cache, for the results (None for a local folder, or one not cached)."""
    if os.path.isdir(local_path(model)):
        return None
    try:
        from huggingface_hub import snapshot_download

        folder = snapshot_download(model, local_files_only=True)
    except Exception:
        return None
    return os.path.basename(folder)
