"""The plugin's extensions of lm-eval 0.4.13, one function per lm-eval module, kept by concern in
``task_patches`` (models and tasks into lm-eval), ``task_building`` (our tasks and groups as lm-eval builds
them), ``request_cache`` (``--use_cache`` for our models), ``run_patches`` (the run, the files beside the
results), ``cli_patches`` (the command line) and ``printed_table`` (the printed table); :data:`PATCHES` maps each watched
lm-eval module to its patch.

Eight lm-eval callables are replaced, each because lm-eval 0.4.13 offers no supported way to do its job (it
reads no plugin entry points and has no hooks for these); each acts only on the plugin's own models
(``model_wrappers.registry.is_ours``), tasks (``benchmarks.registry.our_task_names``) and audio references,
and otherwise calls lm-eval's code with the same arguments:

* ``TaskManager.__init__`` (``lm_eval.tasks.manager``): puts our ``tasks/`` folder on every ``TaskManager``'s
  include path, before the user's ``--include_path`` so that a user's task of the same name wins (a task of
  ours that overrides one of lm-eval's own is an error, :class:`~task_patches.TaskNameClash`), and starts the
  run state of the run whose tasks it reads;
* ``load_yaml`` as ``lm_eval.tasks._index`` names it (patched as ``lm_eval.tasks.manager`` loads): each task YAML
  file's parse kept between runs while the files it read are unchanged (``task_index_cache``), where every
  ``TaskManager`` parsed all of them again (about 9 s);
* ``TaskFactory.build`` (``lm_eval.tasks._factory``): makes our tasks and groups subclasses of lm-eval's
  (``task_building``: each scoring function gets its task's ``TaskScoring``; groups average their subgroups
  and say when a partial snapshot left them short), takes each loader's notes into the run state, and leaves
  out of a group a member whose data is absent (only our loaders raise the errors marked
  ``skippable_in_group``);
* ``CachingLM`` (``lm_eval.api.model``): a subclass in its place, so that ``--use_cache`` keys our models'
  requests by audio content and ``audio=`` condition and keeps failed requests out (``request_cache``);
* ``evaluate`` (``lm_eval.evaluator``): runs the judge preflight and starts each task's scoring before the model
  runs, scores a document whose request failed wrong while one of our models runs (``failed_scoring``), and puts
  what each task's scoring, the model's notes and the loaders' notes hold (judge summaries, data notes,
  per-document scores, standard errors our aggregations report) into the results, its samples as strict JSON
  (``null`` for NaN and infinities, as lm-eval writes them as they are), returned as a ``RunResults`` that
  carries the tasks' scorings on to the two below;
* ``EvaluationTracker.save_results_aggregated`` (``lm_eval.loggers.evaluation_tracker``): names a ``cascade``
  run's results folder after its recognizer and LLM and an ablated run's after its condition, writes each null's
  reason beside it, and the judge logs and test-set predictions next to lm-eval's results;
* ``Run._execute`` (``lm_eval._cli.run``): the one function every way of starting a run reaches (the ``lm_eval``
  script, ``python -m lm_eval``, ``accelerate launch -m lm_eval``, ``torchrun -m lm_eval``, ``lm-eval-audio``):
  makes the command's run (``storage.run_state``), prints the plugin's own errors (bad data, a missing judge, a
  credential, a model that cannot be found) as one message and exit status 2, without lm-eval's traceback
  (``LM_EVAL_AUDIO_TRACEBACK=1`` keeps it), and Ctrl-C as one line with exit status 130; and, before lm-eval runs,
  parses the run's configuration once with lm-eval's own ``EvaluatorConfig.from_cli`` (every argument form,
  ``--config`` FILE merged), checks it before a task is built or the model loads (the data the tasks read, the
  credentials, the judges, the device named, the checkpoint and its family) and hands that configuration to lm-eval
  (``cli_patches.parsed_once``);
* ``make_table`` (``lm_eval.utils``): prints our count metrics apart, as integers, and rates without an arrow, and
  why each NaN is one under the table.

What else the seam does to lm-eval (our models registered, and taken out again when the plugin steps aside; three
logging filters; lm-eval's own multiple-choice tasks scored wrong on a failed request while our model runs; our
tasks' subclasses) is listed in docs/ARCHITECTURE.md ("The lm-eval seam"), each with the public API that would
replace it.
"""

from __future__ import annotations

from lm_eval_audio.harness.cli_patches import on_cli_run
from lm_eval_audio.harness.printed_table import on_utils
from lm_eval_audio.harness.request_cache import on_api_model
from lm_eval_audio.harness.run_patches import on_evaluation_tracker, on_evaluator
from lm_eval_audio.harness.task_building import on_task_factory
from lm_eval_audio.harness.task_patches import on_registry, on_task_manager

PATCHES = {
    "lm_eval._cli.run": on_cli_run,
    "lm_eval.api.registry": on_registry,
    "lm_eval.tasks.manager": on_task_manager,
    "lm_eval.api.model": on_api_model,
    "lm_eval.tasks._factory": on_task_factory,
    "lm_eval.evaluator": on_evaluator,
    "lm_eval.loggers.evaluation_tracker": on_evaluation_tracker,
    "lm_eval.utils": on_utils,
}
