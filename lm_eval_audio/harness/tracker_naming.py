"""A run's results folder named as ``lm_eval --model ...`` names it, for code outside the patches that hands lm-eval
a model it built itself (``diagnose``: lm-eval calls a pre-built model "CUSTOM" and names its folder after the
model arguments alone).

What this needs of lm-eval is no public API: its name for a model (``GeneralConfigTracker._get_model_name``), its
folder-name rule (``sanitize_model_name``) and the fields of the tracker that saves the results (``model_source``,
``model_name``, ``model_name_sanitized``, ``date_id``). It stays in ``harness/``, where ``harness/targets.py``
checks each of them against the installed lm-eval; nothing outside ``harness/`` writes a tracker field.
"""

from __future__ import annotations


def lm_eval_model_name(model_args) -> str | None:
    """lm-eval's own name for the model of ``model_args`` (its ``pretrained=``, ``model=``, ... value), as it names
    a run's results; None where they name none."""
    from lm_eval.loggers.evaluation_tracker import GeneralConfigTracker

    return GeneralConfigTracker._get_model_name(model_args)


def folder_name(model_name: str) -> str:
    """The results folder lm-eval makes for a run named ``model_name``."""
    from lm_eval.utils import sanitize_model_name

    return sanitize_model_name(model_name)


def results_folder(output_path: str, model_name_sanitized: str = ""):
    """The folder lm-eval writes a run's files into (``EvaluationTracker.save_results_aggregated``): a ``.json``
    path's parent, else the path's folder of the model (the path itself where no model name is given)."""
    from pathlib import Path

    path = Path(output_path).expanduser()
    return path.parent if path.suffix == ".json" else path / model_name_sanitized


def results_file(output_path: str, model_name_sanitized: str, date_id: str):
    """The results file lm-eval writes for a run dated ``date_id``."""
    from pathlib import Path

    path = Path(output_path).expanduser()
    if path.suffix == ".json":
        return path.with_name(f"{path.stem}_{date_id}.json")
    return results_folder(output_path, model_name_sanitized) / f"results_{date_id}.json"


def save_as_named(tracker, results: dict, samples: dict, source: str, model_name: str) -> str:
    """Save a run of a pre-built model through ``tracker`` (an ``EvaluationTracker``) as ``lm_eval --model source
    --output_path ... --log_samples`` saves it: ``results`` (its samples taken out) and ``samples``, the run named
    ``model_name`` (lm-eval's own name, which the results patch makes ours for a run of our models, as for any run).
    Returns the run's date id, which its files' names end with."""
    config = tracker.general_config_tracker
    config.model_source = source
    config.model_name = model_name
    config.model_name_sanitized = folder_name(model_name)
    results["config"]["model"] = source
    tracker.save_results_aggregated(results=results, samples=samples)
    for task in results["configs"]:
        tracker.save_results_samples(task_name=task, samples=samples[task])
    return tracker.date_id
