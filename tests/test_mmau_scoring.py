"""The scoring rules of MMAU, MMAR and MMAU-Pro, and arXiv 2604.24401's reading, on constructed responses.

Expected outcomes are the official scripts' (MMAU evaluation.py / MMAR code/evaluation.py ``string_match``;
MMAU-Pro evaluate_mmau_pro_comprehensive.py) and the paper's code (llm_mcq_judge.py, eval_utils_claude.py), as
their rules behave on each case.
"""

from __future__ import annotations

import json
import logging
import math
import re

import pytest
from conftest import task_scoring



from lm_eval_audio.tasks.mmau_pro import instructions as rules
from lm_eval_audio.metrics.choice_matching import (
    answer_letter,
    content_letter,
    mcq_prompt,
    official_string_match,
    read_letter,
    regex_letter,
    remove_thinking,
)
from lm_eval_audio.judges import choice_judge
from lm_eval_audio.tasks.mmau_pro import judges as mmau_pro_judges
from lm_eval_audio.tasks.mmau_pro import embedding_match

PEOPLE = ["Man", "Woman", "Child", "Robot"]


@pytest.mark.parametrize("prediction, right", [
    ("Man", True), ("(A) Man", True), ("MAN!!", True), ("The answer is Man.", True),
    ("A", False), ("(A)", False),  # a letter alone never matches
    ("Woman", False), ("man or woman", False), ("It is a man, not a woman", False),  # a second choice fails
    ("", False), ("   ", False),
])
def test_official_string_match_on_the_mmau_example(prediction, right):
    assert official_string_match("Man", prediction, PEOPLE) is right


def test_official_string_match_words_not_substrings():
    noises = ["White noise", "Pink noise", "A dog barking", "Silence"]
    assert not official_string_match("White noise", "noise", noises)  # only part of the answer
    assert official_string_match("White noise", "A dog and white noise", ["White noise", "Pink noise"])
    # "a" is a word of a wrong choice and not of the answer: the letter prefix costs the item
    assert not official_string_match("White noise", "(A) White noise", noises)
    assert official_string_match("2", "Answer: 2", ["1", "2", "3"])
    assert not official_string_match("2", "There are 2 speakers, not 3", ["1", "2", "3"])
    # a choice with the answer's very words is not a wrong choice (duplicated options)
    assert official_string_match("dog", "dog", ["dog", "Dog", "cat"])


def _official_restated(answer, prediction, choices):
    """The rule once more, from its description: word sets, lower case."""
    def words(text):
        return set(re.findall(r"\b\w+\b", text.lower()))

    p, a = words(prediction), words(answer)
    wrong = set().union(*(words(c) - a for c in choices if words(c) != a))
    return bool(p) and a <= p and not (p & wrong)


def test_official_string_match_agrees_with_the_rule_restated_on_many_responses():
    choices = ["a low beep", "a high beep", "a burst of noise", "It rises"]
    phrases = ["", "a", "low", "beep", "A low beep.", "high", "The answer is B", "noise burst", "it rises!",
               "a low and a high beep", "LOW BEEP", "(C) a burst of noise", "rises", "a-low-beep"]
    for answer in choices:
        for p in phrases:
            for q in phrases[:5]:
                prediction = f"{p} {q}".strip()
                assert official_string_match(answer, prediction, choices) == _official_restated(answer, prediction,
                                                                                                  choices), prediction


@pytest.mark.parametrize("prediction, letter", [
    ("B", "B"), ("b.", "B"), ("C)", "C"), ("  D  ", "D"),
    ("The answer is B", "B"), ("Answer: (C)", "C"), ("answer:D", "D"), ("I would choose A", "A"), ("I pick (b)", "B"),
    ("the answer is a dog", "A"),  # case-insensitive, as in the paper's code
    ("E", None), ("The answer is E", None),  # not an option of four
    ("Definitely C.", None), ("The answer is: D: four", None),
])
def test_the_papers_letter_patterns(prediction, letter):
    assert regex_letter(prediction, 4) == letter


