"""The lm-eval seam: every patch target is where the patches expect it in the installed lm-eval;
a missing or changed target disables the plugin with one warning and lm-eval keeps working;
lm-eval's own models, tasks and payloads are treated as lm-eval treats them."""

from __future__ import annotations

import configparser
import importlib
import subprocess
import sys
import types
from pathlib import Path

import pytest

from lm_eval_audio.harness import status, targets

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("module_name", sorted(targets.TARGETS))
def test_every_patch_target_is_in_the_installed_lm_eval(module_name):
    module = importlib.import_module(module_name)
    assert targets.problems(module_name, module) == []


ELSEWHERE = (targets.ELSEWHERE_TARGETS, targets.ELSEWHERE_POSITIONS, targets.ELSEWHERE_TEXTS)


@pytest.mark.parametrize("module_name", sorted(set().union(*ELSEWHERE)))
def test_every_coupling_outside_the_patches_is_in_the_installed_lm_eval(module_name):
    """What the model wrappers, benchmark folders, commands and metrics read of lm-eval: checked here, not by the
    startup hook (a change breaks one feature, not lm-eval's runs)."""
    assert targets.problems(module_name, importlib.import_module(module_name), ELSEWHERE) == []


def test_every_watched_module_has_its_targets_and_its_patch():
    from lm_eval_audio.harness import patches, startup

    assert set(startup.WATCHED) == set(targets.TARGETS) == set(patches.PATCHES)
    # an entry filed under a module that is not watched would never be checked as lm-eval loads
    assert set(targets.TEXTS) | set(targets.POSITIONS) <= set(startup.WATCHED)


def test_architecture_says_how_many_couplings_are_checked():
    import re

    doc = (REPO / "docs" / "ARCHITECTURE.md").read_text()
    said = re.search(r"(\d+) couplings are checked \((\d+) attributes, (\d+)\s+positions, (\d+) texts", doc)
    counts = [sum(map(len, entries.values())) for entries in (targets.TARGETS, targets.POSITIONS, targets.TEXTS)]
    assert said and [int(n) for n in said.groups()] == [sum(counts), *counts]
    elsewhere = re.search(r"(\d+) more, of the code outside the patches", doc)
    assert elsewhere and int(elsewhere.group(1)) == sum(sum(map(len, entries.values())) for entries in ELSEWHERE)


def test_the_check_names_a_renamed_attribute(monkeypatch):
    import lm_eval.api.model

    monkeypatch.setitem(targets.TARGETS, "lm_eval.api.model", [("hash_args_v2", ("attr", "args"))])
    assert targets.problems("lm_eval.api.model", lm_eval.api.model) == ["lm_eval.api.model.hash_args_v2 is missing"]


def test_the_check_names_a_parameter_that_changed():
    def __init__(self, paths=None, include_defaults=True):  # include_path renamed
        pass

    fake = types.SimpleNamespace(TaskManager=types.SimpleNamespace(__init__=__init__, all_tasks=[],
                                                                   load=lambda self, task_list: None),
                                 TaskIndex=types.SimpleNamespace(build=lambda paths: None))
    assert targets.problems("lm_eval.tasks.manager", fake) == [
        "lm_eval.tasks.manager.TaskManager.__init__ no longer takes include_path"]


