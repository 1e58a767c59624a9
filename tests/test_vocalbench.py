"""VocalBench (issue 55): its prompt files as the official repository holds them, its judge's messages and readings,
its knowledge score against the official readings of a real model's 2,000 answers, its sets in their layout (local
and from the Hub, only the clips run). Its sample answered in speech offline: tests/test_urobench.py runs it with
URO-Bench's, in one cascade run."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest
from conftest import judge_of, stand_in_hub, yaml_metadata

from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.metrics.task_scoring import TaskScoring
from lm_eval_audio.tasks.vocalbench import data, judges, scoring

# sha256 of each prompt file of SJTU-OmniAgent/VocalBench@5e9cce06 prompts/, computed from that repository
OFFICIAL_PROMPT_SHA256 = {
    "emotion.txt": "7272bfaf4cca19d85e922ae0992b148f91c214e42d7d8391e8ea92521130a29a",
    "reasoning.txt": "49dddb5e505d8eab9b31cb57f2a94ea472d928a74de28e5cb136404b81992375",
    "safety.txt": "c3ef2d1416a99aeafd365513796a6a7bba19f980132dea80951b13cc95bf6ead",
    "single_round.txt": "b5a3fb3c1a3a7076a0477607c850bd8c5f52b1051468befc7146fd1370d5fe73",
    "multi_round.txt": "c305d43205ef41019590a6d1be028051e0afe33b64b166efbd07713661d3987d",
    "robust.txt": "b5a3fb3c1a3a7076a0477607c850bd8c5f52b1051468befc7146fd1370d5fe73",  # single_round.txt's bytes
    "instruction/content_conditional.txt": "b47e3efde1c35970eb79d7ecfae79e27dbb2ef0c43b2d473306fcd219f1c7982",
    "instruction/content_constrain.txt": "e04a674bf1237b8fc36ae2a77041352f85606141b62375ed6241e1a8c82786b7",
    "instruction/content_keywords.txt": "78effc29d346c2be981f6fb1a7d16d2a880ea5d7dab88970dce002bee134dc4c",
    "instruction/content_num.txt": "3849cf4de7716d7a5e12b8377bc4e481933c6a176a729841d126d50a2c647df4",
    "instruction/content_progressive.txt": "fd668ed8174213b5a41389bc917a4b6e8d2ae6ab6c2007decf3bcd3a3a43e165",
    "instruction/content_topic_change.txt": "c0636b933d08f7fa3b1a057255a5b2980e1dec590e9629754881b8f3f6041f19",
    "instruction/format.txt": "28e1d52c7c4ae61a993683946457ee8b8c85692c66fbbf3e6f9cb0b8d22cdb15",
    "instruction/paralinguistic.txt": "7bcd650d8e0bd52a9c32f7bfa8df918f815875ba06ee007bd562414b502cadcb",
    "instruction/situation.txt": "a0375025d784514a215c248eaec4caa1e529d065730737d068de5d93bb0eb3fe",
    "instruction/style_instruction.txt": "916120d522d6ce359e176d5c4f09a64fc905a7025957627d6aa9b976c8fadd29",
    "instruction/style_speaker_tune.txt": "5732a891da6d95064046a652a768ae35793c8718cb92a88716435095230db401",
    "instruction/style_speaking_style.txt": "c2ac70edc24d5a7f5dba673e4f963e453978a89ea7ef758b14cafcdfe9c94898",
    "instruction/style_spoken_format.txt": "e88818ea4160ca8800c164144911eecd231a8d83a8e46be38646124af8fb2215",
    "creativity/appreciation.txt": "2b31f8dd8e5e003c321418dd4a600f854d97ef260a55a080a4ab603a676266ae",
    "creativity/argumentative.txt": "22070075a751380dbdb4c20ccb6e0610116ed6aacd098844f7f858526978d596",
    "creativity/descriptive.txt": "5e6ae1d459f09a597a0ec14efcb5e45221d301adb7cb32f217e665e38c318241",
    "creativity/narrative.txt": "62ee396f41c0801711126893ac45ef7e0f028f54cb2ff7e7a3c5509f53694af5",
    "creativity/poem.txt": "02c7827f9b8127ad0385e95b5849437725996ea674f6da0e1c354f4e19eec5ff",
    "creativity/role_playing.txt": "bffce70d83e495ee8b8e135420677aa4e19bd7c3f4cbf4b54b36678609dcfdba",
}
# llama-omni's 2,000 knowledge answers as VocalBench's repository publishes them, with its scripts' readings (the
# file's "source" says where each field comes from)
LLAMA_OMNI = Path(__file__).parent / "fixtures" / "vocalbench_llama_omni_knowledge.json.gz"


def test_the_prompt_files_are_the_official_ones():
    for name, digest in OFFICIAL_PROMPT_SHA256.items():
        assert hashlib.sha256((judges.PROMPTS / name).read_bytes()).hexdigest() == digest, name
    assert sorted(p.relative_to(judges.PROMPTS).as_posix() for p in judges.PROMPTS.rglob("*.txt")) == \
        sorted(OFFICIAL_PROMPT_SHA256)


def test_the_messages_are_the_scripts():
    item = {"question": "Why?", "answer": "Because.", "question_emotion": "sad", "category": "Role Playing"}
    system, user = judges.messages_for("reasoning", item, "It is so.")
    assert system == {"role": "system", "content": (judges.PROMPTS / "reasoning.txt").read_text()}
    assert user["content"] == "Question: Why?\n\n  Standard Answer: Because.\n\n  Response: It is so."
    assert judges.user_content("emotion", item, "r") == "Question: Why?\n\n  Question Emotion: sad\n\n  Response: r"
    assert judges.user_content("safety", item, "r") == "Question: Why?\n\n  Response: r"
    assert judges.messages_for("creativity", item, "r")[0]["content"] == \
        (judges.PROMPTS / "creativity" / "role_playing.txt").read_text()


@pytest.mark.parametrize("reply, value", [("Clear steps. Score: [4]", 4), ("[0] then [5]", 0), ("[2]", 2),
                                          ("Score: 4", 1), ("[7]", 1), ("", 1)])
def test_a_rating_is_the_first_bracketed_digit_else_one(reply, value):
    assert judges.score_value(judges.parse_score(reply)) == value
    assert (judges.parse_score(reply) == judges.UNREAD) == (value == 1 and "[" not in reply.replace("[7]", ""))


@pytest.mark.parametrize("reply, value", [("[Succeed Refusal]", 1), ("It refused. [Succeed Refusal]", 1),
                                          ("[Failed Refusal]", 0), ("[Succeed Refusal] [Failed Refusal]", None),
                                          ("Refused.", None)])
def test_a_safety_reply_is_read_by_its_tag(reply, value):
    assert judges.parse_refusal(reply) == value


def test_knowledge_agrees_with_the_official_readings_of_a_real_models_answers():
    rows = json.loads(gzip.decompress(LLAMA_OMNI.read_bytes()))["rows"]
    speech = [scoring.knowledge_right(answer, asr) == bool(s2s) for _, answer, _, asr, _, s2s in rows]
    text = [scoring.knowledge_right(answer, pred) == bool(s2t) for _, answer, pred, _, s2t, _ in rows]
    assert len(rows) == 2000 and all(speech) and all(text)  # 0 differences in 4,000 readings
    assert sum(s2s for *_, s2s in rows) == 748  # llama-omni's published speech accuracy: 37.4


def _metadata(task: str, judge, tmp_path, **more) -> dict:
    """The task YAML's metadata (its judge's settings: the paper's), with the scripted judge's endpoint."""
    return {**yaml_metadata(data.DATA.folder / f"{task}.yaml"), "judge_base_url": judge.base_url,
            "judge_api_key_env": "OPENAI_API_KEY", "judge_cache": str(tmp_path / "j.sqlite"), "judge_concurrency": 1, **more}


def _items(eval_set, said):
    return [{"doc_id": i, "uniq_id": f"{eval_set}-{i:03d}", "set": eval_set, "question": "q", "answer": "a",
             "category": "Poem", "question_emotion": "sad", "response": speech, "text": text}
            for i, (speech, text) in enumerate(said)]


def test_a_judged_set_is_the_mean_reading_with_unread_replies_as_one(tmp_path, monkeypatch):
    from scripted_judge import ScriptedJudge

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-0000")
    replies = {"good": "Fine. Score: [5]", "poor": "Weak. Score: [2]", "odd": "Four out of five."}

    def reply(prompt):
        return replies[prompt.rsplit("Response: ", 1)[1]]

    with ScriptedJudge(reply=reply, models=("qwen-max-2025-01-25",)) as judge:
        metadata = _metadata("vocalbench_creativity", judge, tmp_path)
        task = TaskScoring("vocalbench_creativity", metadata, judge=judge_of("vocalbench_creativity", metadata))
        items = _items("creativity", [("good", ""), ("poor", ""), ("odd", "")])
        assert scoring.vocalbench_rating(items, task) == pytest.approx((5 + 2 + 1) / 3)
        assert scoring.judge_unread(items, task) == 1 and scoring.judge_failures(items, task) == 0
        (request, *_) = judge.requests
    assert request["model"] == "qwen-max-2025-01-25" and request["temperature"] == 0.0
    assert request["messages"][0]["content"] == (judges.PROMPTS / "creativity" / "poem.txt").read_text()


def test_safety_counts_a_refusal_only_where_text_and_speech_agree(tmp_path, monkeypatch):
    from scripted_judge import ScriptedJudge

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-0000")
    tags = {"refuse": "[Succeed Refusal]", "comply": "[Failed Refusal]", "unclear": "Hmm."}

    def reply(prompt):
        return tags[prompt.rsplit("Response: ", 1)[1]]

    with ScriptedJudge(reply=reply, models=("qwen-max-2025-01-25",)) as judge:
        metadata = _metadata("vocalbench_safety", judge, tmp_path, judge_max_parse_attempts=1)
        task = TaskScoring("vocalbench_safety", metadata, judge=judge_of("vocalbench_safety", metadata))
        items = _items("safety", [("refuse", "refuse"), ("refuse", "comply"), ("comply", "comply"),
                                  ("unclear", "refuse")])
        # 1, 0 (they disagree: both 0, as the script), 0; the unreadable one left out and counted
        assert scoring.vocalbench_refusal(items, task) == pytest.approx(1 / 3)
        assert scoring.judge_failures(items, task) == 1


def test_the_sets_are_read_in_their_layout_and_the_hub_gives_only_the_clips_run(tmp_path, monkeypatch):
    from lm_eval_audio.benchmarks.hub_data import fetch_clips

    creative = [{"Qid": "creativity-000", "Audio": "creativity/000.wav", "Question": "q", "Category": "Poem"},
                {"Qid": "creativity-001", "Audio": "creativity/000.wav", "Question": "q", "Category": "Limerick"}]
    (tmp_path / "c" / "json").mkdir(parents=True)
    (tmp_path / "c" / "json" / "creativity.json").write_text(json.dumps(creative), encoding="utf-8")
    notes = DataNotes()
    docs = data.load_docs("creativity", {"vocalbench_data_dir": str(tmp_path / "c")}, False, notes=notes)
    assert [d["uniq_id"] for d in docs] == ["creativity-000"]  # a category without a prompt: left out before the run
    assert "'Limerick' has no judge prompt" in json.dumps(notes.__dict__, default=str)
    docs = data.load_docs("emotion", {}, True, notes=DataNotes())
    assert [(d["uniq_id"], d["question_emotion"]) for d in docs] == [("emotion-000", "sad"), ("emotion-001", "happy")]
    root = tmp_path / "VocalBench"
    (root / "json").mkdir(parents=True)
    (root / "audio" / "safety").mkdir(parents=True)
    (root / "audio" / "safety" / "000.wav").write_bytes((data.DATA.sample / "audio" / "safety" / "000.wav").read_bytes())
    rows = [{"Qid": "safety-000", "Audio": "safety/000.wav", "Question": "q"},
            {"Qid": "safety-001", "Audio": "../escape.wav", "Question": "q"},
            {"Qid": "safety-002", "Audio": "safety/002.wav"},
            {"Qid": "safety-003", "Audio": "safety/003.wav", "Question": "q"}]
    (root / "json" / "safety.json").write_text(json.dumps(rows), encoding="utf-8")
    notes = DataNotes()
    docs = data.load_docs("safety", {"vocalbench_data_dir": str(root)}, False, notes=notes)
    assert [(d["uniq_id"], bool(d["audio_problem"])) for d in docs] == [("safety-000", False), ("safety-003", True)]
    said = json.dumps(notes.__dict__, default=str)
    assert "leads outside" in said and "lacks Question" in said

    with stand_in_hub({data.DATA.repo: data.DATA.sample}, tmp_path / "hf_cache", monkeypatch,
                      (data.DATA.variable,)) as hub:
        notes = DataNotes()
        docs = data.load_docs("knowledge", {}, False, notes=notes)
        fetched = lambda: [e["path"].split("/resolve/", 1)[1].split("/", 1)[1] for e in hub.downloads()]  # noqa: E731
        assert fetched() == ["json/knowledge.json"]
        fetch_clips(docs[0]["audio"], notes, "vocalbench_knowledge")  # what --limit 1 evaluates
        assert fetched() == ["json/knowledge.json", "audio/knowledge/000.wav"]
    assert notes.entries["sources"]["VocalBench knowledge"]["repo_id"] == data.DATA.repo


def _calc_emotion_acoustic(nine_scores, score):
    """utils/calc_emotion_acoustic.py:44-49 restated on FunASR's scores under VocalBench's tokens.txt (README.md:207:
    disgusted, fearful and other marked unused, so six scores, <unk> last): logs, the last dropped, a softmax."""
    import numpy as np

    kept = np.array([nine_scores[i] for i in (0, 3, 4, 6, 7, 8)])  # angry, happy, neutral, sad, surprised, <unk>
    six = kept / kept.sum()  # FunASR's softmax with the unused three at minus infinity
    logits = np.log(six)[:-1]
    five = np.exp(logits - np.max(logits)) / np.exp(logits - np.max(logits)).sum()
    return float(sum(a * b for a, b in zip(five, score)))


def test_the_acoustic_emotion_score_weights_the_items_score_by_five_emotions(tmp_path):
    from lm_eval_audio.metrics.speech_quality import emotion_score
    from lm_eval_audio.model_wrappers.emotion2vec import LABELS

    docs = data.load_docs("emotion", {}, True, notes=DataNotes())
    assert docs[0]["target_emotion"] == {"angry": 1, "happy": 1, "neutral": 3, "sad": 5, "surprised": 2}
    for nine in ([0.05, 0.01, 0.02, 0.6, 0.2, 0.02, 0.05, 0.04, 0.01], [0.3, 0.1, 0.1, 0.05, 0.05, 0.1, 0.2, 0.05, 0.05]):
        for doc in docs:
            ours = emotion_score(dict(zip(LABELS, nine)), doc["target_emotion"])
            assert ours == pytest.approx(_calc_emotion_acoustic(nine, list(doc["target_emotion"].values())), abs=1e-12)

    folder = tmp_path / "vb"
    (folder / "json").mkdir(parents=True)
    (folder / "audio" / "emotion").mkdir(parents=True)
    (folder / "audio" / "emotion" / "000.wav").write_bytes(
        (data.DATA.sample / "audio" / "emotion" / "000.wav").read_bytes())
    items = [{"Qid": f"emotion-00{i}", "Audio": "emotion/000.wav", "Question": "Why?", "Question_emo": "sad",
              "Score": score} for i, score in enumerate(([5, 1, 2, 4, 2], [5, 1, 2], "high"))]
    (folder / "json" / "emotion.json").write_text(json.dumps(items), encoding="utf-8")
    notes = DataNotes()
    docs = data.load_docs("emotion", {"vocalbench_data_dir": str(folder)}, False, notes=notes)
    assert [d["uniq_id"] for d in docs] == ["emotion-000"]
    assert json.dumps(notes.__dict__, default=str).count("is not five numbers") == 2


def _calc_wer(pairs) -> float:
    """utils/whisper_asr/calc_wer.py restated: remove_sp on both, the ordinal pattern on the transcript, Whisper's
    English normalizer, the evaluation tokenizer (sacrebleu 1.x's "none" tokenizer is the identity; punctuation-only
    tokens dropped; lower case), editdistance over the words, summed; x100."""
    import re

    from lm_eval_audio.metrics.text_normalizers import whisper_english

    ordinal_words = {**{w: i for i, w in enumerate(
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth "
        "fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split(), 1)},
        **{k: int(k[:-2]) for k in "1st 2nd 3rd 4th 5th 6th 7th 8th 9th 10th 11st 11th 12th 12nd 13rd 13th 14th 15th "
                                   "16th 17th 18th 19th 20th".split()}}
    pattern = re.compile(rf'(\b(?:{"|".join(re.escape(k) for k in ordinal_words)})\b[,.]?)|(\b\d+(?:st|nd|rd|th)\b)',
                         re.IGNORECASE)

    def replace_ordinal(match):
        if match.group(1) and match.group(1).lower().strip(".,") in ordinal_words:
            return f"{ordinal_words[match.group(1).lower().strip('.,')]}."
        if match.group(2):
            return f"{re.match(r'[0-9]+', match.group(2)).group()}."
        return match.group(0)

    def remove_sp(text):
        text = re.sub(r"<\|.*?\|>", " ", text)
        text = re.sub(r"\s+", " ", text)
        text = re.sub(" ?([!,.?;:])", r"\1", text)
        return re.sub(r"-", " ", text).lstrip(" ")

    edits = length = 0
    for text, transcript in pairs:
        ref = _tokenize(whisper_english(remove_sp(text))).split()
        pred = _tokenize(whisper_english(pattern.sub(replace_ordinal, remove_sp(transcript)))).split()
        edits, length = edits + _distance(ref, pred), length + len(ref)
    return edits / length * 100 if length else 0.0


def _tokenize(sent: str) -> str:
    """whisper_asr/evaluate_tokenizer.py's EvaluationTokenizer (tokenizer_type "none", punctuation_removal,
    lowercase): sacrebleu 1.x's "none" tokenizer is the identity, punctuation-only tokens dropped, lower-cased."""
    import unicodedata

    return " ".join(t for t in sent.split(" ") if not all(unicodedata.category(c)[0] == "P" for c in t)).lower()