def test_the_papers_content_match():
    assert content_letter("2", ["0", "1", "3", "2"]) == "D"
    assert content_letter("Man", PEOPLE) == "A"
    assert content_letter("woman, clearly", PEOPLE) == "B"  # starts with a choice
    assert content_letter("chi", PEOPLE) == "C"  # a choice starts with it
    assert content_letter("man or woman", PEOPLE) == "A"  # the first hit in choice order wins
    assert content_letter("a dog", PEOPLE) is None
    assert content_letter("", PEOPLE) is None


def test_the_answers_letter():
    assert answer_letter("Man", PEOPLE) == "A"
    assert answer_letter("(B) Woman", PEOPLE) == "B"
    assert answer_letter("a child", PEOPLE) == "C"  # containment
    assert answer_letter("the sound of rain falling", ["rain falling sound", "wind"]) == "A"  # word overlap 0.6
    assert answer_letter("thunder", ["rain", "wind"]) is None
    # the paper's prefix pattern would make these "at" and "at", and the answer B would read as A
    assert answer_letter("Cat", ["Bat", "Cat"]) == "B"
    assert answer_letter("cat.", ["Bat", "Cat"]) == "B"


def test_reasoning_is_removed_before_reading():
    assert remove_thinking("<think>It could be B</think> A") == "A"
    assert remove_thinking("A <think>cut off here") == "A"
    assert remove_thinking("reasoning the server kept</think>C") == "C"
    assert read_letter("<think>B? no</think>The answer is C", PEOPLE) == ("The answer is C", "C")
    # nothing left after the reasoning: the raw text goes to the judge
    assert read_letter("<think>only reasoning", PEOPLE) == ("<think>only reasoning", None)
    assert read_letter("", PEOPLE) == ("", None)


def test_the_papers_prompt():
    assert mcq_prompt("Who speaks?", ["Man", "Woman"]) == (
        "Who speaks?\n\nOptions:\nA: Man\nB: Woman\n\nAnswer with the full option text (you may include the letter).")


def test_the_judges_prompt_and_reply():
    prompt = choice_judge.hybrid_prompt("Who speaks?", PEOPLE, "x" * 3000 + " {question}", "A", "Man")
    assert "Options:\nA) Man\nB) Woman\nC) Child\nD) Robot\n\nGround truth: A) Man\n" in prompt
    assert "via letter (A, B, C, D), audio index" in prompt
    assert "x" * 2000 + "\n\nReply ONLY in this format:" in prompt  # the response cut to 2,000 characters
    assert choice_judge.hybrid_prompt("q", PEOPLE, "{question} {gt_letter}", None, "Man").count("{question}") == 1
    assert choice_judge.parse_verdict("Selected: B\nJudgment: incorrect", 4) == ("B", False)
    assert choice_judge.parse_verdict("selected: none\njudgement: correct", 4) == (None, True)
    assert choice_judge.parse_verdict("Selected: E\nJudgment: correct", 4) == (None, True)  # not an option
    assert choice_judge.parse_verdict("Judgment: correct", 4) == (None, True)
    assert choice_judge.parse_verdict("B", 4) is None  # neither line: asked again, then a judge failure


def test_mmau_pro_open_judge_scores_as_the_script_reads_them():
    reply = "CORRECTNESS: 4 - ok\nRELEVANCE: 5 - ok\nCOMPLETENESS: 2 - thin\nCLARITY: 5 - clear\nOVERALL: 4.5 - good"
    assert mmau_pro_judges.parse_scores(reply) == {"correctness": 4.0, "relevance": 5.0, "completeness": 2.0,
                                                   "clarity": 5.0, "overall": 4.5}
    # a criterion not found is 3.0; an OVERALL of exactly 3.0 (or none) becomes the criteria's mean
    assert mmau_pro_judges.parse_scores("correctness: 5\nOVERALL: 3")["overall"] == (5 + 3 + 3 + 3) / 4
    assert mmau_pro_judges.parse_scores("CORRECTNESS: 4.5")["correctness"] == 4.0  # integers only, as there
    assert mmau_pro_judges.parse_scores("I cannot rate this.") is None
    messages = mmau_pro_judges.evaluation_messages("Q?", "ref", "resp {context}")
    assert messages[0] == {"role": "system", "content": "You are a helpful and objective evaluator."}
    assert messages[1]["content"].startswith("You are an expert evaluator for general open-ended question answering")
    assert "Question: Q?\n\nReference Answer: ref\n\nModel Response: resp {context}\n" in messages[1]["content"]
    assert "RELEVANCE: [score] - [justification] \nCOMPLETENESS" in messages[1]["content"]  # the script's space