def test_every_text_and_position_a_patch_relies_on_is_checked():
    """Couplings that are no attribute (a log line, error messages, an attribute set in __init__, a positional
    parameter) are checked too, and a change to one is named."""
    import lm_eval.tasks._factory as factory

    checked = {text for entries in targets.TEXTS.values() for _, _, text in entries}
    assert {targets.LOG_OVERRIDE, targets.UNKNOWN_SPEC, targets.TASKS_NOT_FOUND, targets.NOT_MULTIMODAL,
            "self.dbdict = SqliteDict(cache_db, autocommit=True)",
            "self.dbdict = cachinglm.dbdict", "self.date_id = ",
            # fields set in __init__ (no class attribute shows them): the tracker's, LM's, Instance's
            "self.general_config_tracker = GeneralConfigTracker()", "self.output_path = output_path",
            "self.cache_hook = cache_hook",
            'override_metric(metric_name="bypass")'} <= checked
    positions = {(dotted, name) for entries in targets.POSITIONS.values() for dotted, _, name in entries}
    assert {("make_table", "column"), ("CacheHook.add_partial", "res"), ("TaskFactory.build", "entry")} <= positions
    elsewhere = {(dotted, name) for entries in targets.ELSEWHERE_POSITIONS.values() for dotted, _, name in entries}
    assert {("get_sample_size", "limit"), ("Instance.__init__", "arguments"), ("normalize_gen_kwargs", "gen_kwargs")} \
        <= elsewhere

    def build(self, spec, *, entry=None, overrides=None, registry=None):  # what was built moved from position 1
        pass

    fake = types.SimpleNamespace(**{name: getattr(factory, name) for name in ("Kind", "Group", "ConfigurableTask")},
                                 TaskFactory=types.SimpleNamespace(build=build))
    assert targets.problems("lm_eval.tasks._factory", fake) == [
        "lm_eval.tasks._factory.TaskFactory.build no longer takes entry in position 1"]


def test_a_changed_message_is_named(monkeypatch):
    monkeypatch.setattr(targets, "_source", lambda name: "no such wording here")
    problems = targets.problems("lm_eval.evaluator", importlib.import_module("lm_eval.evaluator"))
    assert problems[:2] == ["lm_eval.evaluator no longer says 'which require multimodal input', which the "
                            "audio-task-on-a-text-model message (cli_patches) relies on",
                            "lm_eval.evaluator no longer says 'with arguments: ', which the log line whose "
                            "credentials log_redaction masks relies on"]
    assert len(problems) == len(targets.TEXTS["lm_eval.evaluator"])


def test_the_supported_lm_eval_range_is_the_declared_one():
    config = configparser.ConfigParser()
    config.read(REPO / "setup.cfg")
    requires = [line.strip() for line in config["options"]["install_requires"].splitlines() if line.strip()]
    assert f"lm-eval{status.SUPPORTED_LM_EVAL}" in requires


# With hash_args renamed in lm-eval's own source (as a future release might), loaded in place of
# the installed module: lm-eval imports and runs, and the plugin steps aside with one warning.
RENAMED_TARGET = r"""
import importlib.util, logging, pathlib, sys, tempfile
logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
src = pathlib.Path(importlib.util.find_spec("lm_eval").submodule_search_locations[0]) / "api" / "model.py"
changed = pathlib.Path(tempfile.mkdtemp()) / "model.py"
changed.write_text(src.read_text().replace("hash_args", "hash_args_v2"))

class ChangedLmEval:
    def find_spec(self, name, path=None, target=None):
        if name == "lm_eval.api.model":
            return importlib.util.spec_from_file_location(name, changed)

sys.meta_path.insert(1, ChangedLmEval())  # behind the plugin's watcher, in front of the real files
import lm_eval, lm_eval.evaluator
from lm_eval.tasks import TaskManager
results = lm_eval.evaluator.simple_evaluate(
    model="dummy", tasks=["tiny_arc"], limit=2,
    task_manager=TaskManager(include_path="tests/fixtures/text_tasks", include_defaults=False))
print("RESULTS", sorted(results["results"]))
from lm_eval.api.registry import model_registry
print("OURS REGISTERED", "hf-audio" in model_registry)
"""


def test_a_changed_target_disables_the_plugin_and_lm_eval_keeps_working():
    proc = subprocess.run([sys.executable, "-c", RENAMED_TARGET], cwd=REPO, capture_output=True, text=True,
                          timeout=300, env={"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1",
                                            "HF_DATASETS_OFFLINE": "1", "HOME": str(Path.home())})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "RESULTS ['tiny_arc']" in proc.stdout
    assert "OURS REGISTERED False" in proc.stdout
    warnings = [line for line in proc.stderr.splitlines() if "lm-eval-audio is disabled" in line]
    assert len(warnings) == 1, proc.stderr[-3000:]
    assert "lm_eval.api.model.hash_args is missing" in warnings[0]
    assert "supports lm-eval>=0.4.13,<0.4.14" in warnings[0]


