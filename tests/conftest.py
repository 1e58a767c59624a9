"""Shared fixtures: tiny random-weight audio LMs (real transformers classes, built here,
no download) and synthesized audio."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

# No network here or in CI: the hub and datasets must not try it (each try waits for its timeout).
for _offline in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
    os.environ.setdefault(_offline, "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Under xdist each worker (and the lm_eval processes it starts) computes on one thread: the workers fill the cores,
# and two threads each on two cores made the slow step a third slower (OpenMP threads waiting on each other).
if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
    for _threads in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_threads, "1")

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent  # the venv's bin: lm_eval, lm-eval-audio, accelerate


def pytest_collection_modifyitems(items) -> None:
    """The longest tests first, each as long as its ``slow(seconds=N)`` says (about that on CI's two cores), the
    rest in their order: xdist hands tests out in this order, and a long test started last keeps one worker busy
    alone while the other has finished."""
    def seconds(item) -> float:
        marker = item.get_closest_marker("slow")
        return float(marker.kwargs.get("seconds", 0)) if marker else 0.0

    items.sort(key=lambda item: -seconds(item))  # stable: equal ones keep their order


def _tiny_model(arch: str):
    """A session fixture: the path of a tiny model built once with ``tiny_models.BUILDERS[arch]``."""

    @pytest.fixture(scope="session")
    def build(tmp_path_factory) -> str:
        from lm_eval_audio.model_wrappers.family_adapters import older_than_transformers_needs
        from lm_eval_audio.testing.tiny_models import BUILDERS, NEEDS

        for module in NEEDS[arch]:
            shortfall = older_than_transformers_needs(module)
            if shortfall:  # hf-audio refuses the family here: tests/test_family_checks.py checks that refusal
                pytest.skip(f"tiny {arch}: {shortfall.partition(': ')[0]}, so hf-audio refuses its family")
        return BUILDERS[arch](str(tmp_path_factory.mktemp(f"tiny-{arch}")))

    return build


# tiny_<arch> for every tiny model a family's module registers (lm_eval_audio.testing.tiny_models.BUILDERS): a new
# family's builder is a fixture without an edit here.
def _register_tiny_model_fixtures() -> None:
    from lm_eval_audio.testing.tiny_models import BUILDERS

    for arch in BUILDERS:
        globals()[f"tiny_{arch}"] = _tiny_model(arch)


_register_tiny_model_fixtures()


def tone(seconds: float, freq: float = 440.0, sr: int = 16000, seed: int = 0) -> np.ndarray:
    """A sine with a little noise: distinct clips for distinct (seconds, freq, seed)."""
    t = np.arange(int(seconds * sr)) / sr
    rng = np.random.default_rng(seed)
    return (0.3 * np.sin(2 * np.pi * freq * t) + 0.05 * rng.standard_normal(t.size)).astype(np.float32)


@pytest.fixture(scope="session")
def clips(tmp_path_factory) -> list[str]:
    """16 wav files of different lengths (0.4 s to 4.9 s) and pitches."""
    folder = tmp_path_factory.mktemp("clips")
    paths = []
    for i in range(16):
        path = folder / f"clip_{i:02d}.wav"
        sf.write(path, tone(0.4 + 0.3 * i, freq=200 + 50 * i, seed=i), 16000)
        paths.append(str(path))
    return paths


# The console scripts that run_cli calls inside this process unless the test asks for a real one.
IN_PROCESS = {"lm_eval", "lm-eval", "lm-eval-audio"}


def run_cli(args: list[str], cwd: Path = REPO, env_extra: dict | None = None, timeout: int = 600,
            in_process: bool = True) -> subprocess.CompletedProcess:
    """Run a console script of the venv; the result as a CompletedProcess (output captured).

    ``lm_eval`` and ``lm-eval-audio`` run inside the test process by default, through their own
    entry functions with ``sys.argv``, the environment and the working directory set as a
    subprocess would have them, and their output and logs captured: a test of what a command
    computes does not pay for a new interpreter and lm-eval's task index (about 20 s). Tests of
    the command as a process (exit status, what it imports, a README command) pass
    ``in_process=False``."""
    env = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", **(env_extra or {})}
    if in_process and args[0] in IN_PROCESS:
        return _run_in_process(args, cwd, env)
    exe = args[0] if os.path.isabs(args[0]) else str(BIN / args[0])
    return subprocess.run([exe, *args[1:]], cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=timeout)


def _run_in_process(args: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    import contextlib
    import io
    import logging
    import traceback

    out, err = io.StringIO(), io.StringIO()
    handler = logging.StreamHandler(err)
    handler.setFormatter(logging.Formatter("%(levelname)s [%(name)s] %(message)s"))
    loggers = [logging.getLogger("lm_eval"), logging.getLogger()]  # lm_eval does not propagate to the root
    saved_env, saved_argv, saved_cwd = dict(os.environ), list(sys.argv), os.getcwd()
    code = 0
    try:
        os.environ.update(env)
        os.chdir(cwd)
        for logger in loggers:
            logger.addHandler(handler)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                if args[0] == "lm-eval-audio":
                    from lm_eval_audio.cli import main

                    main(list(args[1:]))
                else:
                    from lm_eval.__main__ import cli_evaluate

                    sys.argv = ["lm_eval", *args[1:]]
                    cli_evaluate()
            except SystemExit as e:
                if isinstance(e.code, str):
                    err.write(e.code + "\n")
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except BaseException:  # as the interpreter would: the traceback, and status 1
                err.write(traceback.format_exc())
                code = 1
    finally:
        for logger in loggers:
            logger.removeHandler(handler)
        os.chdir(saved_cwd)
        sys.argv = saved_argv
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


@pytest.fixture(autouse=True)
def _a_run_of_its_own():
    """Each test starts with a run of its own (storage.run_state), as a new command or TaskManager gives one: an
    earlier test's run (its judges, the warnings it said once) does not reach it."""
    from lm_eval_audio.storage import run_state

    run_state.fresh()


@pytest.fixture(scope="session", autouse=True)
def _lm_eval_task_index_built_once():
    """lm-eval indexes its ~15,000 task YAML files at every TaskManager (about 10 s); they do not
    change during the tests, so an index of the same folders is built once per session (the
    task factory deep-copies what it takes from an entry, so sharing entries is safe)."""
    from lm_eval.tasks._index import TaskIndex

    original = TaskIndex.__dict__["build"]
    built: dict = {}

    def build(paths, *, resolve_includes=True):
        paths = list(paths)
        key = (tuple(str(p) for p in paths), resolve_includes)
        if key not in built:
            built[key] = original.__func__(paths, resolve_includes=resolve_includes)
        return dict(built[key])

    TaskIndex.build = staticmethod(build)
    yield
    TaskIndex.build = original


DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def readme_block(name: str) -> str:
    """The commands of the ``<!-- name -->`` bash block of README.md or a docs/*.md guide (one of them holds
    it), as a user copies them."""
    import re

    pattern = rf"<!-- {name} -->\s*```bash\n(.*?)```\s*<!-- /{name} -->"
    blocks = [block.group(1) for path in DOCUMENTS for block in re.finditer(pattern, path.read_text(), re.S)]
    assert len(blocks) == 1, f"README.md and docs/*.md hold {len(blocks)} {name} blocks, not one"
    return blocks[0]


def run_readme_block(name: str, folder: Path, timeout: int = 1500) -> subprocess.CompletedProcess:
    """Run a block of README.md or docs/ (:func:`readme_block`) in ``folder`` (linked to the venv, the tasks and the
    examples) as a new user would: offline, no judge endpoint, fresh judge and transcript caches."""
    for link in (".venv", "tasks", "examples", "tests"):
        if not (folder / link).exists():
            (folder / link).symlink_to(BIN.parent if link == ".venv" else REPO / link)
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", LM_EVAL_AUDIO_JUDGE_CACHE=str(folder / "judge_cache.sqlite"),
               LM_EVAL_AUDIO_TRANSCRIPT_CACHE=str(folder / "transcripts.sqlite"))
    return subprocess.run(["bash", "-euo", "pipefail", "-c", readme_block(name)], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=timeout)