@pytest.mark.parametrize("identifier, kwargs, good, bad", [
    ("Include Keywords", {"keywords": "dog, cat"}, "A Dog and a cat.", "A dog."),
    ("Keyword Frequency", {"keyword": "dog", "N": 2}, "dog, Dog!", "dog dogs"),
    ("Forbidden Words", {"forbidden_words": "dog, cat"}, "A bird.", "A Cat."),
    ("Number Paragraphs", {"N": 2}, "one *** two", "one"),
    ("Number Words (at least)", {"N": 3}, "one two three", "one two"),
    ("Number Words (at most)", {"N": 2}, "one two", "one two three"),
    ("Number Words (range)", {"N1": 2, "N2": 3}, "one two", "one"),
    ("Postscript", {"postscript_marker": "P.S."}, "Hi.\nps: bye", "Hi."),
    ("Number Placeholder", {"N": 2}, "[a] and [b]", "[a]"),
    ("Number Bullets", {"N": 2}, "* one\n* two", "* one"),
    ("Title", {}, "<<Title>> text", "Title"),
    ("Minimum Number Highlighted Section", {"N": 1}, "a *b* c", "a b c"),
    ("Multiple Sections", {"N": 2, "section_splitter": "SECTION"}, "SECTION 1 a SECTION 2 b", "SECTION 1 a"),
    ("Two Responses", {}, "yes ****** no", "yes ****** YES"),
    ("All Uppercase", {}, "LOUD!", "Loud"),
    ("All Lowercase", {}, "quiet.", "Quiet."),
    ("All-capital Words (at least)", {"N": 2}, "THE DOG sat", "THE dog"),
    ("All-capital Words (at most)", {"N": 1}, "THE dog", "THE DOG"),
    ("All-capital Words (range)", {"N1": 1, "N2": 1}, "THE dog", "the dog"),
    ("Start Checker", {"start_phrase": "Well,"}, "well - then", "So well"),
    ("End Checker", {"end_phrase": "the end"}, "That is THE END!", "The end is near"),
    ("Quotation", {}, ' "quoted" ', "not quoted"),
    ("No Commas", {}, "no commas here", "one, two"),
])
def test_instruction_following_checks(identifier, kwargs, good, bad):
    assert rules.follows(good, identifier, kwargs, "question") is True
    assert rules.follows(bad, identifier, kwargs, "question") is False


def test_the_samples_sentence_check_is_scored_after_setup(tmp_path):
    """scripts/setup.sh installs nltk's punkt_tab from PyPI (lm_eval_audio.storage.punkt_data): the sentence checks
    are scored, and the MMAU-Pro sample leaves no instruction unchecked, through the real CLI."""
    from scripted_judge import SERVED_MODELS, ScriptedJudge

    from conftest import results_json, run_cli

    said = "Dr. Smith went home. He slept."  # two sentences to Punkt, whose abbreviations keep "Dr." in the first
    assert rules.follows(said, "Number Sentences (at most)", {"N": 2}, "q") is True
    assert rules.follows(said, "Number Sentences (at most)", {"N": 1}, "q") is False
    with ScriptedJudge(models=SERVED_MODELS + ("served-audio-lm",), reply=lambda prompt: said) as server:
        proc = run_cli(["lm_eval", "--model", "openai-audio", "--model_args",
                        f"base_url={server.base_url},model=served-audio-lm", "--tasks",
                        "mmau_pro_sample_instruction_following", "--output_path", str(tmp_path / "out")])
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = results_json(tmp_path / "out")["results"]["mmau_pro_sample_instruction_following"]
    assert result["instructions_unchecked,none"] == 0 and "punkt_tab" not in proc.stderr


