"""The plugin's uses of lm-eval outside lm-eval's public API: lm-eval's private names are used in harness/ only
(where harness/targets.py checks each against the installed lm-eval), the few below it are listed with their reason,
and a coupling of the code outside the patches that lm-eval changes is named (split from test_harness_targets.py)."""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
import types
from pathlib import Path


from lm_eval_audio.harness import targets

REPO = Path(__file__).resolve().parent.parent

PACKAGE_FOLDERS = {"lm_eval_audio": "lm_eval_audio", "model_wrappers": "lm_eval_audio.model_wrappers",
                   "judges": "lm_eval_audio.judges", "tasks": "lm_eval_audio.tasks"}
# The lm-eval classes whose objects the plugin's code is handed or builds: their private fields are lm-eval's.
LM_EVAL_CLASSES = ("lm_eval.api.model:LM", "lm_eval.api.model:CacheHook", "lm_eval.api.model:CachingLM",
                   "lm_eval.api.instance:Instance", "lm_eval.api.task:ConfigurableTask", "lm_eval.api.group:Group",
                   "lm_eval.config.task:TaskConfig", "lm_eval.loggers.evaluation_tracker:EvaluationTracker",
                   "lm_eval.loggers.evaluation_tracker:GeneralConfigTracker", "lm_eval.tasks.manager:TaskManager",
                   "lm_eval.api.registry:Registry", "lm_eval.config.evaluate_config:EvaluatorConfig")
# Private lm-eval names used outside harness/ where harness/ cannot take them: in the layers below it
# (tests/test_layout.py: benchmarks/ and model_wrappers/ never import harness/, which imports them). Each is checked
# against the installed lm-eval in harness/targets.py, as every coupling is: (file, or folder ending in /, name) -> why.
PRIVATE_USES_BELOW_HARNESS = {
    # which tasks are ours and which benchmark a task belongs to, before any task is built and during the building:
    # lm-eval has no public index of names to YAML files (a TaskManager's would start a new run state through our
    # patched __init__, in the middle of a run), nor a public reader of a YAML file as written
    ("lm_eval_audio/benchmarks/registry.py", "lm_eval.tasks._index.TaskIndex"): "our task names, their files",
    ("lm_eval_audio/benchmarks/registry.py", "lm_eval.tasks._yaml_loader.load_yaml"): "a task's YAML, before building",
}


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _own_private_fields(klass) -> set[str]:
    """The private names an lm-eval class itself defines, or sets on its instances (none for a class of ours put in
    lm-eval's place, as CachingLM is, or for ``object``)."""
    import re

    if not klass.__module__.startswith("lm_eval."):
        return set()
    names = {name for name in vars(klass) if _is_private(name)}
    try:
        names |= set(re.findall(r"\bself\.(_[A-Za-z]\w*)", inspect.getsource(klass)))
    except (OSError, TypeError):
        pass
    return names


def _private_fields(cls) -> set[str]:
    """The private names an lm-eval class and its lm-eval bases define, or set on their instances."""
    return set().union(*map(_own_private_fields, cls.__mro__))


