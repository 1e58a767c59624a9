"""URO-Bench's scores, as its scripts compute them (Ruiqi-Yan/URO-Bench@9e74bc04), on the transcript of each spoken
answer (``asr_for_eval.py``'s, here the answers' recognizer's):

* ``urobench_score`` of a judged subset (metrics/mark_gpt.py ``eval``): the 1-5 modes ``sum(item means) * 20 / N``
  (612, 644, 709, 747, 785, 817, 851), qa ``sum(item yes-rates) * 100 / N`` (678), each item's mean over the judge's
  three samples (``judges``). An answer that is not there or is empty ("" or " ": a clip that could not be read, a
  model that did not speak) scores 0, as the script scores it (an absent answer's transcript is " ",
  asr_for_eval.py); it stays in N and is counted (``audio_missing``, ``spoken_failed``). An item the judge could not
  read is left out of N and counted (``judge_failures``), where the script stops or scores 0 (``judges``).
* ``urobench_score`` of the dialogue subsets, MtBenchEval-en (multi) and SpeakerAware-en, -zh (sa) (mark_gpt.py
  682-707 and 855-880): one judge call per dialogue with every round's question, transcript and reference
  (``prompt_multi2``..``5`` by its number of rounds, ``prompt_sa``), read and scaled as the 1-5 modes. Each round
  is answered with the model's own earlier answers in its context (``model_wrappers.conversation``); a round with
  no answer is " " there, as asr_for_eval.py writes it, and the judge is asked all the same.
* ``urobench_score`` of SRT-en and -zh (metrics/mark_gemini.py): each spoken answer heard by the judge (gemini-2.0-flash
  there) with the prompt, its 1-5 rating read as the 1-5 modes, ``sum * 20 / N``; an answer with no audio scores 0
  and stays in N (the script stops on a missing wav).
* ``urobench_score`` of Repeat and Repeat-zh (metrics/mark_wer.py ``eval_repeat``, evaluate.py:186-191): each item's
  error rate ``get_wer(lang, transcript, reference)``, an item "ok" where it is at most 0.5; the score is ``ok_rate *
  (1 - mean rate of the ok items) * 100``. The transcript is jiwer's reference there and the text the hypothesis
  (mark_wer.py:146): kept so, which divides by the transcript's length. English (``wer_en``, 16-24): Whisper's
  ``EnglishTextNormalizer`` on ``strip().lower()`` of each, ``jiwer.wer``. Chinese (``wer_zh``, 28-49): every
  character of ``zhon.hanzi.punctuation + string.punctuation`` removed, one pass of double spaces to one,
  ``cn2an.transform(strip().lower(), "an2cn")``, ``jiwer.cer``. jiwer 3.0.5 (their pin) raises on an empty reference
  and the script scores that 1; jiwer 4 returns the insertions there, so an empty transcript is 1 here explicitly.

* ``urobench_score`` of GenEmotion-en and -zh (metrics/mark_emotion.py ``eval_ge``, 124-153): each item's
  probability of its ``emotion`` under emotion2vec+ large's nine-label softmax (the ``emotion`` metric,
  ``metrics.speech_quality``), times ``1 - min(error rate, 1)`` (the error rate as Repeat's, transcript first), times
  100; the score is their mean over N. An answer that is not there scores 0 (the script's missing wav, 119-120);
  one the recognizer could not rate is left out of N and counted (``speech_unrated``).

A track's score (``urobench_basic_en`` and the others) is the unweighted mean of its subsets' scores, and
``urobench``'s the mean of every subset run (evaluate.py ``final score on basic_en`` and ``final_score``): lm-eval's
group mean over the leaf tasks with ``weight_by_size: false``.
"""

from __future__ import annotations

import string

from lm_eval_audio.judges import task_judge
from lm_eval_audio.judges.judge_runner import judged_mean
from lm_eval_audio.metrics.speech_quality import answer_value
from lm_eval_audio.metrics.spoken_answer import SpokenAnswer, said
from lm_eval_audio.model_wrappers import failed_requests
from lm_eval_audio.tasks.urobench import judges
from lm_eval_audio.tasks.urobench.data import DIALOGUE_ROUNDS, EXTRA_FIELD, subset_of_task

SCORE = "urobench_score"
OK = 0.5  # mark_wer.py:150: ``if wer <= 0.5``
SCALE = {"qa": 100}  # the 1-5 modes: 20


def _wer_en(truth: str, hypothesis: str) -> float:
    import jiwer

    from lm_eval_audio.metrics.text_normalizers import whisper_english

    truth, hypothesis = whisper_english(truth.strip().lower()), whisper_english(hypothesis.strip().lower())
    return jiwer.wer(truth, hypothesis) if truth.strip() else 1.0


def _wer_zh(truth: str, hypothesis: str) -> float:
    import cn2an
    import jiwer
    from zhon.hanzi import punctuation

    for mark in punctuation + string.punctuation:
        truth, hypothesis = truth.replace(mark, ""), hypothesis.replace(mark, "")
    truth, hypothesis = truth.replace("  ", " "), hypothesis.replace("  ", " ")
    truth = cn2an.transform(truth.strip().lower(), "an2cn")
    hypothesis = cn2an.transform(hypothesis.strip().lower(), "an2cn")
    return jiwer.cer(truth, hypothesis) if truth.strip() else 1.0


def repeat_rate(language: str, transcript: str, reference: str) -> float:
    """mark_wer.py ``get_wer(lang, answer, reference)``: the transcript as jiwer's reference."""
    return (_wer_zh if language == "zh" else _wer_en)(transcript, reference)


