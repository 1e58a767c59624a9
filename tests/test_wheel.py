"""The plugin as a wheel: what it holds, and every benchmark's bundled sample run from it once installed.

The wheel is built from a clean copy of the checkout's files (those git tracks, and new ones it does not ignore),
so a stale ``build/`` folder cannot add what ``setup.cfg`` leaves out, and the checkout itself is not written to.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import pytest
from conftest import REPO, results_json

# setup.cfg's package_dir: the folder each package's files come from -> where they are in the wheel
PACKAGE_DIRS = {"lm_eval_audio": "lm_eval_audio", "model_wrappers": "lm_eval_audio/model_wrappers",
                "judges": "lm_eval_audio/judges", "tasks": "lm_eval_audio/tasks"}
# lm_eval_audio_data kinds that say a sample lacks something (a folder, a clip, a task, a row): none may be noted.
# The samples answered in speech are answered this far from the wheel: each task and its data files, without speaking,
# recording and transcribing every answer again on CPU (tests/test_urobench.py, test_seedtts.py, test_spoken_answers.py
# run them through the checkout; the loaders' tests read every line of every sample).
SPOKEN_LIMIT = 1
DATA_PROBLEM = re.compile(r"missing|absent|unusable|invalid|unmatched|unknown|repeated|not_in|failed|error|problem")


def _ok(proc, what="command"):
    assert proc.returncode == 0, (f"{what}: exit {proc.returncode}\nSTDOUT:\n{proc.stdout[-3000:]}\n"
                                  f"STDERR:\n{proc.stderr[-6000:]}")
    return proc


def _source_files() -> list[str]:
    """The checkout's files a release is built from: tracked and new, not ignored, present on disk."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs a git checkout (the files a wheel is built from are what git lists)")
    listed = _ok(subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                                capture_output=True, text=True), "git ls-files").stdout.split("\0")
    return sorted({f for f in listed if f and (REPO / f).is_file() and "__pycache__" not in f.split("/")})


def _can_build_without_isolation() -> bool:
    """Whether this environment's setuptools builds wheels itself (70.1 and later) or has the wheel package."""
    import setuptools

    major, minor = (int(p) for p in re.findall(r"\d+", setuptools.__version__)[:2])
    return (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None


@pytest.fixture(scope="module")
def source_files() -> list[str]:
    return _source_files()


@pytest.fixture(scope="module")
def wheel(source_files, tmp_path_factory) -> Path:
    """The wheel pip builds from a clean copy of the checkout, offline where this environment can build it."""
    src, out = tmp_path_factory.mktemp("wheel_src"), tmp_path_factory.mktemp("wheel")
    for name in source_files:
        if name.endswith(".whl"):
            continue  # a wheel lying in the checkout (a tool's) is no source
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, src / name)
    # --no-build-isolation builds with this environment's setuptools, offline; where that setuptools cannot
    # build a wheel (before 70.1, without the wheel package), pip's isolated build fetches setuptools and wheel
    # from the configured index.
    isolation = ["--no-build-isolation", "--no-index"] if _can_build_without_isolation() else []
    _ok(subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", *isolation, "-w", str(out), str(src)],
                       capture_output=True, text=True, timeout=600), "pip wheel")
    (found,) = out.glob("lm_eval_audio-*.whl")
    return found