def _lm_eval_object(dotted: str):
    """The lm-eval object ``dotted`` (module, then attributes) names, or None."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for part in parts[cut:]:
                obj = getattr(obj, part)
        except AttributeError:
            return None
        return obj
    return None


class _Package:
    """Every module of the plugin's code, parsed, with the classes each defines and what its names import."""

    def __init__(self, files: dict[str, str]) -> None:  # module name -> source

        self.trees = {name: ast.parse(source) for name, source in files.items()}
        self.imports = {name: self._imports(tree) for name, tree in self.trees.items()}
        self.classes = {name: {node.name: node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
                        for name, tree in self.trees.items()}
        self._lm_eval_bases: dict = {}

    @staticmethod
    def _imports(tree) -> dict[str, str]:
        """Each name a module binds by an import -> the dotted name it stands for."""

        bound = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    bound[alias.asname or alias.name.partition(".")[0]] = alias.name if alias.asname else \
                        alias.name.partition(".")[0]
        return bound

    def dotted(self, module: str, node) -> str | None:
        """What an expression of names and attributes stands for, from the module's imports."""

        if isinstance(node, ast.Name):
            return self.imports[module].get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.dotted(module, node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def lm_eval_base(self, module: str, classdef, seen=()) -> type | None:
        """The lm-eval class ``classdef`` derives from, through the plugin's own classes too, or None."""
        key = (module, classdef.name, classdef.lineno)
        if key in self._lm_eval_bases:
            return self._lm_eval_bases[key]
        found = None
        for base in classdef.bases:
            name = self.dotted(module, base)
            if name is None and getattr(base, "id", None) in self.classes[module]:
                name = f"{module}.{base.id}"
            if name is None or (module, name) in seen:
                continue
            if name == "lm_eval" or name.startswith("lm_eval."):
                found = _lm_eval_object(name) if isinstance(_lm_eval_object(name), type) else None
            else:
                owner, _, cls = name.rpartition(".")
                if owner in self.classes and cls in self.classes[owner]:
                    found = self.lm_eval_base(owner, self.classes[owner][cls], (*seen, (module, name)))
            if found is not None:
                break
        self._lm_eval_bases[key] = found
        return found

    def private_uses(self, module: str, fields: dict[str, str]) -> set[str]:
        """The private lm-eval names ``module`` uses: imported from a private module or as a private name, an
        attribute of something imported from lm-eval, a private field of an lm-eval class (``fields``: name -> the
        class) read or set on an object of it or of a class of ours derived from it."""

        tree, found = self.trees[module], set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level and (
                    node.module == "lm_eval" or node.module.startswith("lm_eval.")):
                private_module = any(map(_is_private, node.module.split(".")))
                found |= {f"{node.module}.{a.name}" for a in node.names if private_module or _is_private(a.name)}
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names
                          if a.name.startswith("lm_eval.") and any(map(_is_private, a.name.split(".")))}
        # Private names our own code defines (its functions, its fields), where no lm-eval class is a base.
        ours = set()
        lm_eval_classes = {}
        for classdef in self.classes[module].values():
            base = self.lm_eval_base(module, classdef)
            if base is not None:
                lm_eval_classes[classdef] = base
        in_lm_eval_class = {id(n) for c in lm_eval_classes for n in ast.walk(c)}
        for node in ast.walk(tree):
            if id(node) in in_lm_eval_class:
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                ours.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                ours.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                ours.add(node.id)

        def attribute_uses(scope):
            for node in ast.walk(scope):
                if isinstance(node, ast.Attribute):
                    yield node.value, node.attr
                elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) >= 2
                      and node.func.id in ("getattr", "hasattr", "setattr", "delattr")
                      and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
                    yield node.args[0], node.args[1].value

        for value, attr in attribute_uses(tree):
            if not _is_private(attr):
                continue
            owner = self.dotted(module, value)
            if owner and (owner == "lm_eval" or owner.startswith("lm_eval.")):
                found.add(f"{owner}.{attr}")
            elif attr in fields and attr not in ours:
                found.add(f"{fields[attr]}.{attr}")
        for classdef, base in lm_eval_classes.items():
            private = _private_fields(base)
            for _, attr in attribute_uses(classdef):
                if attr in private:
                    holder = next(k for k in base.__mro__ if attr in _own_private_fields(k))
                    found.add(f"{holder.__module__}.{holder.__qualname__}.{attr}")
        return found


def _lm_eval_fields() -> dict[str, str]:
    fields = {}
    for spec in LM_EVAL_CLASSES:
        module, _, name = spec.partition(":")
        cls = getattr(importlib.import_module(module), name)
        for field in _private_fields(cls):
            fields.setdefault(field, f"{module}.{name}")
    return fields


