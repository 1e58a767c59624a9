"""Hooks for the AIR-Bench tasks: data, prompts, per-item scoring and the judge metrics.

The work is done in ``lm_eval_audio.tasks.airbench.data`` (data, prompts, answer rule) and
``lm_eval_audio.tasks.airbench.judges`` (judge prompts and parsers); this file only
connects them to lm-eval's task fields.
"""

from __future__ import annotations

from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.benchmarks.data_notes import loader
from lm_eval_audio.judges import task_judge
from lm_eval_audio.judges.judge_runner import judged_mean
from lm_eval_audio.tasks.airbench import data, judges
from lm_eval_audio.metrics.aggregations import count  # noqa: F401  (an aggregation the YAMLs name)
from lm_eval_audio.metrics.stderr import proportion_stderr


def _docs(track: str, task_names, sample: bool, metadata: dict, notes) -> list[dict]:
    source = data.data_source(metadata, (track,), sample)
    notes.note("sources", data.source_key(track, sample), source.record())
    names = list(task_names) if task_names else None
    label = ", ".join(names) if names else track
    author_prompts.authors_text(notes, f"AIR-Bench {label}", metadata, data.AUTHORS_PROMPTS[track], "AIR-Bench",
                                overridable=False)  # recorded: each item keeps its own question
    return data.load_items(source, track, names, label, notes=notes)


@loader
def load_foundation(task_names=None, sample=False, *, notes, **metadata):
    return _docs("Foundation", task_names, sample, metadata, notes)


@loader
def load_chat(task_names=None, sample=False, *, notes, **metadata):
    return _docs("Chat", task_names, sample, metadata, notes)


def foundation_prompt(doc):
    return data.foundation_prompt(doc)


def chat_prompt(doc):
    return doc["question"]  # Inference_Chat.py: `instruction = question`


def doc_to_audio(doc):
    if doc["audio_problem"]:
        # The model wrappers skip a request whose audio is unavailable (empty answer).
        return [{"path": doc["audio"], "unavailable": doc["audio_problem"]}]
    return [doc["audio"]]


# --- per-document results --------------------------------------------------------------


def process_foundation(doc, results, task):
    response = results[0]
    missing = bool(doc["audio_problem"])
    gold = data.answer_letter(doc)
    letter = None if missing else data.official_choice(response)
    folder = data.folder_of(doc)
    out = {
        "exact_match": float(letter == gold),
        "format_followed": float(not missing and data.follows_answer_format(response)),
        "exact_match_rule_parsed": float(letter is not None),
        # None: left out of the official denominator. With the folder, for score_foundation.py's per-folder table.
        "exact_match_official": {"doc_id": doc["doc_id"], "folder": folder,
                                 "score": None if letter is None else float(letter == gold)},
        "audio_missing": float(missing),
    }
    if task.judged:
        item = {
            "doc_id": doc["doc_id"],
            "uniq_id": doc["uniq_id"],
            "folder": folder,
            "question": doc["question"],
            "choices": data.choices_of(doc),
            "response": response,
            "answer": gold,
            "audio_missing": missing,
        }
        out["gpt_align"] = item
        out["gpt_align_official"] = item
        out["gpt_align_judge_failures"] = item
    return out


def process_chat(doc, results):
    item = {
        "doc_id": doc["doc_id"],
        "uniq_id": doc["uniq_id"],
        "question": doc["question"],
        "meta_info": doc["meta_info"],
        "answer_gt": doc["answer_gt"],
        "response": results[0],
        "audio_missing": bool(doc["audio_problem"]),
    }
    return {
        "score": item,
        "reference_score": item,
        "win_rate": item,
        "judge_failures": item,
        "audio_missing": float(item["audio_missing"]),
    }


# --- aggregations (rank 0, after the gather) ---------------------------------------------


# Standard errors are None (lm-eval prints N/A) below two items: lm-eval's pooled group
# stderr divides by the summed (n - 1).
def _report_by_folder(task, metric: str, scores: list[tuple[str, float | None]]) -> None:
    """The metric per audio folder, as score_foundation.py prints it, into the results JSON
    (``lm_eval_audio_data.airbench_folder_accuracy.<task>.<metric>``)."""
    task.note_for_task("airbench_folder_accuracy", metric, data.accuracy_by_folder(scores))


def _official_accuracy(task, metric: str, scored: list[tuple[str, float | None]], none_scored: str) -> float:
    """The official scripts' accuracy from (folder, score) pairs, None left out of the denominator, with the
    per-folder numbers and the standard error beside it; NaN, for the reason ``none_scored``, when every
    item was left out."""
    _report_by_folder(task, metric, scored)
    kept = [score for _, score in scored if score is not None]
    if not kept:
        return task.not_a_number(metric, none_scored)
    acc = sum(kept) / len(kept)
    task.report_stderr(metric, proportion_stderr(acc, len(kept)))
    return acc


