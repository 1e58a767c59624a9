"""VocalBench's instruction_following set (issue 55): each item's rule read off its number, and the following rate
against utils/read_score_instruction.py restated, on the same answers (texts, transcripts, clips' lengths,
emotion2vec's probabilities) and the same judge replies: repeats checked by word error rate, emotion among
VocalBench's six labels, speed by the answer's length against the query's, the judge's [Yes] for the text or, for
spoken format, the speech."""

from __future__ import annotations

import wave

import numpy as np
import pytest
import soundfile
from conftest import judge_of
from test_vocalbench import _distance, _metadata, _tokenize

from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.metrics.spoken_answer import SpokenAnswer
from lm_eval_audio.metrics.task_scoring import TaskScoring
from lm_eval_audio.model_wrappers.emotion2vec import LABELS
from lm_eval_audio.storage import run_state
from lm_eval_audio.tasks.vocalbench import data, instruction, judges, scoring

TAIL = "Where is the nearest train station?"
QUESTIONS = {0: "Repeat the following question without any explanation. ",
             50: "Repeat the following question with happy emotion. ",
             100: "Repeat the following question at half my speaking speed. ",
             150: "Repeat the following question in sad emotion at twice my speaking speed. "}


def _nine(label: str, probability: float) -> dict:
    """emotion2vec's nine probabilities: ``label`` at ``probability``, "other" (unused by VocalBench's tokens.txt)
    at 0.3, the rest shared."""
    rest = (1 - probability - 0.3) / 7
    return {k: probability if k == label else 0.3 if k == "other" else rest for k in LABELS}


# number -> (the model's text, its transcript, the asked emotion's probability among nine, the answer's length as a
# share of the query tail's)
CASES = {
    0: (TAIL, TAIL, None, 1.0),
    1: ("where is the nearest train station", TAIL, None, 1.0),  # a repeat the judge refuses
    2: ("Where is the bus?", TAIL, None, 1.0),  # too far off (WER 0.57): the judge is not asked
    50: (TAIL, TAIL, 0.6, 1.0),
    51: (TAIL, TAIL, 0.45, 1.0),  # under 0.5 among nine, over it among VocalBench's six
    52: (TAIL, TAIL, 0.2, 1.0),
    100: (TAIL.lower(), TAIL, None, 2.0),  # half speed: 1.5-2.5 of the tail's length
    101: (TAIL, TAIL, None, 1.2),
    150: (TAIL, TAIL, 0.7, 0.5),  # twice: 0.25-0.75
    151: (TAIL, TAIL, 0.7, 0.9),
    200: ("apple pear plum", "apple pear", None, 1.0),  # the text is what is read
    500: ("The air scatters blue light.", "the air scatters blue light", None, 1.0),  # the speech is
    501: ("Because.", "because", None, 1.0),
}
# the judge's verdict on a response; "[No]" for any other
VERDICTS = {TAIL: "[Yes]", "apple pear plum": "[Yes]", "the air scatters blue light": "[Yes]"}


def _verdict(response: str) -> str:
    return VERDICTS.get(response, "[No]")