# An evaluator target missing (evaluate renamed): lm_eval.evaluator loads after lm-eval's registry, where
# our models were registered already; they must leave it, and our tasks stay out of a new TaskManager.
EVALUATOR_TARGET_MISSING = RENAMED_TARGET.replace('"api" / "model.py"', '"evaluator.py"').replace(
    'name == "lm_eval.api.model"', 'name == "lm_eval.evaluator"').replace(
    'replace("hash_args", "hash_args_v2")', 'replace("def evaluate(", "def evaluate_v2(")').replace(
    """results = lm_eval.evaluator.simple_evaluate(
    model="dummy", tasks=["tiny_arc"], limit=2,
    task_manager=TaskManager(include_path="tests/fixtures/text_tasks", include_defaults=False))
print("RESULTS", sorted(results["results"]))
""", """print("OUR TASKS LISTED", "airbench_sample" in TaskManager(include_defaults=False).all_tasks)
""")


def test_a_missing_evaluator_target_takes_our_models_and_tasks_out_of_lm_eval():
    assert "evaluate_v2" in EVALUATOR_TARGET_MISSING and "OUR TASKS LISTED" in EVALUATOR_TARGET_MISSING
    proc = subprocess.run([sys.executable, "-c", EVALUATOR_TARGET_MISSING], cwd=REPO, capture_output=True,
                          text=True, timeout=300, env={"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1",
                                                       "HF_DATASETS_OFFLINE": "1", "HOME": str(Path.home())})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "OURS REGISTERED False" in proc.stdout and "OUR TASKS LISTED False" in proc.stdout, proc.stdout
    warnings = [line for line in proc.stderr.splitlines() if "lm-eval-audio is disabled" in line]
    assert len(warnings) == 1 and "lm_eval.evaluator.evaluate is missing" in warnings[0], proc.stderr[-3000:]


def test_a_task_of_ours_with_the_name_of_one_of_lm_evals_stops(tmp_path, monkeypatch):
    import lm_eval.tasks.manager as manager

    from lm_eval_audio.harness.task_patches import TaskNameClash

    builtin = tmp_path / "lm_eval_tasks"
    builtin.mkdir()
    (builtin / "digits.yaml").write_text("task: spoken_digits_gen\ndataset_path: json\noutput_type: generate_until\n"
                                         "doc_to_text: x\n")
    monkeypatch.setattr(manager, "__file__", str(builtin / "manager.py"))  # where lm-eval looks for its own tasks
    with pytest.raises(TaskNameClash, match=r"lm-eval defines a task named 'spoken_digits_gen' \(.*digits.yaml\), "
                                            r"and so does lm-eval-audio \(.*spoken_digits_gen.yaml\)"):
        manager.TaskManager()
    # A user's own task of the same name overrides ours, as --include_path always has.
    user = tmp_path / "user"
    user.mkdir()
    (user / "digits.yaml").write_text((builtin / "digits.yaml").read_text())
    monkeypatch.setattr(manager, "__file__", str(tmp_path / "empty" / "manager.py"))
    assert manager.TaskManager(include_path=str(user)).task_index["spoken_digits_gen"].yaml_path.parent == user


def test_lm_evals_own_models_keep_lm_evals_request_cache(tmp_path):
    """--use_cache puts our subclass of CachingLM in lm-eval's place; lm-eval's own models get lm-eval's cache
    (its keys, its hook, its request loop), and lm-eval's hash_args is its own."""
    import lm_eval.api.model as api_model
    from lm_eval.models.dummy import DummyLM

    assert not hasattr(api_model.hash_args, "__wrapped__")
    cached = api_model.CachingLM(DummyLM(), str(tmp_path / "cache.db"))
    assert type(cached).__name__ == "AudioCachingLM" and type(cached).__mro__[1].__module__ == "lm_eval.api.model"
    assert type(cached.lm.cache_hook) is api_model.CacheHook
    assert "CachingLM.__getattr__.<locals>._fn" in cached.generate_until.__qualname__