def _plugin_sources() -> dict[str, tuple[str, str]]:
    """Module name -> (its file relative to the checkout, its source), harness/ left out."""
    found = {}
    for folder, package in PACKAGE_FOLDERS.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            relative = path.relative_to(REPO / folder)
            if folder == "lm_eval_audio" and relative.parts[0] in ("harness", *(f for f in PACKAGE_FOLDERS)):
                continue
            name = ".".join((package, *relative.with_suffix("").parts)).removesuffix(".__init__")
            found[name] = (str(path.relative_to(REPO)), path.read_text())
    return found


def _below_harness(file: str, name: str) -> bool:
    return any(name == allowed and (file == where or (where.endswith("/") and file.startswith(where)))
               for where, allowed in PRIVATE_USES_BELOW_HARNESS)


def test_no_module_outside_harness_uses_a_private_lm_eval_name():
    """lm-eval's private modules, names and fields are used in harness/ only, where harness/targets.py checks each
    against the installed lm-eval; the rest of the plugin calls the harness for them (as diagnose names its results
    folders through harness/tracker_naming.py)."""
    sources = _plugin_sources()
    package, fields = _Package({name: source for name, (_, source) in sources.items()}), _lm_eval_fields()
    used = {(sources[name][0], use) for name in sources for use in package.private_uses(name, fields)}
    assert sorted(u for u in used if not _below_harness(*u)) == []
    # lm-eval's tracker fields (what names a run's results folder) are set by harness/ only

    tracker = [(file, node.lineno) for name, (file, _) in sources.items() for node in ast.walk(package.trees[name])
               if isinstance(node, ast.Attribute) and node.attr == "general_config_tracker"]
    assert tracker == []


def test_the_private_name_check_finds_each_kind_of_use():
    """The rule above finds a private module, a private attribute of an lm-eval import, a private field of a task
    (as preflight's ``--predict_only`` check once read ``_metric_fn_list``) and one of an LM subclass."""
    source = '''
from lm_eval.tasks._index import TaskIndex
from lm_eval.api.model import LM
from lm_eval.loggers.evaluation_tracker import GeneralConfigTracker

def name(args, task, tracker):
    getattr(task, "_metric_fn_list", {})
    tracker.general_config_tracker._not_a_field_of_lm_evals = 1
    return GeneralConfigTracker._get_model_name(args)

class Model(LM):
    def __init__(self):
        self._rank, self._own = 0, 1
'''
    package = _Package({"lm_eval_audio.example": source})
    assert package.private_uses("lm_eval_audio.example", _lm_eval_fields()) == {
        "lm_eval.tasks._index.TaskIndex", "lm_eval.loggers.evaluation_tracker.GeneralConfigTracker._get_model_name",
        "lm_eval.api.task.ConfigurableTask._metric_fn_list", "lm_eval.api.model.LM._rank"}