def test_instruction_rows_the_official_script_reads_otherwise(caplog):
    """evaluate_aif_sample reads kwargs through pandas: a null field is None, so kwargs.get("N", 0) is None and its
    default never applies; where the script compares None with a number or calls a method on it, it stops with
    an error: the item counts as failed and is named. A row without task_identifier matches no check: failed."""
    from lm_eval_audio.tasks.mmau_pro import scoring

    def doc(i, identifier, kwargs):
        return {"doc_id": i, "uniq_id": f"i{i}", "task_identifier": identifier, "kwargs": json.dumps(kwargs),
                "question": "q", "audio_problem": ""}

    docs = [doc(0, "Number Bullets", {"N": None}),  # 0 == None: not followed, whatever the answer
            doc(1, "Number Words (range)", {"N1": 1, "N2": None}),  # 1 <= n <= None: TypeError, the script stops
            doc(2, "Keyword Frequency", {"keyword": None, "N": 1}),  # None.lower(): AttributeError
            doc(3, "", {}),  # no task_identifier
            doc(4, "Number Words (at most)", {"N": 5, "N1": None})]  # an unused null field changes nothing
    results = [scoring.process_instructions(d, ["one two"]) for d in docs]
    assert [r["instructions_followed"]["score"] for r in results] == [0.0, 0.0, 0.0, 0.0, 1.0]
    assert [bool(r["instructions_followed"]["script_error"]) for r in results] == [False, True, True, False, False]
    task = task_scoring("mmau_pro_instruction_following")
    with caplog.at_level(logging.WARNING):
        assert scoring.instructions_followed([r["instructions_followed"] for r in results], task) == 0.2
    noted = task.data_notes["instruction_checks_the_script_cannot_run"]
    assert set(noted) == {"mmau_pro_instruction_following/i1", "mmau_pro_instruction_following/i2"}
    assert noted["mmau_pro_instruction_following/i1"].startswith("Number Words (range): TypeError")
    assert "2 instruction item(s) have a null kwargs field" in caplog.text and "id i2 (Keyword Frequency" in caplog.text
    with pytest.raises(TypeError):  # without a null field, an error is ours, not the script's: it is not hidden
        scoring.process_instructions(doc(5, "Number Words (range)", {"N1": "1", "N2": 3}), ["one"])


def test_instruction_following_quirks():
    assert rules.follows("Say hello. Hello!", "Repeat Prompt", {}, "say hello") is True  # the question, repeated
    assert rules.follows("anything", "An Identifier The Script Lacks", {}, "q") is False  # fails, as there
    assert rules.follows("1 2 3", "Number Words (at least)", {}, "q") is True  # the script's default N = 0


def test_sentence_checks_need_nltks_model(monkeypatch):
    import nltk.tokenize

    def absent(text, language="english"):
        raise LookupError("punkt_tab")

    monkeypatch.setattr(nltk.tokenize, "sent_tokenize", absent)
    with pytest.raises(rules.SentenceModelMissing, match="nltk.downloader punkt_tab"):
        rules.follows("One. Two.", "Number Sentences (at most)", {"N": 2}, "q")
    monkeypatch.setattr(nltk.tokenize, "sent_tokenize", lambda text, language="english": text.split(". "))
    assert rules.follows("One. Two.", "Number Sentences (at most)", {"N": 2}, "q") is True
    assert rules.follows("One. Two. Three.", "Number Sentences (range)", {"N1": 1, "N2": 2}, "q") is False


def test_mmau_pro_closed_questions_match_the_nearest_choice():
    """The official rule with a stand-in encoder: the response takes the most similar choice's text, right
    only when that text is the answer; a bare letter is matched by similarity, never read as a letter."""
    import torch

    vocabulary = ["dog", "cat", "bark", "meow", "b", "bird"]

    def encode(texts):  # bag of words
        return torch.tensor([[float(w in re.findall(r"\w+", t.lower())) + 1e-3 * i for i, w in enumerate(vocabulary)]
                             for t in texts])

    items = [{"response": "a dog barks", "choices": ["dog bark", "cat meow"]},
             {"response": "meow, says the cat", "choices": ["dog bark", "cat meow"]},
             {"response": "B", "choices": ["dog", "b bird"]}]
    assert embedding_match.matched_choices(items, encode) == ["dog bark", "cat meow", "b bird"]