def _distance(a: list, b: list) -> int:
    """editdistance.eval: the Levenshtein distance between two word lists."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


CLARITY_PAIRS = [
    ("First, keep a regular schedule. Second, avoid screens.", "first keep a regular schedule second avoid screens"),
    ("It is the 3rd time this week!", "It is the third time this week."),
    ("Water, snacks, a map and a jacket.", "Water snacks a map and jacket"),
    ("Well-known tips: sleep early.", "well known tips sleep early"),
    ("I was born on the 21st of May.", "I was born on the twenty-first of May"),
    ("Go to the 11st floor, then the twelfth.", "Go to the 11th floor then the 12th."),
    ("Here is <|en|> a tagged answer.", ""),
]


def test_clarity_is_calc_wers_corpus_wer_of_the_speech_against_the_text():
    class Task:
        def report_item_scores(self, metric, scores):
            self.items = dict(scores)

        def not_a_number(self, metric, reason):
            self.reason = reason
            return float("nan")

    items = [{"doc_id": i, "text": text, "transcript": transcript, "spoken": True}
             for i, (text, transcript) in enumerate(CLARITY_PAIRS)]
    task = Task()
    assert scoring.vocalbench_clarity(items, task) == pytest.approx(_calc_wer(CLARITY_PAIRS), abs=1e-12)
    for i, pair in enumerate(CLARITY_PAIRS):  # each item too
        assert task.items[i] == pytest.approx(_calc_wer([pair]), abs=1e-12)
    assert task.items[6] == 100.0  # nothing heard: every word of the text deleted
    unspoken = [{**item, "spoken": False} for item in items]
    assert scoring.vocalbench_clarity(unspoken, task) != scoring.vocalbench_clarity(unspoken, task)  # NaN
    assert "a text run has no clarity" in task.reason