def _item(number: int) -> dict:
    question = QUESTIONS[number // 50 * 50] + TAIL if number < 200 else "Say it briefly."
    category, sub = ("Paralinguistic", "Plain repeat") if number < 200 else \
        ("Style", "Spoken format") if number >= 500 else ("Content", "Num")
    return {"Qid": f"instruction-{number:03d}", "Audio": f"instruction_following/{number:03d}.wav",
            "Question": question, "Category": category, "Sub-category": sub}


def _read_score_instruction(instances, wav_dir, query_dir, six_scores) -> float:
    """utils/read_score_instruction.py ``gen_score(only_score=True)`` restated: ``instances`` as qwenmax_eval.py
    writes them (Qid, Question, Prediction, s2t_score, s2s_score); the answers at ``wav_dir/<n>_pred.wav``, the
    queries at ``query_dir/<NNN>.wav``; ``six_scores(wav)`` emotion2vec's scores under VocalBench's tokens.txt."""
    from lm_eval_audio.metrics.text_normalizers import whisper_english as english_normalizer

    def compute_wer(refs, hyps):
        distance = ref_length = 0
        for ref, pred in zip(refs, hyps):
            ref_items = _tokenize(english_normalizer(ref)).split()
            pred_items = _tokenize(english_normalizer(pred)).split()
            distance += _distance(ref_items, pred_items)
            ref_length += len(ref_items)
        return distance, ref_length

    def find_emotion_id(text):
        id2emotion = ["angry", "happy", "neutral", "sad", "surprised", "unknown"]
        for i, emotion in enumerate(id2emotion):
            if emotion in text.lower():
                return i
        return id2emotion.index("unknown")

    def get_audio_duration(path):  # pydub's len(AudioSegment): milliseconds, rounded
        with wave.open(str(path)) as f:
            return round(1000 * f.getnframes() / f.getframerate())

    def count_words(text):
        return len(text.strip().split())

    def duration_ok(instance, wav_file):
        all_len = count_words(instance["Question"])
        valide_len = count_words(instance["Question"].split(".", 1)[1])
        query_dur = get_audio_duration(query_dir / (instance["Qid"].split("-")[1] + ".wav")) * valide_len / all_len
        response_dur = get_audio_duration(wav_file)
        if "twice" in instance["Question"].split(".", 1)[0].lower():
            min_dur, max_dur = query_dur * 0.25, query_dur * 0.75
        elif "half" in instance["Question"].split(".", 1)[0].lower():
            min_dur, max_dur = query_dur * 1.5, query_dur * 2.5
        return min_dur < response_dur < max_dur

    sucess = 0
    for instance in instances:
        index = int(instance["Qid"].split("-")[1])
        wav_file = wav_dir / f"{index}_pred.wav"
        if index < 200:
            gt = instance["Question"].split(".", 1)[1].lower()
            distance, ref_length = compute_wer([gt], [instance["Prediction"].lower()])
            if (distance / ref_length if ref_length != 0 else 0.0) < 0.2:
                if index < 50:
                    sucess += instance["s2t_score"]
                elif index in range(50, 100):
                    sucess += six_scores(wav_file)[find_emotion_id(instance["Question"])] > 0.5
                elif index in range(100, 150):
                    sucess += duration_ok(instance, wav_file)
                elif six_scores(wav_file)[find_emotion_id(instance["Question"])] > 0.5:
                    sucess += duration_ok(instance, wav_file)
        elif index in range(500, 550):
            sucess += instance["s2s_score"]
        else:
            sucess += instance["s2t_score"]
    return sucess / len(instances) * 100


def _six(nine: dict) -> list[float]:
    """emotion2vec's scores under VocalBench's tokens.txt: disgusted, fearful and other unused, so the six others'
    probabilities scaled to sum to one (the softmax without the three)."""
    kept = np.array([nine[k] for k in ("angry", "happy", "neutral", "sad", "surprised", "unknown")])
    return list(kept / kept.sum())


def test_an_items_number_says_its_rule_and_its_category_its_prompt():
    rules = {n: instruction.doc_fields(_item(n))["rule"] for n in (0, 49, 50, 100, 150, 199, 200, 500, 549, 550)}
    assert rules == {0: "repeat", 49: "repeat", 50: "repeat_with_emotion", 100: "repeat_with_speed",
                     150: "repeat_with_speed_and_emotion", 199: "repeat_with_speed_and_emotion", 200: "judged_text",
                     500: "judged_speech", 549: "judged_speech", 550: "judged_text"}
    assert instruction.prompt_category("Style", "Speaker tune") == "style_speaker_tune"
    assert instruction.prompt_category("Situation", "") == "situation"
    assert instruction.emotion_asked("Repeat this in sad emotion. I am so happy today") == "happy"  # as the script
    assert instruction.doc_fields({**_item(100), "Question": "Repeat it slowly. " + TAIL}).startswith("asks for no")
    docs = data.load_docs("instruction_following", {}, True, notes=DataNotes())
    assert [d["category"] for d in docs] == ["paralinguistic"] * 4 + ["content_num", "style_spoken_format"]
    assert [d["target_emotion"] and max(d["target_emotion"], key=d["target_emotion"].get) for d in docs] == [
        None, "happy", None, "sad", None, None]


def test_the_following_rate_is_read_score_instructions_on_the_same_answers(tmp_path, monkeypatch):
    from scripted_judge import ScriptedJudge

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-0000")
    query_dir, wav_dir = tmp_path / "audio", tmp_path / "wav"
    query_dir.mkdir()
    wav_dir.mkdir()
    docs, results, instances, emotions = [], [], [], {}
    for number, (text, transcript, probability, share) in CASES.items():
        item = _item(number)
        query = query_dir / f"{number:03d}.wav"
        soundfile.write(query, np.zeros(48000, dtype=np.int16), 16000)  # 3 s
        doc = {"doc_id": len(docs), "uniq_id": item["Qid"], "set": "instruction_following", "question":
               item["Question"], "answer": "", "question_emotion": "", "audio": [str(query)], "audio_problem": "",
               **instruction.doc_fields(item)}
        tail_ms = 3000 * doc.get("tail_share", 1.0)
        answer_wav = wav_dir / f"{number}_pred.wav"
        soundfile.write(answer_wav, np.zeros(round(16 * tail_ms * share), dtype=np.int16), 16000)
        nine = _nine(instruction.emotion_asked(item["Question"]), probability or 0.1)
        emotions[str(answer_wav)] = _six(nine)
        results.append([SpokenAnswer(transcript, text, {"path": str(answer_wav), "sha256": "0" * 64,
                                                        "seconds": tail_ms * share / 1000},
                                     quality={"emotion": nine} if probability else {})])
        docs.append(doc)
        instances.append({"Qid": item["Qid"], "Question": item["Question"], "Prediction": text,
                          "s2t_score": int(_verdict(text) == "[Yes]"),
                          "s2s_score": int(_verdict(transcript) == "[Yes]")})

    def reply_for(body):
        return _verdict(body["messages"][1]["content"].rsplit("Response: ", 1)[1])

    monkeypatch.setattr(run_state.current(), "spoken", {"vocalbench_instruction_following": {}})
    with ScriptedJudge(reply_for=reply_for, models=("qwen-max-2025-01-25",)) as judge:
        metadata = _metadata("vocalbench_instruction_following", judge, tmp_path)
        task = TaskScoring("vocalbench_instruction_following", metadata,
                           judge=judge_of("vocalbench_instruction_following", metadata))
        items = [scoring.process_results(doc, result, task)["vocalbench_following"]
                 for doc, result in zip(docs, results)]
        ours = scoring.vocalbench_following(items, task)
        asked = [(b["messages"][0]["content"], b["messages"][1]["content"]) for b in judge.requests]
    official = _read_score_instruction(instances, wav_dir, query_dir, lambda wav: emotions[str(wav)])
    assert ours == pytest.approx(official, abs=1e-12) and official == pytest.approx(100 * 7 / 13)
    assert [task.item_scores["vocalbench_following"][i] for i in range(len(CASES))] == [
        100, 0, 0, 100, 100, 0, 100, 0, 100, 0, 100, 100, 0]
    # the judge is asked only what the rate reads: the repeats that passed (text), the content item (text) and
    # the spoken-format ones (transcript), each against its category's prompt
    assert sorted(a[1].rsplit("Response: ", 1)[1] for a in asked) == sorted(
        [TAIL, "where is the nearest train station", "apple pear plum", "the air scatters blue light", "because"])
    assert {a[0] for a in asked} == {(judges.PROMPTS / "instruction" / f"{c}.txt").read_text()
                                     for c in ("paralinguistic", "content_num", "style_spoken_format")}
    assert scoring.vocalbench_unchecked(items, task) == 0 and scoring.judge_failures(items, task) == 0

    unrated = [{**i, "emotion": None} if i["rule"] == "repeat_with_emotion" else i for i in items]
    assert scoring.vocalbench_unchecked(unrated, task) == 3  # no emotion reading: left out, counted
    # a query clip whose length cannot be read, found after the model answered: the item left out and counted
    (tmp_path / "audio" / "100.wav").write_bytes(b"not a wav")
    with_speed = [i for i, doc in enumerate(docs) if doc["rule"] == "repeat_with_speed"]
    unreadable = scoring.process_results(docs[with_speed[0]], results[with_speed[0]], task)["vocalbench_following"]
    assert unreadable["speed_kept"] is None and instruction.passed(unreadable, None) is None


@pytest.mark.parametrize("reply, value", [("[Yes]. It repeated it.", 1), ("[No]. It answered.", 0),
                                          ("[Yes] but [No]", None), ("Yes.", None)])
def test_an_instruction_reply_is_read_by_its_tag(reply, value):
    assert judges.parse_following(reply) == value
