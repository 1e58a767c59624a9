"""VocalBench's instruction_following set as utils/read_score_instruction.py scores it (SJTU-OmniAgent/VocalBench@5e9cce06):
an item's number (its ``Qid``, ``instruction-NNN``) says which rule reads it.

* 0-49, plain repeat: the model's text repeats the question's tail (what follows its first ``.``) with a word error
  rate under 0.2, and the judge reads ``[Yes]`` for the text (``paralinguistic.txt``);
* 50-99, with emotion: the repeat as above, and emotion2vec+ large gives the emotion the question names a
  probability over 0.5 among VocalBench's six labels (``tokens.txt`` with disgusted, fearful and other unused);
* 100-149, with speed: the repeat, and the spoken answer lasts 0.25-0.75 of the query's tail ("twice my speaking
  speed") or 1.5-2.5 of it ("half"), the tail's length the query clip's times its share of the question's words;
* 150-199, with speed and emotion: the three checks, in that order;
* 200-899: the judge reads ``[Yes]`` for the model's text, or for 500-549 (spoken format) for the transcript of its
  speech, against the prompt of its category (``prompts/instruction/``).

The rate is the share of items that pass, x100. Where a check needs what the run does not have (the answer's
emotion unrated, the judge's reply unreadable after its attempts) the item is left out and counted (the script
adds -1 for a reply with neither tag).
"""

from __future__ import annotations

import logging

from lm_eval_audio.metrics.spoken_answer import SpokenAnswer

log = logging.getLogger("lm_eval.audio.vocalbench")

# read_score_instruction.py find_emotion_id's labels, in the order it looks for them in the question
EMOTIONS = ("angry", "happy", "neutral", "sad", "surprised", "unknown")
REPEAT, WITH_EMOTION, WITH_SPEED, WITH_SPEED_AND_EMOTION, ON_TEXT, ON_SPEECH = (
    "repeat", "repeat_with_emotion", "repeat_with_speed", "repeat_with_speed_and_emotion", "judged_text",
    "judged_speech")
MAX_WER = 0.2
SPEED_RANGE = {"twice": (0.25, 0.75), "half": (1.5, 2.5)}  # the answer's length over the query tail's


def rule_of(index: int) -> str:
    if index < 200:
        return (REPEAT, WITH_EMOTION, WITH_SPEED, WITH_SPEED_AND_EMOTION)[index // 50]
    return ON_SPEECH if 500 <= index < 550 else ON_TEXT


def prompt_category(category: str, sub_category: str) -> str:
    """qwenmax_eval.py's prompt name: the category lower-cased, content's and style's with their sub-category."""
    category = category.lower()
    if category in ("content", "style"):
        return f"{category}_{sub_category.replace(' ', '_').lower()}"
    return category


def emotion_asked(question: str) -> str:
    """find_emotion_id: the first of its labels the question holds (as a substring), else unknown."""
    lower = question.lower()
    return next((e for e in EMOTIONS if e in lower), "unknown")


def speed_asked(question: str) -> str | None:
    """The speed the question's first sentence asks for: "twice" (checked first, as the script) or "half"."""
    head = question.split(".", 1)[0].lower()
    return "twice" if "twice" in head else "half" if "half" in head else None


def doc_fields(item: dict) -> dict | str:
    """What an instruction item's document adds, or why it cannot be scored (found before the run)."""
    number = str(item["Qid"]).split("-")[1] if "-" in str(item["Qid"]) else ""
    if not number.isdigit():
        return f"Qid {item['Qid']!r} is not instruction-<number>: its number says which rule reads it"
    index, question = int(number), str(item["Question"])
    rule = rule_of(index)
    out = {"index": index, "rule": rule,
           "category": prompt_category(str(item.get("Category", "")), str(item.get("Sub-category", "")))}
    if index < 200:
        if "." not in question:
            return "has no '.' before the sentence to repeat"
        tail = question.split(".", 1)[1]
        out.update(repeat=tail.lower(), tail_share=len(tail.strip().split()) / len(question.strip().split()))
    if rule in (WITH_SPEED, WITH_SPEED_AND_EMOTION):
        out["speed"] = speed_asked(question)
        if out["speed"] is None:
            return "asks for no speed ('twice' or 'half' in its first sentence)"
    target = None
    if rule in (WITH_EMOTION, WITH_SPEED_AND_EMOTION):  # emotion2vec's reading among the six: the metric's weights
        target = {label: float(label == emotion_asked(question)) for label in EMOTIONS}
    return {**out, "target_emotion": target}


def milliseconds(path: str) -> int | None:
    """A clip's length as pydub's ``len(AudioSegment)`` gives it: round(1000 x frames / rate); None, with a warning,
    where its header cannot be read (the item is then left out and counted, never the run stopped)."""
    import soundfile

    try:
        info = soundfile.info(path)
    except (RuntimeError, OSError) as e:  # soundfile's LibsndfileError is a RuntimeError
        log.warning("VocalBench instruction_following: the length of %s cannot be read (%s): its item's speed is "
                    "not checked, and the item is counted in vocalbench_unchecked", path, e)
        return None
    return round(1000 * info.frames / info.samplerate)


def observed(doc: dict, results: list) -> dict:
    """What the rules read off one answer's speech, found as the document is scored: the asked emotion's probability
    (None where unrated), whether the spoken answer's length is in the asked range (None with no spoken answer)."""
    from lm_eval_audio.metrics.speech_quality import answer_value

    out = {}
    spoken = results[0] if results and isinstance(results[0], SpokenAnswer) and not doc["audio_problem"] else None
    if doc.get("target_emotion"):
        out["emotion"] = answer_value(spoken, "emotion", doc) if spoken is not None else None
    if doc.get("speed"):
        low, high = SPEED_RANGE[doc["speed"]]
        query, answer = (milliseconds(doc["audio"][0]), milliseconds(spoken.audio["path"])) if spoken is not None \
            else (None, None)
        out["speed_kept"] = None if query is None or answer is None else \
            low * query * doc["tail_share"] < answer < high * query * doc["tail_share"]
    return out


def passed(item: dict, reading) -> float | None:
    """The item's success, 1 or 0, as gen_score adds it up; None where a check it needs could not be made."""
    rule = item["rule"]
    if rule in (ON_TEXT, ON_SPEECH):
        return None if reading is None else float(reading)
    if item["wer"] >= MAX_WER:
        return 0.0
    if rule == REPEAT:
        return None if reading is None else float(reading)
    if rule in (WITH_EMOTION, WITH_SPEED_AND_EMOTION):
        if item["emotion"] is None:
            return None
        if not item["emotion"] > 0.5:
            return 0.0
    if rule == WITH_EMOTION:
        return 1.0
    return None if item["speed_kept"] is None else float(item["speed_kept"])


def judged_on(item: dict) -> str | None:
    """Which of the answer's channels the judge reads for the item: its text, its transcript, or none (the rule
    does not read the judge, or its repeat already failed)."""
    if item["rule"] == ON_SPEECH:
        return "speech"
    if item["rule"] == ON_TEXT or (item["rule"] == REPEAT and item["wer"] < MAX_WER):
        return "text"
    return None