def test_wheel_contains_hook_tasks_and_wrappers(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "lm_eval_audio.pth" in names
    for name in (
        "lm_eval_audio/harness/startup.py",
        "lm_eval_audio/harness/patches.py",
        "lm_eval_audio/harness/task_patches.py",
        "lm_eval_audio/tasks/airbench/benchmark.py",
        "lm_eval_audio/tasks/mmau_pro/scoring.py",
        "lm_eval_audio/benchmarks/registry.py",
        "lm_eval_audio/harness/targets.py",
        "lm_eval_audio/storage/run_state.py",
        "lm_eval_audio/model_wrappers/hf_audio.py",
        "lm_eval_audio/model_wrappers/openai_audio.py",
        "lm_eval_audio/model_wrappers/cascade.py",
        "lm_eval_audio/judges/__init__.py",
        "lm_eval_audio/judges/smoke_test_judge.py",
        "lm_eval_audio/tasks/spoken_digits/spoken_digits_gen.yaml",
        "lm_eval_audio/tasks/spoken_digits/_default_template_yaml",
        "lm_eval_audio/tasks/spoken_digits/audio/seven.flac",
        "lm_eval_audio/tasks/spoken_digits/utils.py",
        "lm_eval_audio/judges/judge_engine.py",
        "lm_eval_audio/judges/local_server.py",
        "lm_eval_audio/tasks/airbench/_chat_template_yaml",
        "lm_eval_audio/tasks/airbench/airbench_foundation.yaml",
        "lm_eval_audio/tasks/airbench/utils.py",
        "lm_eval_audio/tasks/airbench/sample_data/Foundation/Foundation_meta.json",
        "lm_eval_audio/tasks/airbench/sample_data/Chat/Chat_meta.json",
        "lm_eval_audio/tasks/airbench/sample_data/Foundation/Audio_Grounding_lm_eval_audio_synthetic/grounding_00.flac",
        # the kinds of file a pattern list once left out
        "lm_eval_audio/tasks/muchomusic/sample_data/muchomusic.csv",
        "lm_eval_audio/tasks/bigbench_audio/sample_data/data/question_0.mp3",
    ):
        assert name in names, name
    assert not any(n.startswith(("judges/", "tasks/", "model_wrappers/")) for n in names)
    entry_points = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "hf-audio = lm_eval_audio.model_wrappers.hf_audio:HFAudioLM" in entry_points
    assert "openai-audio = lm_eval_audio.model_wrappers.openai_audio:OpenAIAudioLM" in entry_points
    assert "cascade = lm_eval_audio.model_wrappers.cascade:CascadeLM" in entry_points


def test_wheel_holds_every_file_of_the_packages(wheel, source_files):
    """Each file of tasks/ (whatever its extension) and of the other package folders is in the wheel, where the
    package reads it; and tasks/ in the wheel is exactly those files (no byte code, nothing else)."""
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {}
    for name in source_files:
        top, _, rest = name.partition("/")
        if top in PACKAGE_DIRS and rest:
            expected[name] = f"{PACKAGE_DIRS[top]}/{rest}"
    assert sum(n.startswith("tasks/") for n in expected) > 100  # the listing found the task folders
    missing = sorted(source for source, in_wheel in expected.items() if in_wheel not in names)
    assert not missing, f"{len(missing)} file(s) not in the wheel (setup.cfg's package_data): {missing[:20]}"
    tasks_in_wheel = {n for n in names if n.startswith("lm_eval_audio/tasks/")}
    assert tasks_in_wheel == {w for s, w in expected.items() if s.startswith("tasks/")}


# ---------------------------------------------------------------------------------------------------------------
# every sample, run through lm_eval from the wheel installed in a scratch environment


def _sample_tasks() -> list[str]:
    """What to run, found from the checkout: each benchmark's synthetic ``*_sample`` group (one per benchmark folder
    that bundles a ``sample_data/``), and each task folder that is no benchmark but bundles its own data, by the
    task, group or tag named after its folder (spoken_digits)."""
    from lm_eval_audio.benchmarks import registry

    found = registry.sample_names()
    for benchmark in registry.all_benchmarks():
        own = [n for n in found if n.endswith("_sample") and registry.of_task(n) is benchmark]
        if (benchmark.folder / "sample_data").is_dir():
            assert len(own) == 1, f"{benchmark.key} bundles sample_data/ but its *_sample task or group is {own}"
    assert len(found) >= 14, found
    return found


def _answered_in_speech(sample: str) -> bool:
    """Whether a sample's tasks are answered in speech (their YAML's ``spoken_answers``): a model that speaks runs
    them."""
    from lm_eval_audio.benchmarks import registry
    from lm_eval_audio.metrics.spoken_answer import is_spoken

    return any(is_spoken(config.get("metadata")) for config in registry.task_configs([sample]).values())


def _checkout_documents(tasks: list[str]) -> tuple[dict[str, int], dict[str, set[str]]]:
    """From the checkout, in this process: each leaf task's number of documents, and each of ``tasks``' leaves."""
    from lm_eval.tasks import TaskManager

    manager, counts, leaves = TaskManager(), {}, {}
    for name in tasks:  # one at a time: a tag (spoken_digits) comes to its tasks with no group between
        loaded = manager.load(name)["tasks"]
        leaves[name] = set(loaded)
        counts.update((task_name, len(task.eval_docs)) for task_name, task in loaded.items())
    return counts, leaves


def _clean_env(extra: dict | None = None) -> dict:
    """This environment without what would point a run elsewhere: Python's own variables (PYTHONPATH), a judge
    endpoint, the plugin's settings and any benchmark's data folder (``*_DATA_DIR``)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "OPENAI_", "LM_EVAL_AUDIO_", "VIRTUAL_ENV")) and not k.endswith("_DATA_DIR")}
    env.update(PYTHONNOUSERSITE="1", HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
               **(extra or {}))
    return env


def _scratch_env(wheel: Path, root: Path) -> tuple[Path, Path]:
    """A virtual environment at ``root`` with the wheel installed (no dependencies), that imports the dependencies
    from this environment's site-packages but not the checkout: (its python, its site-packages).

    Its own site-packages gets a .pth file listing this environment's site-packages folders. A folder a .pth line
    names is put on sys.path as it is: the .pth files inside it are not run, so the editable install's finder
    (``__editable__.lm_eval_audio-*.pth``, which maps lm_eval_audio to the checkout) and this environment's copy
    of the startup hook never run there. The scratch env's own site-packages comes first on sys.path, so its
    lm_eval_audio and its dist-info (entry points, version) are found before anything of this environment's."""
    _ok(subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], capture_output=True, text=True),
        "python -m venv")
    python = root / "bin" / "python"
    site_packages = Path(_ok(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=root,
        env=_clean_env(), capture_output=True, text=True)).stdout.strip())
    # installed before the dependencies' folder is visible: pip there sees only the scratch env's own packages
    _ok(subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
                        "--no-cache-dir", "-q", str(wheel)], cwd=root, env=_clean_env(), capture_output=True,
                       text=True, timeout=300), "pip install the wheel")
    import sysconfig

    ours = dict.fromkeys(str(Path(p).resolve()) for p in (sysconfig.get_paths()["purelib"],
                                                          sysconfig.get_paths()["platlib"]))
    # named to sort before lm_eval_audio.pth, whose hook then runs with the dependencies importable
    (site_packages / "_lm_eval_audio_test_dependencies.pth").write_text("".join(f"{p}\n" for p in ours))
    # What scripts/setup.sh puts into the environment beside the packages (sys.prefix/lm_eval_audio_data:
    # SpeechIO's cn_tn.py for Chinese CER; sys.prefix/nltk_data), as this environment has them.
    for name in ("lm_eval_audio_data", "nltk_data"):
        if (Path(sys.prefix) / name).is_dir():
            (root / name).symlink_to(Path(sys.prefix) / name, target_is_directory=True)
    return python, site_packages