def said_in_rounds(doc: dict, results: list, task_name: str) -> list[str]:
    """What a dialogue's answer says in each round: the transcript of the round's spoken answer (the text, in a run
    answered in text), " " for a round with no answer (asr_for_eval.py:90-91 writes " " where a round's wav is
    missing), each round's in order (``model_wrappers.conversation`` answers a dialogue with the list of its rounds)."""
    rounds = results[0] if results and isinstance(results[0], list) else []
    out = []
    for k in range(len(doc["turns"])):
        answer = rounds[k] if k < len(rounds) and not doc["audio_problem"] else None
        out.append(" " if answer is None or failed_requests.is_failed(answer) else said([answer], task_name)[0])
    return out


def _dialogue_item(doc: dict, results: list, task, mode: str) -> dict:
    """mark_gpt.py:691-702: five slots of question, answer and reference, "" past the dialogue's rounds."""
    answers = said_in_rounds(doc, results, task.name)
    item = {"doc_id": doc["doc_id"], "uniq_id": doc["uniq_id"], "mode": mode, "rounds": len(doc["turns"]),
            "unanswered": False}  # the script asks the judge of every dialogue, its missing rounds " "
    for j in range(5):
        turn = doc["turns"][j] if j < len(doc["turns"]) else {"question": "", "reference": ""}
        item.update({f"question{j}": turn["question"], f"answer{j}": answers[j] if j < len(answers) else "",
                     f"reference{j}": turn["reference"]})
    return item


def process_results(doc: dict, results: list, task) -> dict:
    subset = subset_of_task(task.name)
    missing = bool(doc["audio_problem"])
    out = {"audio_missing": float(missing)}
    if subset.mode in DIALOGUE_ROUNDS:
        if task.judged:
            item = _dialogue_item(doc, results, task, subset.mode)
            out.update({SCORE: item, "judge_failures": item})
        return out
    answer = "" if missing else said(results, task.name)[0]  # a text run scores the text (URO-Bench's --non_asr)
    if subset.mode == "wer":
        out[SCORE] = {"doc_id": doc["doc_id"], "rate": repeat_rate(doc["language"], answer, doc["reference"])}
    elif subset.mode == "ge":
        out[SCORE] = {"doc_id": doc["doc_id"], "mode": "ge", "emotion": _emotion_heard(doc, results, missing),
                      "rate": repeat_rate(doc["language"], answer, doc["reference"])}
    elif task.judged:
        item = {"doc_id": doc["doc_id"], "uniq_id": doc["uniq_id"], "mode": subset.mode, "question": doc["question"],
                "reference": doc["reference"], "response": answer, "unanswered": answer in ("", " ")}
        if subset.mode == "srt":  # its judge hears the answer: unanswered only where there is nothing to hear
            spoken = results[0] if results and isinstance(results[0], SpokenAnswer) and not missing else None
            item["answer_audio"] = {k: spoken.audio[k] for k in ("path", "sha256")} \
                if spoken is not None and spoken.audio.get("seconds") else None
            item["unanswered"] = item["answer_audio"] is None
        if subset.mode in EXTRA_FIELD:
            item[EXTRA_FIELD[subset.mode]] = doc[EXTRA_FIELD[subset.mode]]
        out.update({SCORE: item, "judge_failures": item})
    return out


def _emotion_heard(doc: dict, results: list, missing: bool) -> float | None:
    """The probability of the document's emotion in its spoken answer; 0 where there is no answer to hear (the
    script's missing wav), None where the recognizer could not rate one."""
    answer = results[0] if results else None
    if missing or not isinstance(answer, SpokenAnswer) or not answer.audio.get("seconds"):
        return 0.0
    return answer_value(answer, "emotion", doc)


def _genemotion_score(items: list[dict], task) -> float:
    """mark_emotion.py:146-153: ``posibility_emo * (1 - min(WER, 1)) * 100``, averaged over the rated items."""
    scores = [(i["doc_id"], None if i["emotion"] is None else i["emotion"] * (1 - min(i["rate"], 1.0)) * 100)
              for i in items]
    task.report_item_scores(SCORE, scores)
    rated = [score for _, score in scores if score is not None]
    if not rated:
        return task.not_a_number(SCORE, "emotion2vec rated none of the answers (speech_unrated counts them)")
    return sum(rated) / len(rated)


def _verdicts(items: list[dict], task) -> list[list[int] | None]:
    """Per item its three samples; ``[0, 0, 0]`` for an unanswered item (no call), None for a judge failure."""
    asked = [i for i in items if not i["unanswered"]]
    mode = items[0]["mode"]
    found = dict(zip((i["doc_id"] for i in asked), judges.judge(mode, asked, task_judge.for_aggregation(task), task)))
    return [[0, 0, 0] if i["unanswered"] else found[i["doc_id"]] for i in items]


def _repeat_score(items: list[dict], task) -> float:
    rates = [i["rate"] for i in items]
    ok = [r for r in rates if r <= OK]
    ok_rate = len(ok) / len(rates)
    wer_ok = sum(ok) / len(ok) if ok else 0.0
    task.report_item_scores(SCORE, [(i["doc_id"], i["rate"]) for i in items])
    task.note_for_task("urobench_repeat", SCORE, {"ok_rate": ok_rate, "final_WER_for_ok_case": wer_ok})
    return ok_rate * (1 - wer_ok) * 100


def urobench_score(items: list[dict], task) -> float:
    if items[0].get("mode") == "ge":
        return _genemotion_score(items, task)
    if "rate" in items[0]:
        return _repeat_score(items, task)
    scale = SCALE.get(items[0]["mode"], 20)
    return judged_mean(task, SCORE, items, _verdicts(items, task),
                       lambda samples: judges.item_score(samples) * scale, "item")


def judge_failures(items: list[dict], task) -> int:
    return sum(v is None for v in _verdicts(items, task))
