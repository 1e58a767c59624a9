"""diagnose's runs: one model, loaded once, through lm-eval under every audio condition (and the text backbone),
each run saved as ``lm_eval --output_path ... --log_samples`` saves it, all keyed apart in one request cache."""

from __future__ import annotations

import hashlib
import logging
import os

from lm_eval_audio.analysis import text_backbone
from lm_eval_audio.analysis.diagnose_scores import TEXT_LABEL, condition_labels
from lm_eval_audio.audio.conditions import parse

log = logging.getLogger("lm_eval.audio.diagnose")

def evaluate_conditions(args) -> tuple[dict[str, dict], str]:
    """Run each condition through lm-eval in this process, saving each like ``lm_eval`` does;
    returns (label -> results with samples and date_id, the full run's folder)."""
    from lm_eval import simple_evaluate
    from lm_eval.api.registry import get_model
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager
    from lm_eval.utils import simple_parse_args_string

    from lm_eval_audio.harness.tracker_naming import folder_name, lm_eval_model_name, save_as_named
    from lm_eval_audio.model_wrappers.registry import results_folder_name

    model_args = args.model_args or ""
    # lm-eval's own reading, for what lm_eval's CLI does with it too (the tasks' metadata) and to refuse audio=
    # before the model loads; the model reads its arguments itself, and names the folders (results_name).
    given = simple_parse_args_string(model_args)
    if "audio" in given:
        raise SystemExit("diagnose: drop audio= from --model_args; diagnose runs full, none and the fragments itself")
    metadata = dict(args.metadata)  # a copy: the judge setting below is this run's
    from lm_eval_audio.judges import judge_config, task_judge

    named = [t for t in args.tasks.split(",") if t]
    if "smoke_test_judge" not in metadata and all(
            judge_config.resolve(metadata, task_judge.benchmark_key(t)) is None for t in named):
        # No judge: the synthetic samples would fall back to the bundled smoke-test judge, whose verdicts diagnose
        # never reads (run_results.metrics_to_try): every condition would wait on it for nothing.
        metadata["smoke_test_judge"] = None
        log.warning("diagnose: no judge endpoint configured, so no judge is asked and judged metrics are left out "
                    "(the bundled smoke-test judge's are no scores); pass --metadata '{\"smoke_test_judge\": "
                    "\"smollm2\"}' to run it anyway, or configure a judge")
    lm = get_model(args.model).create_from_arg_string(
        model_args, {"batch_size": args.batch_size, "max_batch_size": None, "device": args.device})
    if not hasattr(lm, "under"):
        raise SystemExit(f"diagnose: --model {args.model} takes no audio= condition; use hf-audio, openai-audio or cascade")
    default_name = lm_eval_model_name(model_args) or args.model
    # The full run's folder, where the summary goes: named as the harness names it.
    base_name = folder_name(results_folder_name(default_name, lm.results_name, lm.audio_condition))
    # lm-eval keys cached answers by the request alone: other model arguments get another cache.
    settings = hashlib.sha256(f"{args.model}|{model_args}".encode()).hexdigest()[:12]
    cache = args.use_cache or os.path.join(args.output_path, base_name, "request_cache", settings, "requests")
    os.makedirs(os.path.dirname(os.path.abspath(cache)), exist_ok=True)
    task_manager = TaskManager(include_path=args.include_path, metadata=given | metadata)
    tasks = [t for t in args.tasks.split(",") if t]

    def run(model, model_name: str, source: str, run_args: str, use_cache: str | None, run_tasks=None,
            switch=None, output_path=None) -> dict:
        """One condition through lm-eval, saved as ``lm_eval --output_path ... --log_samples`` saves it; ``model_name``:
        lm-eval's own name for the run (``tracker_naming.lm_eval_model_name``), which the harness makes ours
        when it saves the results, as for any run of our models (``registry.results_folder_name`` with the model's
        ``results_name`` and ``audio_condition``). ``switch``: the --metadata that gives ``run_tasks`` the text said in
        each clip in place of the clip."""
        tracker = EvaluationTracker(output_path=output_path or args.output_path)
        results = simple_evaluate(
            model=model, model_args=run_args, tasks=run_tasks or tasks, limit=args.limit, use_cache=use_cache,
            log_samples=True, evaluation_tracker=tracker, metadata=metadata | (switch or {}),
            task_manager=TaskManager(include_path=args.include_path, metadata=given | metadata | switch) if switch
            else task_manager,
            batch_size=args.batch_size, device=args.device, num_fewshot=args.num_fewshot, gen_kwargs=args.gen_kwargs,
            apply_chat_template=args.apply_chat_template, system_instruction=args.system_instruction,
        )
        # A pre-built model is "CUSTOM" to lm-eval: the run named as `lm_eval --model ...` would have named it.
        samples = results.pop("samples")
        date_id = save_as_named(tracker, results, samples, source, model_name)
        return {**results, "samples": samples, "date_id": date_id}

    per_condition = {}
    for label in condition_labels(args.fragments):
        # A copy of the loaded model under this condition (the weights shared): the model itself is never changed.
        under = lm.under(parse(label, "diagnose"))
        run_args = ",".join(a for a in (model_args, f"audio={label}") if a)  # what the results record
        log.info("diagnose: audio=%s", label)
        per_condition[label] = run(under, default_name, args.model, run_args, cache)
    texted, switch = _text_instead_of_audio(tasks, args.include_path)
    if texted:
        log.info("diagnose: %s with the text said in each clip in place of the clip", ", ".join(texted))
        # Its own folder: the model names its results folder itself (cascade), and this run is under audio=full
        per_condition[TEXT_LABEL] = run(lm.under(parse("full", "diagnose")), default_name, args.model, model_args, cache,
                                        texted, switch, os.path.join(args.output_path, "text-instead-of-audio"))
    if args.text_backbone is not None:
        log.info("diagnose: the text backbone, %s %s, on the same prompts without the audio",
                 args.text_backbone_model, args.text_backbone)
        backbone = get_model(args.text_backbone_model).create_from_arg_string(
            args.text_backbone, {"batch_size": args.batch_size, "max_batch_size": None, "device": args.device})
        name = lm_eval_model_name(args.text_backbone) or args.text_backbone_model
        # No request cache: lm-eval's key would hash the audio references, which this model never reads.
        per_condition[text_backbone.LABEL] = run(text_backbone.TextPromptsOnly(backbone), f"{name}__text-backbone",
                                                 args.text_backbone_model, args.text_backbone, None)
    return per_condition, os.path.join(args.output_path, base_name)


def _text_instead_of_audio(tasks: list[str], include_path) -> tuple[list[str], dict]:
    """The run's tasks whose benchmark publishes the text said in each clip, and the --metadata that gives it."""
    from lm_eval_audio.benchmarks import registry

    texted, switch = [], {}
    for benchmark, names in registry.by_benchmark(tasks, include_path).items():
        if benchmark.text_instead_of_audio:
            texted += names
            switch |= benchmark.text_instead_of_audio
    return texted, switch
