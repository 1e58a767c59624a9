"""The plugin's extensions of lm-eval 0.4.13, one function per lm-eval module, kept by concern in
``task_patches`` (models and tasks into lm-eval, group aggregation), ``run_patches`` (the cache keys, the run,
the files beside the results) and ``cli_patches`` (the command line and the printed table); :data:`PATCHES` maps
each watched lm-eval module to its patch.

lm-eval 0.4.13 has no plugin hooks for what these do; each acts only on the plugin's own
models (``model_wrappers.registry.is_ours``), tasks (``benchmarks.registry.our_task_names``) and audio
references, and otherwise calls lm-eval's function with the same arguments:

* ``lm_eval.api.registry``: registers our models as lazy ``"module:Class"`` placeholders,
  after lm-eval's built-ins (``get_model`` only imports ``lm_eval.models`` into an EMPTY
  registry, so registering first would hide ``hf`` and the rest);
* ``lm_eval.tasks.manager``: puts our ``tasks/`` folder on every ``TaskManager``'s include
  path, before the user's ``--include_path`` so that a user's task of the same name wins; a
  task of ours that overrides one of lm-eval's own is an error (:class:`TaskNameClash`);
* ``lm_eval.api.model``: for our models' requests, makes the ``--use_cache`` key depend on the
  audio content and the ``audio=`` condition, keeps requests that failed for good out of the
  cache, and moves an unreadable cache file aside (with a warning) instead of failing the run;
* ``lm_eval.tasks._factory``: leaves out of a group a member task whose data is absent from a
  partial snapshot (only our loaders raise the errors marked ``skippable_in_group``);
* ``lm_eval.api.group``: lets a group average its subgroups instead of its leaf tasks (our
  YAMLs' ``metadata: {aggregate_over: subgroups}``: AIR-Bench's average of categories); marks a
  group that a partial snapshot left with fewer tasks than it lists, in its alias and results;
* ``lm_eval.evaluator_utils``: tells our tasks' aggregation functions which task they
  aggregate (the judge metrics) and lets them report their own standard errors;
* ``lm_eval.evaluator``: starts each run with a fresh run state; refuses a credential in our
  models' ``--model_args`` and, for runs of our models or tasks, in ``--metadata``, before
  lm-eval logs them; runs the judge preflight; puts what the run state holds into the results;
* ``lm_eval.loggers.evaluation_tracker``: writes the judge logs next to lm-eval's results;
  names a ``cascade`` run's results folder after its recognizer and LLM, and an ablated run's
  (``audio=none``, ...) after its condition;
* ``lm_eval.__main__``: prints the plugin's own errors (bad data, a missing judge, a
  credential in ``--model_args``) as one message and exit status 2, without lm-eval's
  traceback (``LM_EVAL_AUDIO_TRACEBACK=1`` keeps it).
"""

from __future__ import annotations

from lm_eval_audio.harness.cli_patches import on_cli, on_utils
from lm_eval_audio.harness.run_patches import on_api_model, on_evaluation_tracker, on_evaluator
from lm_eval_audio.harness.task_patches import (
    on_evaluator_utils,
    on_group,
    on_registry,
    on_task_factory,
    on_task_manager,
)

PATCHES = {
    "lm_eval.__main__": on_cli,
    "lm_eval.api.registry": on_registry,
    "lm_eval.tasks.manager": on_task_manager,
    "lm_eval.api.model": on_api_model,
    "lm_eval.api.group": on_group,
    "lm_eval.tasks._factory": on_task_factory,
    "lm_eval.evaluator_utils": on_evaluator_utils,
    "lm_eval.evaluator": on_evaluator,
    "lm_eval.loggers.evaluation_tracker": on_evaluation_tracker,
    "lm_eval.utils": on_utils,
}