def exact_match_official(items, task):
    """score_foundation.py's accuracy: unparsed answers left out of the denominator; per folder beside it."""
    task.report_item_scores("exact_match_official", [(i["doc_id"], i["score"]) for i in items])
    return _official_accuracy(task, "exact_match_official", [(i["folder"], i["score"]) for i in items],
                              f"no answer follows the exact-match rule (0 of {len(items)} parsed)")


def _aligned_letters(items, task):
    judged = [i for i in items if not i["audio_missing"]]
    letters = judges.judge_choices(judged, task_judge.for_aggregation(task), task)
    return judged, letters


def gpt_align(items, task):
    """Accuracy after the judge maps each response to a letter; a response the judge
    could not map (after re-asks) counts as wrong and is counted in
    ``gpt_align_judge_failures``; missing audio counts as wrong and in ``audio_missing``."""
    judged, letters = _aligned_letters(items, task)
    if judged and all(letter is None for letter in letters):
        # Not a score of 0: the judge answered nothing usable (a wrong key, model or endpoint).
        return task.not_a_number("gpt_align", f"the judge could map none of the {len(judged)} responses to a letter "
                                              "(the judge log has its replies)")
    # Missing audio and unmapped responses count as wrong.
    right = {item["doc_id"] for item, letter in zip(judged, letters) if letter == item["answer"]}
    task.report_item_scores("gpt_align", [(i["doc_id"], float(i["doc_id"] in right)) for i in items])
    _report_by_folder(task, "gpt_align", [(i["folder"], float(i["doc_id"] in right)) for i in items])
    acc = len(right) / len(items)
    task.report_stderr("gpt_align", proportion_stderr(acc, len(items)))
    return acc


def gpt_align_official(items, task):
    """The official pipeline's accuracy: ``align_in_foundation.py`` writes no answer for a failed judge call,
    and ``score_foundation.py`` leaves a judge reply without a letter out of the denominator; so here the items
    the judge could not map (and those without audio) are left out. Beside ``gpt_align``, which counts them
    wrong."""
    judged, letters = _aligned_letters(items, task)
    scores = [None if letter is None else float(letter == item["answer"]) for item, letter in zip(judged, letters)]
    task.report_item_scores("gpt_align_official", [(item["doc_id"], s) for item, s in zip(judged, scores)])
    return _official_accuracy(task, "gpt_align_official", [(i["folder"], s) for i, s in zip(judged, scores)],
                              f"the judge could map none of the {len(judged)} responses to a letter (the judge log "
                              "has its replies)")


def gpt_align_judge_failures(items, task):
    judged, letters = _aligned_letters(items, task)
    task.report_item_scores("gpt_align_judge_failures",
                            [(item["doc_id"], float(letter is None)) for item, letter in zip(judged, letters)])
    return sum(letter is None for letter in letters)


def _chat_verdicts(items, task):
    """The judged items (audio present) and their verdicts, None where a pass failed."""
    judged = [i for i in items if not i["audio_missing"]]
    return judged, judges.judge_chat(judged, task_judge.for_aggregation(task), task)


# The chat tasks need a judge (judge: required, refused before the model loads without one); a YAML of a user's that
# makes it optional gets NaN with this reason, never an error after the answers.
NO_CHAT_JUDGE = "no judge is configured, and the chat scores are the judge's alone (the answers are logged)"


def _chat_mean(task, metric: str, items, value):
    if not task.judged:
        return task.not_a_number(metric, NO_CHAT_JUDGE)
    return judged_mean(task, metric, *_chat_verdicts(items, task), value, "item")


def score(items, task):
    """The model's score, 1-10: each item's mean over the two judge passes."""
    return _chat_mean(task, "score", items, lambda v: sum(v["model"]) / 2)


def reference_score(items, task):
    """The reference answer's score, 1-10, over the same passes."""
    return _chat_mean(task, "reference_score", items, lambda v: sum(v["reference"]) / 2)


def win_rate(items, task):
    """Share of passes where the model scored strictly above the reference (cal_score.py)."""
    return _chat_mean(task, "win_rate", items,
                      lambda v: sum(m > r for m, r in zip(v["model"], v["reference"])) / 2)


def judge_failures(items, task):
    """Items left out of the chat scores because a judge pass failed."""
    if not task.judged:
        return task.not_a_number("judge_failures", NO_CHAT_JUDGE)
    judged, verdicts = _chat_verdicts(items, task)
    task.report_item_scores("judge_failures", [(i["doc_id"], float(v is None)) for i, v in zip(judged, verdicts)])
    return sum(v is None for v in verdicts)