@contextlib.contextmanager
def stand_in_hub(repositories: dict, cache: Path, monkeypatch, unset=()):
    """The stand-in Hub (``lm_eval_audio.testing.hub_stand_in``) serving ``repositories`` (repo id -> folder), and
    this process pointed at it, online, with the cache in ``cache`` and the ``unset`` variables (local data folders)
    removed."""
    from huggingface_hub import constants

    from lm_eval_audio.testing.hub_stand_in import StandInHub

    with StandInHub() as stand_in:
        for repo_id, folder in repositories.items():
            stand_in.add_folder(repo_id, folder)
        stand_in.cache = cache
        for name, value in (("HF_ENDPOINT", stand_in.url), ("HF_HUB_CACHE", str(cache)), ("HF_HUB_OFFLINE", "0"),
                            ("HF_HUB_DISABLE_XET", "1")):
            monkeypatch.setenv(name, value)
        for name in unset:
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
        yield stand_in


def results_json(output_path: Path) -> dict:
    import json

    found = sorted(output_path.rglob("results_*.json"))
    assert found, f"no results_*.json under {output_path}"
    return json.loads(found[-1].read_text())


def judge_of(name: str, metadata: dict | None = None):
    """The judge a run resolves for the task ``name`` with ``metadata`` (harness.preflight.judges_of), or None."""
    from lm_eval_audio.harness.preflight import judges_of

    return judges_of({name: {"judge": "optional", **(metadata or {})}}).by_task()[name]


