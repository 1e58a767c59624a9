"""``lm-eval-audio diagnose``: how much of a model's score needs the audio.

    lm-eval-audio diagnose --model cascade --tasks airbench_sample
    lm-eval-audio diagnose --model hf-audio --model_args pretrained=Qwen/Qwen2-Audio-7B-Instruct \\
        --tasks airbench_foundation --output_path diagnose

One model, loaded once, is evaluated under ``audio=full``, ``audio=none`` and, for each N of
``--fragments`` (the paper's 2, 3, 4 and 5 by default: 14 fragment runs),
``audio=fragment:N:1`` .. ``fragment:N:N`` (``lm_eval_audio.audio.conditions``), each run
saved as ``lm_eval --output_path ... --log_samples`` would save it and keyed apart in one
request cache (``--use_cache``, on by default), so a re-run, or one with more fragments,
asks the model only for what is new. Per task it reports (arXiv 2604.24401; docs/DIAGNOSTICS.md
gives the definitions):

* Acc_full, Acc_none and R_TP = Acc_none / Acc_full, the share of the score the text prior
  alone keeps; with ``--text_backbone``, Acc_TB, the score of the model's text LLM on the same
  prompts (``lm_eval_audio.analysis.text_backbone``);
* the accuracy under each fragment, and per N the retention R_N = the mean over its N fragments / Acc_full;
* each document's class: TS (right with and without the audio), FS (right, wrong without
  audio, right with some fragment of some N), XS (right, wrong without audio and with every
  fragment of every N), AH (wrong, but right without the audio), UN (wrong with and without);
  and XS / (FS + XS), the share of the audio-dependent documents that need the whole clip.

A document is "right" when its score reaches the metric's threshold: 0.5 for scores that are
0 or 1 (accuracies), for graded scores what the task's benchmark declares, or ``--threshold``. A document left
without a score under full or none, or under the fragments when its class depends on them
(a judge failure; missing audio; a request that failed for good, whose empty answer says
nothing of the model), is counted apart as unscored, never as wrong. The accuracies stay the
ones each run reports, failed requests included, and a note says how many there were.

The parts: ``diagnose_scores`` (classes and accuracies per task and per group), ``diagnose_render`` (the
tables and the plot), ``diagnose_runner`` (one model through lm-eval under every condition); this module is the
command.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict

from lm_eval_audio.analysis.diagnose_render import plot, table
from lm_eval_audio.analysis.diagnose_runner import evaluate_conditions
from lm_eval_audio.analysis.diagnose_scores import DEFAULT_FRAGMENTS, diagnose_runs, fragment_counts
from lm_eval_audio.endpoints.model_args import metadata_json


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="lm-eval-audio diagnose",
        description="Text-prior and audio-reliance diagnostics: one model under audio=full, none and "
                    "fragment:N:1..N for each N; per task Acc_full, Acc_none, R_TP, R_N and the TS/FS/XS/AH/UN "
                    "counts.",
    )
    p.add_argument("--model", required=True, help="hf-audio, openai-audio or cascade")
    p.add_argument("--model_args", default="", help="as for lm_eval, without audio=")
    p.add_argument("--tasks", required=True, help="comma-separated tasks or groups, as for lm_eval")
    p.add_argument("--fragments", default=",".join(map(str, DEFAULT_FRAGMENTS)),
                   help="N, the number of equal slices, or several: 2,3,4,5 (the default, the paper's: FS and XS "
                        "over all 14 fragments)")
    p.add_argument("--text_backbone", default=None, metavar="MODEL_ARGS",
                   help="the model's text LLM, as --model_args for --text_backbone_model (e.g. "
                        "pretrained=Qwen/Qwen-7B-Chat): run on the same prompts without the audio, reported as Acc_TB")
    p.add_argument("--text_backbone_model", default="hf",
                   help="any lm-eval model name for --text_backbone (default hf)")
    p.add_argument("--output_path", default="diagnose",
                   help="a folder of its own (default: diagnose, apart from lm_eval's results): each condition's "
                        "results and samples, the request cache, and diagnose_<date>.md/.json/.png")
    p.add_argument("--use_cache", default=None,
                   help="lm-eval request cache (default: <output_path>/<model>/request_cache/<hash of the model "
                        "arguments>/requests)")
    p.add_argument("--limit", type=float, default=None)
    p.add_argument("--metadata", type=metadata_json, default={},
                   help="JSON, as lm_eval's --metadata (judge settings, data folders)")
    p.add_argument("--include_path", default=None)
    p.add_argument("--batch_size", default="1")
    p.add_argument("--device", default=None)
    # As for lm_eval, so that the full condition is the run the user already made (and its cache applies).
    p.add_argument("--num_fewshot", type=int, default=None)
    p.add_argument("--gen_kwargs", default=None)
    p.add_argument("--apply_chat_template", action="store_true")
    p.add_argument("--system_instruction", default=None)
    p.add_argument("--metric", default=None,
                   help="comma-separated metrics to try, first found wins (default: the headline metrics of each "
                        "task's benchmark, then acc, exact_match)")
    p.add_argument("--threshold", type=float, default=None,
                   help="score at which a document counts as right (default: 0.5 for 0/1 accuracies; for graded "
                        "scores what the task's benchmark declares)")
    return p


def main(argv: list[str] | None = None) -> None:
    from lm_eval_audio.storage import run_state

    started = run_state.started(run_state.Run())  # the command's run: each condition's evaluate within it
    try:
        _diagnose(build_parser().parse_args(argv))
    finally:
        run_state.ended(started)


def _diagnose(args) -> None:
    try:
        args.fragments = fragment_counts(args.fragments)
    except ValueError as e:
        raise SystemExit(f"diagnose: {e}") from None
    if args.limit is not None and args.limit >= 1:
        args.limit = int(args.limit)
    from lm_eval_audio.harness import startup

    startup.install()
    from lm_eval.utils import setup_logging

    setup_logging("INFO")
    per_condition, folder = evaluate_conditions(args)
    wanted = args.metric.split(",") if args.metric else None
    try:
        rows = diagnose_runs(per_condition, args.fragments, wanted, args.threshold, chosen_by_user=bool(args.metric))
    except ValueError as e:
        raise SystemExit(f"diagnose: {e}") from None
    text = table(rows, args.fragments)
    date_id = per_condition["full"]["date_id"]
    base = os.path.join(folder, f"diagnose_{date_id}")
    with open(base + ".md", "w", encoding="utf-8") as f:
        f.write(text)
    with open(base + ".json", "w", encoding="utf-8") as f:
        json.dump({"fragments": args.fragments, "conditions": list(per_condition), "date": date_id,
                   "tasks": [asdict(r) for r in rows]}, f, indent=2)
    plot(rows, args.fragments, base + ".png")
    sys.stdout.write(text)
    sys.stdout.write(f"\nWritten: {base}.md, {base}.json, {base}.png (each condition's results under {args.output_path})\n")