def test_a_changed_coupling_of_the_code_outside_harness_is_named(monkeypatch):
    """Couplings of code outside the patches (targets.ELSEWHERE_*, checked by the tests, not the startup hook): a
    helper of lm-eval's renamed (data_download's get_sample_size), an argument taken by position moved (the model
    wrappers' Instance), the IFEval source VoiceBench scores with read without importing it; and a patch's own
    coupling (the tracker's field that names the results folder, no longer set in its __init__)."""
    elsewhere = (targets.ELSEWHERE_TARGETS, targets.ELSEWHERE_POSITIONS, targets.ELSEWHERE_TEXTS)
    import lm_eval.api.instance
    import lm_eval.evaluator
    import lm_eval.evaluator_utils
    import lm_eval.loggers.evaluation_tracker as evaluation_tracker

    monkeypatch.delattr(lm_eval.evaluator_utils, "get_sample_size")
    assert "lm_eval.evaluator_utils.get_sample_size is missing" in targets.problems(
        "lm_eval.evaluator_utils", lm_eval.evaluator_utils, elsewhere)
    assert targets.problems("lm_eval.evaluator", lm_eval.evaluator) == []  # no patch reads it

    def moved(self, doc, request_type, arguments, idx, metadata=None, task_name=None, doc_id=None, repeats=None):
        pass

    monkeypatch.setattr(lm_eval.api.instance.Instance, "__init__", moved)
    assert [p for p in targets.problems("lm_eval.api.instance", lm_eval.api.instance, elsewhere)
            if "position" in p] == ["lm_eval.api.instance.Instance.__init__ no longer takes request_type in position 1",
                                    "lm_eval.api.instance.Instance.__init__ no longer takes doc in position 2"]

    real_source = targets._source
    monkeypatch.setattr(targets, "_source", lambda name: real_source(name).replace(
        "self.general_config_tracker = GeneralConfigTracker()", "self.config = GeneralConfigTracker()"))
    assert targets.problems("lm_eval.loggers.evaluation_tracker", evaluation_tracker) == [
        "lm_eval.loggers.evaluation_tracker no longer says 'self.general_config_tracker = GeneralConfigTracker()', "
        "which the run's configuration, named by run_patches and tracker_naming relies on"]

    monkeypatch.setattr(targets, "_source", real_source)
    monkeypatch.delitem(sys.modules, "lm_eval.tasks.ifeval.utils", raising=False)
    monkeypatch.delitem(sys.modules, "lm_eval.tasks.ifeval.instructions_registry", raising=False)
    assert targets.problems("lm_eval.tasks.ifeval.utils", None, elsewhere) == []
    assert "lm_eval.tasks.ifeval.utils" not in sys.modules  # its source read, the module not run



def test_predict_only_is_read_off_lm_evals_own_marking():
    """``--predict_only``: lm-eval gives each task the one metric ``bypass``; preflight reads it off the task's
    public ``higher_is_better()`` (lm-eval itself reads its private ``_metric_fn_list``), for a task lm-eval built."""
    from lm_eval.tasks import TaskManager

    from lm_eval_audio.harness.preflight import predicts_only

    manager = TaskManager(include_path=str(REPO / "tests" / "fixtures" / "text_tasks"), include_defaults=False)
    task = manager.load(["tiny_arc"])["tasks"]["tiny_arc"]
    assert not predicts_only(task)
    task.override_metric(metric_name="bypass")  # what simple_evaluate does with predict_only=True
    assert predicts_only(task) and "bypass" in task._metric_fn_list
    assert not predicts_only(types.SimpleNamespace())


def test_a_run_of_a_pre_built_model_is_saved_under_the_name_it_is_given(tmp_path):
    """diagnose hands lm-eval models it built (lm-eval's "CUSTOM"): harness/tracker_naming.py saves each run as
    ``lm_eval --model SOURCE`` saves it, in the folder of the name given, with lm-eval's own name for the model."""
    import json

    from lm_eval.loggers import EvaluationTracker

    from lm_eval_audio.harness import tracker_naming

    assert tracker_naming.lm_eval_model_name("pretrained=org/My Model,dtype=bfloat16") == "org/My Model"
    tracker = EvaluationTracker(output_path=str(tmp_path))
    results = {"results": {"t": {"acc,none": 1.0}}, "configs": {"t": {}}, "config": {"model": "TextPromptsOnly"}}
    date_id = tracker_naming.save_as_named(tracker, results, {"t": []}, "hf-audio", "org/My Model")
    folder = tmp_path / tracker_naming.folder_name("org/My Model")
    saved = json.loads((folder / f"results_{date_id}.json").read_text())
    assert (saved["model_source"], saved["model_name"], saved["config"]["model"]) == ("hf-audio", "org/My Model",
                                                                                     "hf-audio")
    assert (folder / f"samples_t_{date_id}.jsonl").is_file()