def yaml_metadata(path: Path) -> dict:
    """A task YAML's ``metadata`` (its ``!function`` tags read as their names)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda loader, node: node.value)
    return yaml.load(path.read_text(), Loader)["metadata"]


def task_scoring(name: str = "test_task", metadata: dict | None = None, judged: bool = False):
    """What our tasks hand their ``process_results`` and aggregation functions (``harness.task_building``): the
    task's ``TaskScoring`` for one run (``judged``: with the judge the run resolves from ``metadata`` and the
    environment, which must give one)."""
    from lm_eval_audio.judges.judge_config import JudgeConfig
    from lm_eval_audio.metrics.task_scoring import TaskScoring

    judge = (judge_of(name, metadata) or JudgeConfig()) if judged else None
    return TaskScoring(name, dict(metadata or {}), judge=judge)


def write_snapshot(root: Path, foundation: list[dict] = (), chat: list[dict] = (), skip_files=()) -> Path:
    """An AIR-Bench snapshot in the official layout: meta JSONs plus a short clip per item
    (FLAC for Audio_Grounding, whose meta still says .wav), except the items in skip_files."""
    import json

    for track, items in (("Foundation", foundation), ("Chat", chat)):
        (root / track).mkdir(parents=True, exist_ok=True)
        (root / track / f"{track}_meta.json").write_text(json.dumps(list(items)))
        for i, item in enumerate(items):
            if item["uniq_id"] in skip_files:
                continue
            folder = root / track / f"{item['task_name']}_{item['dataset_name']}"
            folder.mkdir(exist_ok=True)
            path = folder / item["path"]
            if item["task_name"] == "Audio_Grounding":
                path = path.with_suffix(".flac")
            sf.write(path, tone(0.2, seed=i), 16000)
    return root


def foundation_item(uniq_id, task_name, dataset_name="ds", answer="yes", two_choice=False, **extra) -> dict:
    item = {
        "path": f"clip_{uniq_id}.wav", "question": f"Question {uniq_id}?", "choice_a": "yes", "choice_b": "no",
        "choice_c": "maybe", "choice_d": "never", "answer_gt": answer, "task_name": task_name,
        "dataset_name": dataset_name, "uniq_id": uniq_id,
    }
    if two_choice:
        del item["choice_c"], item["choice_d"]
    item.update(extra)
    return item


def encoded(samples: np.ndarray, sr: int = 16000, fmt: str = "FLAC") -> bytes:
    import io

    buf = io.BytesIO()
    sf.write(buf, samples, sr, format=fmt)
    return buf.getvalue()


def write_audiobench(root: Path, repo: str, rows: list[dict], layout: str = "parquet", shards: int = 1) -> Path:
    """One AudioBench dataset folder as published (``data/test-0000i-of-0000n.parquet``) or
    as ``save_to_disk`` writes it (``test/data-*.arrow``). ``rows`` hold ``audio`` (samples,
    bytes, or None for a null cell) plus the text columns; ``context`` is stored as the
    Hugging Face ``Audio`` struct ``{bytes, path}`` with the features in the schema metadata."""
    import json

    import pyarrow as pa

    folder = root / repo
    text_cols = [k for k in rows[0] if k not in ("audio", "other_attributes")]
    audio_type = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    features = {"context": {"_type": "Audio"}, **{c: {"dtype": "string", "_type": "Value"} for c in text_cols},
                "other_attributes": {"id": {"dtype": "string", "_type": "Value"}}}

    def table(part):
        cells = []
        for i, row in enumerate(part):
            audio = row["audio"]
            if audio is None:
                cells.append(None)
            else:
                data = audio if isinstance(audio, bytes) else encoded(audio)
                cells.append({"bytes": data, "path": f"{repo}_{i}.flac"})
        columns = {"context": pa.array(cells, type=audio_type)}
        for c in text_cols:
            columns[c] = pa.array([row.get(c) for row in part], type=pa.string())
        columns["other_attributes"] = pa.array([row.get("other_attributes", {"id": str(i)}) for i, row in
                                                enumerate(part)], type=pa.struct([("id", pa.string())]))
        schema_meta = {b"huggingface": json.dumps({"info": {"features": features}}).encode()}
        return pa.table(columns).replace_schema_metadata(schema_meta)

    size = -(-len(rows) // shards)  # consecutive slices keep the row order across shards
    parts = [rows[i * size:(i + 1) * size] for i in range(shards)]
    if layout == "parquet":
        import pyarrow.parquet as pq

        (folder / "data").mkdir(parents=True, exist_ok=True)
        for i, part in enumerate(parts):
            pq.write_table(table(part), folder / "data" / f"test-{i:05d}-of-{len(parts):05d}.parquet",
                           row_group_size=3)
    else:
        (folder / "test").mkdir(parents=True, exist_ok=True)
        (folder / "dataset_dict.json").write_text(json.dumps({"splits": ["test"]}))
        for i, part in enumerate(parts):
            t = table(part)
            with pa.OSFile(str(folder / "test" / f"data-{i:05d}-of-{len(parts):05d}.arrow"), "wb") as sink:
                with pa.ipc.new_stream(sink, t.schema) as writer:
                    writer.write_table(t)
        (folder / "test" / "dataset_info.json").write_text(json.dumps({"features": features}))
    return folder


GREEDY = {"until": ["\n"], "max_gen_toks": 8, "do_sample": False}


def templated(text: str) -> str:
    """A one-turn context as lm-eval hands it to our models under --apply_chat_template (their
    ``apply_chat_template`` keeps the turns; the model renders them with its audio)."""
    from lm_eval_audio.audio.markers import encode_chat_context

    return encode_chat_context([{"role": "user", "content": text}], True)


def gen_request(context, refs=None, kwargs=GREEDY):
    """A generate_until request as lm-eval builds it, with the clips in its third argument."""
    from lm_eval.api.instance import Instance

    args = (context, dict(kwargs)) + (({"audio": refs},) if refs is not None else ())
    return Instance("generate_until", {}, args, 0)


def ll_request(context, continuation, refs=None):
    from lm_eval.api.instance import Instance

    args = (context, continuation) + (({"audio": refs},) if refs is not None else ())
    return Instance("loglikelihood", {}, args, 0)
