"""Whether the packages the plugin runs on load together, said in one line when they do not.

A torch extension (torchaudio, torchvision) runs only with the torch it was built for, which its metadata does not
always say: torchaudio 2.11.1 declares ``torch>=2.11`` but its library needs torch 2.15's
(``undefined symbol: torch_exception_get_what_without_backtrace`` under torch 2.11.0), and torchaudio 2.11.0 stops
under torch 2.15 on its CUDA version. pip resolves such a pair without a word, and the failure then surfaces as a
traceback from deep inside transformers, after a model has loaded. So ``scripts/setup.sh`` runs this right after
installing, and ``lm_eval`` and ``lm-eval-audio`` run :func:`exit_if_broken` before a run starts::

    python -m lm_eval_audio.harness.install_check     # the versions in one line, or the problem in one line (exit 2)

It imports nothing heavy at module level: the point is to import the heavy packages one by one, under a guard.
"""

from __future__ import annotations

import sys
from importlib import import_module, metadata

# The torch extensions' releases each torch release was tested with here: requirements/lock.txt's pair
# (tests/test_lock.py checks it is listed) and the newest releases scripts/check_newest.sh ran the tests on.
TESTED_WITH_TORCH = {
    "2.11.0": {"torchaudio": "2.11.0", "torchvision": "0.26.0"},
    "2.15.0": {"torchaudio": "2.11.1", "torchvision": "0.29.2"},
}
TORCH_EXTENSIONS = ("torchaudio", "torchvision")
# The import name -> its distribution, in the order they are loaded (each needs the ones before it).
LOADED = (("torch", "torch"), ("torchaudio", "torchaudio"), ("torchvision", "torchvision"),
          ("transformers", "transformers"), ("lm_eval", "lm-eval"), ("lm_eval_audio.cli", "lm-eval-audio"))
OPTIONAL = {"torchvision"}  # only some families' extras install it
FROM_THE_LOCK = "or set the project up from its lock: bash scripts/setup.sh"


def installed(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _first_line(error: BaseException) -> str:
    """The error's first line, and its cause's: torch's library loader says only 'Could not load this library',
    and the loader's own error beneath it says why (an undefined symbol, a CUDA version)."""
    lines = []
    while error is not None and len(lines) < 2:
        text = str(error).strip().splitlines()
        lines.append(text[0] if text else type(error).__name__)
        error = error.__cause__
    line = ": ".join(lines)
    return line if len(line) <= 300 else line[:297] + "..."


def _unmet_requirement(distribution: str) -> tuple[str, str, str] | None:
    """The first requirement of ``distribution`` that the installed packages do not meet: (the package, the version
    installed or 'none', the requirement)."""
    from packaging.requirements import InvalidRequirement, Requirement

    for line in metadata.requires(distribution) or ():
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        version = installed(requirement.name)
        if version is None or not requirement.specifier.contains(version, prereleases=True):
            return requirement.name, version or "none", str(requirement)
    return None


def _extension_fix(extension: str, version: str, torch_version: str) -> str:
    base = torch_version.split("+")[0]
    tested = TESTED_WITH_TORCH.get(base, {}).get(extension)
    if tested:
        return (f"{extension} {version} does not load with torch {torch_version}; install the {extension} tested with "
                f"it: pip install '{extension}=={tested}', {FROM_THE_LOCK}")
    pairs = ", ".join(f"torch {t} with {extension} {p[extension]}" for t, p in TESTED_WITH_TORCH.items())
    return (f"{extension} {version} does not load with torch {torch_version}; install the {extension} release built "
            f"for torch {base} (tested here: {pairs}), {FROM_THE_LOCK}")


def problem() -> str | None:
    """None when torch, its extensions, transformers, lm-eval and the plugin load; else one line naming the packages
    that disagree and the command that fixes it."""
    for module, distribution in LOADED:
        version = installed(distribution)
        if version is None:
            if module in OPTIONAL:
                continue
            return f"{distribution} is not installed: pip install -e . in the project, {FROM_THE_LOCK}"
        try:
            import_module(module)
        except Exception as error:  # an extension's library raises OSError or RuntimeError, not ImportError
            why = _first_line(error)
            if module in TORCH_EXTENSIONS:
                return f"{_extension_fix(distribution, version, installed('torch') or 'none')} ({why})"
            unmet = _unmet_requirement(distribution)
            if unmet:
                name, has, wants = unmet
                return (f"{distribution} {version} does not load with {name} {has}: it requires {wants}; "
                        f"pip install '{wants}', {FROM_THE_LOCK} ({why})")
            return f"{distribution} {version} does not load ({why}); {FROM_THE_LOCK}"
    return None


def versions() -> str:
    names = [distribution for _, distribution in LOADED]
    return " | ".join(f"{name} {installed(name)}" for name in names if installed(name))


def exit_if_broken(program: str, deep: bool = False) -> None:
    """Stop ``program`` with :func:`problem`'s line and exit status 2, before anything else runs. ``deep`` (setup)
    also loads the plugin's model wrappers, which import transformers' model and processor classes."""
    found = problem() or (deep and _wrappers_problem())
    if found:
        sys.stderr.write(f"{program}: error: {found}\n")
        raise SystemExit(2)


# What a run imports next: a transformers that lacks a class or function they use stops setup here (a run would
# import them anyway, so the start-up check of lm_eval and lm-eval-audio leaves them to it).
WRAPPERS = ("lm_eval_audio.model_wrappers.hf_audio", "lm_eval_audio.model_wrappers.cascade",
            "lm_eval_audio.model_wrappers.openai_audio")


def _wrappers_problem() -> str | None:
    for module in WRAPPERS:
        try:
            import_module(module)
        except Exception as error:
            return (f"{module} does not load with transformers {installed('transformers')} ({_first_line(error)}): "
                    f"install a transformers release the tests ran on (README, 'The lock and the ranges'), {FROM_THE_LOCK}")
    return None


def main(argv: list[str] | None = None) -> None:
    """``python -m lm_eval_audio.harness.install_check [PROGRAM]``: PROGRAM names who says the line (setup)."""
    exit_if_broken(argv[0] if argv else "lm-eval-audio", deep=True)
    print(f"lm-eval-audio ready: {versions()}")


if __name__ == "__main__":
    main(sys.argv[1:])