def test_lm_evals_own_models_keep_their_metadata(tmp_path):
    """A --metadata key that looks like a credential is the user's business with lm-eval's own tasks; with
    ours (where it would go into the results' task configurations) it is refused before the model runs."""
    from lm_eval.evaluator import simple_evaluate
    from lm_eval.tasks import TaskManager

    from lm_eval_audio.endpoints.model_args import CredentialError

    fixtures = str(REPO / "tests" / "fixtures" / "text_tasks")
    manager = TaskManager(include_path=fixtures, include_defaults=False, metadata={"token": "my-run-label"})
    results = simple_evaluate(model="dummy", tasks=["tiny_arc"], limit=2, task_manager=manager)
    assert "tiny_arc" in results["results"]
    ours = TaskManager(include_path=[str(REPO / "tasks" / "spoken_digits"), fixtures], include_defaults=False,
                       metadata={"token": "my-run-label"})
    with pytest.raises(CredentialError, match="token"):
        simple_evaluate(model="dummy", tasks=["spoken_digits_gen"], limit=2, task_manager=ours)


def test_no_credential_reaches_lm_evals_log(caplog):
    """lm-eval logs a model's arguments before our wrapper refuses a key among them: masked in the log."""
    import logging

    import lm_eval.evaluator

    from lm_eval_audio.harness.log_redaction import MASK

    with caplog.at_level(logging.INFO, logger="lm_eval.evaluator"):
        lm_eval.evaluator.eval_logger.info("Initializing %s model, with arguments: %s", "openai-audio",
                                           {"model": "m", "api_key": "abc12345"})
        lm_eval.evaluator.eval_logger.info("Initializing cascade model, with arguments: "
                                           "{'llm_model': 'sk-abcdefghijklmnopqrstuvwx'}")
    assert "abc12345" not in caplog.text and "sk-abcdefghijklmnopqrstuvwx" not in caplog.text
    assert caplog.text.count(MASK) == 2 and "'model': 'm'" in caplog.text


def _replaced_callables() -> set[str]:
    """What the hook has replaced in lm-eval, found by the wrappers' own mark (``harness.wrapping``) on the modules
    of ``harness.patches.PATCHES`` (and ``lm_eval.tasks._index``, which ``lm_eval.tasks.manager``'s patch reaches)
    and their classes, and the request cache's subclass in ``CachingLM``'s place."""
    import importlib

    from lm_eval_audio.harness.patches import PATCHES

    found = set()
    for module_name in (*PATCHES, "lm_eval.tasks._index"):
        module = importlib.import_module(module_name)
        for name, value in vars(module).items():
            if getattr(value, "_lm_eval_audio", False):
                found.add(name)
            elif isinstance(value, type) and value.__module__ == module_name:
                found |= {f"{name}.{attr}" for attr, member in vars(value).items()
                          if getattr(getattr(member, "__func__", member), "_lm_eval_audio", False)}
            elif isinstance(value, type) and name == "CachingLM" and value.__module__.startswith("lm_eval_audio"):
                found.add(name)
    return found


def test_the_replaced_callables_are_the_ones_architecture_lists_with_their_reasons():
    import re

    from conftest import REPO

    doc = (REPO / "docs" / "ARCHITECTURE.md").read_text()
    table = doc[doc.index("| Replaced | Module | Why nothing supported does it |"):]
    table = table[:table.index("\n\n")]
    listed = {re.match(r"\| `([\w.]+)`", row).group(1) for row in table.splitlines()[2:]}
    assert _replaced_callables() == listed
    assert len(listed) <= 8  # issue 43: from nine; issue 55: the task index's parses kept


# --- lm-eval's internals stay in harness/ -------------------------------------------------------------------------

# The plugin's code outside harness/: the package, and the folders installed as its subpackages (setup.cfg).