def test_mmau_pro_embedder_absence_is_one_line(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(embedding_match.EmbedderUnavailable, match="needs the embedding model /nonexistent/nv-embed"):
        embedding_match.load_encoder("/nonexistent/nv-embed", None, True)


def _doc(doc_id, choices, answer, problem=""):
    return {"doc_id": doc_id, "uniq_id": f"u{doc_id}", "question": f"Q{doc_id}?", "choices": choices,
            "answer": answer, "audio_problem": problem, "task": "sound", "difficulty": "easy",
            "sub_category": "Counting" if doc_id % 2 else "Other"}


def test_both_scorings_of_one_run(tmp_path):
    """official_acc by the string match, glitters_acc by pattern, else the judge (scripted), per document."""
    from scripted_judge import ScriptedJudge

    from lm_eval_audio.judges import choice_scoring

    choices = ["one", "two", "three", "four"]
    replies = {"Q2?": "Selected: B\nJudgment: incorrect",  # the letter decides: B is the answer "two"
               "Q3?": "Selected: NONE\nJudgment: correct",  # no letter: the judgment decides
               "Q4?": "I am not sure"}  # no format, twice: a judge failure, counted wrong
    responses = ["B", "The answer is C", "It is the second", "I think it is two or three", "hmm", "", "anything"]
    docs = [_doc(i, choices, "two") for i in range(6)] + [_doc(6, choices, "two", problem="missing audio file: x")]
    results = [choice_scoring.process_mcq(d, [r], task_scoring(judged=True)) for d, r in zip(docs, responses)]
    assert [r["pattern_read"] for r in results] == [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert [r["pattern_acc"] for r in results] == [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert [r["glitters_judge_calls"] for r in results] == [0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0]
    # naming two choices is wrong by the official rule; "B" alone is no answer to it
    assert choice_scoring.official_acc([r["official_acc"] for r in results], task_scoring(judged=True)) == 0.0

    def reply(prompt):
        if "Question: " not in prompt:  # the re-ask after a reply in no format (Q4's)
            return "Still not sure"
        question = prompt.split("Question: ")[1].split("\n")[0]
        return replies.get(question, "Selected: A\nJudgment: incorrect")

    with ScriptedJudge(reply=reply, models=("judge-model",)) as server:
        task = task_scoring("mmau_sample_sound", {"judge_base_url": server.base_url, "judge_model": "judge-model",
                                                  "judge_cache": str(tmp_path / "cache.sqlite"),
                                                  "judge_max_parse_attempts": 2}, judged=True)
        items = [r["glitters_acc"] for r in results]
        assert choice_scoring.glitters_acc(items, task) == pytest.approx(3 / 7)  # docs 0, 2, 3
        assert choice_scoring.glitters_judge_failures(items, task) == 1
        asked = sorted(r["messages"][0]["content"].split("Question: ")[1].split("\n")[0]
                       for r in task.judge_records)
        assert asked == ["Q2?", "Q3?", "Q4?"]  # only what the patterns could not read, and not the empty answer
    assert task.item_scores["glitters_acc"] == {0: 1.0, 1: 0.0, 2: 1.0, 3: 1.0, 4: 0.0,
                                                                      5: 0.0, 6: 0.0}
    breakdown = task.data_notes["official_breakdown"]["mmau_sample_sound"]["glitters_acc"]
    assert breakdown["sub_category"] == {"Other": {"items": 4, "accuracy": 0.5}, "Counting": {"items": 3,
                                                                                              "accuracy": 1 / 3}}


def test_mmau_pro_scores_per_question_kind(tmp_path, monkeypatch):
    """Closed: the embedding match (a stand-in encoder); open: the script's judge (scripted); instruction
    following: the rules, the sentence checks left out and counted where nltk's model is absent."""
    import nltk.tokenize
    import torch
    from scripted_judge import ScriptedJudge

    from lm_eval_audio.tasks.mmau_pro import scoring
    from lm_eval_audio.tasks.mmau_pro import embedding_match

    closed = [_doc(0, ["dog bark", "cat meow"], "dog bark"), _doc(1, ["dog bark", "cat meow"], "cat meow"),
              _doc(2, ["dog bark", "cat meow"], "dog bark", problem="missing audio file: x")]
    for d in closed:
        d.update(category="sound", kind="closed")
    words = ["dog", "bark", "cat", "meow"]
    monkeypatch.setattr(embedding_match, "load_encoder", lambda name, device, local: lambda texts: torch.tensor(
        [[float(w in t) for w in words] for t in texts]))
    results = [scoring.process_closed(d, [r], task_scoring(judged=True))
               for d, r in zip(closed, ["a dog", "a dog barks", ""])]
    task = task_scoring("mmau_pro_sound", judged=True)
    assert scoring.closed_official_acc([r["official_acc"] for r in results], task) == pytest.approx(1 / 3)
    assert scoring.closed_performance([r["performance_score"] for r in results], task) == pytest.approx(1 / 3)

    def unavailable(name, device, local):
        raise embedding_match.EmbedderUnavailable(f"{name} cannot be loaded here")

    monkeypatch.setattr(embedding_match, "load_encoder", unavailable)
    # (matches are kept for the task's run; another task meets the absent model)
    music = task_scoring("mmau_pro_music", judged=True)
    assert math.isnan(scoring.closed_official_acc([r["official_acc"] for r in results], music))
    assert "cannot be loaded here" in music.data_notes["unscored_metrics"]["mmau_pro_music/official_acc"]

    def fails(texts):
        raise RuntimeError("CUDA out of memory")

    monkeypatch.setattr(embedding_match, "load_encoder", lambda name, device, local: fails)
    speech = task_scoring("mmau_pro_speech", judged=True)  # the answers are in: NaN with why, not an error
    assert math.isnan(scoring.closed_official_acc([r["official_acc"] for r in results], speech))
    assert "the embedding match failed: RuntimeError: CUDA out of memory" in \
        speech.data_notes["unscored_metrics"]["mmau_pro_speech/official_acc"]

    opened = [{"doc_id": i, "uniq_id": f"o{i}", "question": f"Open{i}?", "answer": "ref", "audio_problem": p}
              for i, p in enumerate(["", "", "", "missing audio file: y"])]
    replies = {"Open0?": "CORRECTNESS: 5\nRELEVANCE: 5\nCOMPLETENESS: 4\nCLARITY: 4\nOVERALL: 4.5",
               "Open1?": "CORRECTNESS: 2\nRELEVANCE: 1\nCOMPLETENESS: 2\nCLARITY: 3\nOVERALL: 3"}

    def reply(prompt):
        asked = [q for q in replies if f"Question: {q}" in prompt]
        return replies[asked[0]] if asked else "no scores here"

    results = [scoring.process_open(d, ["an answer"], task_scoring(judged=True)) for d in opened]
    with ScriptedJudge(reply=reply, models=("judge-model",)) as server:
        task = task_scoring("mmau_pro_open", {"judge_base_url": server.base_url, "judge_model": "judge-model",
                                              "judge_cache": str(tmp_path / "c.sqlite"), "judge_max_parse_attempts": 1},
                            judged=True)
        items = [r["performance_score"] for r in results]
        # Open1's OVERALL of exactly 3 becomes its criteria's mean, 2.0; Open2 is a judge failure, Open3 has no clip
        assert scoring.judge_overall(items, task) == pytest.approx((4.5 + 2.0) / 2)
        assert scoring.open_performance(items, task) == pytest.approx((4.5 + 2.0) / 2 / 5)
        assert scoring.good_response_rate(items, task) == 0.5 and scoring.poor_response_rate(items, task) == 0.5
        assert scoring.judge_failures(items, task) == 1
        assert len(task.judge_records) == 3  # judged once for the five metrics above
        system = task.judge_records[0]["messages"][0]
        assert system == {"role": "system", "content": "You are a helpful and objective evaluator."}

    monkeypatch.setattr(nltk.tokenize, "sent_tokenize", lambda text, language="english": (_ for _ in ()).throw(
        LookupError("punkt_tab")))
    rules = [{"doc_id": 0, "uniq_id": "i0", "task_identifier": "No Commas", "kwargs": "{}", "question": "q", "audio_problem": ""},
             {"doc_id": 1, "uniq_id": "i1", "task_identifier": "Title", "kwargs": "{}", "question": "q", "audio_problem": ""},
             {"doc_id": 2, "uniq_id": "i2", "task_identifier": "Number Sentences (at most)", "kwargs": '{"N": 2}', "question": "q",
              "audio_problem": ""}]
    results = [scoring.process_instructions(d, ["no commas, sorry"]) for d in rules]
    assert scoring.instructions_followed([r["instructions_followed"] for r in results],
                                         task_scoring("mmau_pro_instruction_following")) == 0.0  # 0 of the 2 checked
    assert [r["instructions_unchecked"] for r in results] == [0.0, 0.0, 1.0]