ISOLATION_CHECK = textwrap.dedent("""
    import importlib.metadata, json, sys
    started_with_hook = "lm_eval_audio.harness.startup" in sys.modules
    import lm_eval_audio, lm_eval_audio.tasks, lm_eval_audio.model_wrappers, lm_eval_audio.judges
    import lm_eval, torch, transformers
    from lm_eval.api.registry import model_registry
    print(json.dumps({
        "started_with_hook": started_with_hook,
        "files": [lm_eval_audio.__file__, lm_eval_audio.tasks.folder(), lm_eval_audio.model_wrappers.__file__,
                  lm_eval_audio.judges.__file__],
        "dist_info": str(importlib.metadata.distribution("lm-eval-audio")._path),
        "sys_path": sys.path,
        "editable": sorted(m for m in sys.modules if "editable" in m.lower())
                    + [repr(f) for f in sys.meta_path if "editable" in repr(f).lower()],
        "models": all(m in model_registry for m in ("hf-audio", "openai-audio", "cascade")),
        "deps": [lm_eval.__file__, torch.__file__, transformers.__file__],
    }))
""")


@pytest.mark.slow(seconds=180)
def test_every_sample_runs_from_the_installed_wheel(wheel, tiny_qwen2_audio, tmp_path):
    """pip installs the wheel into a scratch environment outside the checkout; `python -m lm_eval` there, run from
    a folder outside the checkout, evaluates every benchmark's bundled sample: those answered in text in one run with
    a tiny random-weight Qwen2-Audio (and a scripted judge for the judged tasks), those answered in speech in one
    through the cascade. Every document the checkout loads is evaluated (those answered in speech: each task's first,
    ``SPOKEN_LIMIT``; the loaders read every line and check every clip as they load, limit or not), every clip is
    found (no missing-data note, no audio_missing), and each data file it read is the checkout's, read from the
    installed package."""
    from scripted_judge import SERVED_MODELS, ScriptedJudge

    assert not tmp_path.resolve().is_relative_to(REPO)
    samples = _sample_tasks()
    python, site_packages = _scratch_env(wheel, tmp_path / "env")
    installed_tasks = site_packages / "lm_eval_audio" / "tasks"
    hf_home = tmp_path / "hf_home"  # an empty cache: nothing comes from a download made before
    env = _clean_env({"HF_HOME": str(hf_home), "HF_HUB_CACHE": str(hf_home / "hub"),
                      "VIRTUAL_ENV": str(tmp_path / "env"),
                      "PATH": f"{python.parent}{os.pathsep}{os.environ.get('PATH', '')}",
                      "LM_EVAL_AUDIO_TRANSCRIPT_CACHE": str(tmp_path / "transcripts.sqlite"),
                      "LM_EVAL_AUDIO_JUDGE_CACHE": str(tmp_path / "judge.sqlite"),
                      "LM_EVAL_AUDIO_JUDGE_MODEL": SERVED_MODELS[0]})
    work = tmp_path / "work"
    work.mkdir()

    # The scratch env imports the installed wheel, never the checkout; its dependencies come from this environment.
    seen = json.loads(_ok(subprocess.run([str(python), "-c", ISOLATION_CHECK], cwd=work, env=env, capture_output=True,
                                         text=True, timeout=300), "isolation check").stdout.strip().splitlines()[-1])
    assert seen["started_with_hook"] and seen["models"]  # the wheel's lm_eval_audio.pth ran at start-up
    for path in (*seen["files"], seen["dist_info"]):
        assert Path(path).resolve().is_relative_to(site_packages.resolve()), path
    assert not any(p and Path(p).resolve().is_relative_to(REPO) and not Path(p).resolve().is_relative_to(
        Path(sys.prefix).resolve()) for p in seen["sys_path"]), seen["sys_path"]
    assert seen["editable"] == [], seen["editable"]
    assert all(Path(p).resolve().is_relative_to(Path(sys.prefix).resolve()) for p in seen["deps"]), seen["deps"]

    def run(samples: list[str], model: list[str], name: str, limit: int | None = None) -> None:
        """``samples`` through ``lm_eval`` from the wheel with ``model`` (its arguments), into ``work/name``; each
        task's first ``limit`` documents, or all."""
        cmd = [str(python), "-m", "lm_eval", *model, "--tasks", ",".join(samples), "--output_path", str(work / name),
               *(["--limit", str(limit)] if limit else [])]
        started = time.monotonic()
        with ScriptedJudge() as judge, open(tmp_path / f"{name}_stdout.txt", "w") as out, \
                open(tmp_path / f"{name}_stderr.txt", "w") as err:
            process = subprocess.Popen(cmd, cwd=work, env={**env, "OPENAI_BASE_URL": judge.base_url}, stdout=out,
                                       stderr=err)
            try:
                # meanwhile, what the checkout itself loads for the same names
                counts, leaves = _checkout_documents(samples)
                code = process.wait(timeout=1200)
            except BaseException:
                process.kill()
                process.wait()
                raise
        elapsed = time.monotonic() - started
        stdout, stderr = (tmp_path / f"{name}_stdout.txt").read_text(), (tmp_path / f"{name}_stderr.txt").read_text()
        assert code == 0, f"lm_eval from the wheel: exit {code} after {elapsed:.0f} s\nSTDERR:\n{stderr[-8000:]}"
        print(f"{len(samples)} samples, {len(counts)} tasks, {sum(counts.values())} documents from the wheel in "
              f"{elapsed:.0f} s: {', '.join(samples)}")

        res = results_json(work / name)
        # every task of every sample, each document of it
        for sample in samples:
            assert leaves[sample], f"{sample} comes to no task in the checkout"
        assert set(res["n-samples"]) == set(counts) == set().union(*leaves.values())
        for task, n in counts.items():
            assert n > 0, task
            assert res["n-samples"][task] == {"original": n, "effective": min(n, limit or n)}, task
            assert res["results"][task].get("audio_missing,none", 0) == 0, (task, res["results"][task])
        for sample in samples:
            assert leaves[sample] <= set(res["results"]), sample

        # nothing the samples hold was missing or unusable
        data = res["lm_eval_audio_data"]
        problems = {kind: entries for kind, entries in data.items() if DATA_PROBLEM.search(kind)}
        assert not problems, json.dumps(problems, indent=1)[:4000]
        # each data file was read from the installed package, and is the checkout's file
        assert data["sources"]
        for read, source in data["sources"].items():
            folder = Path(source["local_folder"])
            assert folder.is_relative_to(installed_tasks), (read, folder)
            for file, digest in source["file_sha256"].items():
                in_checkout = REPO / "tasks" / folder.relative_to(installed_tasks) / file
                assert hashlib.sha256(in_checkout.read_bytes()).hexdigest() == digest, (read, file)
        for meta, path in data.get("meta_files", {}).items():
            assert Path(path).is_relative_to(installed_tasks), (meta, path)
        # and nothing came from the checkout's package folders
        written = stdout + stderr + json.dumps(res)
        for folder in PACKAGE_DIRS:
            assert f"{REPO / folder}/" not in written, f"the run read {REPO / folder}"

    # the samples answered in text on a tiny Qwen2-Audio; those answered in speech through the cascade, which speaks
    spoken = [s for s in samples if _answered_in_speech(s)]
    run([s for s in samples if s not in spoken], ["--model", "hf-audio", "--model_args",
        f"pretrained={tiny_qwen2_audio}", "--device", "cpu", "--batch_size", "16", "--gen_kwargs", "max_gen_toks=4"],
        "text")
    assert spoken, "no bundled sample is answered in speech: the cascade's run from the wheel checks nothing"
    run(spoken, ["--model", "cascade", "--gen_kwargs", "max_gen_toks=16"], "spoken", limit=SPOKEN_LIMIT)
