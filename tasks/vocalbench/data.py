"""VocalBench's sets in their official layout: the Hub dataset ``VocalNet/VocalBench`` (SJTU-OmniAgent/VocalBench@5e9cce06
README.md:12) holds ``json/<set>.json`` (a JSON list of items) beside ``audio/`` (each item's ``Audio``, a path under
it: ``knowledge/0000.wav``). The repository's own ``json/`` is the same metadata, which its scripts read
(``utils/qwenmax_eval.py`` ``read_metajson``).

A run fetches the set's list, then only the clips of the items it evaluates. ``VOCALBENCH_DATA_DIR`` (or
``vocalbench_data_dir`` in ``--metadata``) names a local copy in the same layout instead.

``SETS``: the sets this plugin runs, with their item counts as published and the fields their scoring reads.
"""

from __future__ import annotations

import logging
from pathlib import Path

from lm_eval_audio.benchmarks.choice_layout import LayoutDataError, LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import ADVICE, DataSpec, listed_source
from lm_eval_audio.benchmarks.hub_data import DataSource
from lm_eval_audio.storage import jsonl
from lm_eval_audio.storage.data_paths import leaves_folder
from lm_eval_audio.tasks.vocalbench import instruction

log = logging.getLogger("lm_eval.audio.vocalbench")

# set -> (items as published, the fields an item must have besides Qid, Audio and Question)
SETS = {
    "knowledge": (2000, ("Answer",)),
    "reasoning": (1000, ("Answer",)),
    "creativity": (400, ("Category",)),
    "single_round": (200, ()),
    "emotion": (500, ("Question_emo", "Score")),
    "safety": (400, ()),
    "multi_round": (400, ("Answer", "Context")),
    "robust": (700, ("Answer",)),  # of robust.json's 3,600, the six conditions scored, and single_round's 100 clean
    "instruction_following": (900, ()),  # its Qid, Category and Sub-category read by instruction.doc_fields
}
# robust: the conditions utils/read_score_robust.py scores (its ``eval_sets``: each kind's hardest level), out of the
# 36 in robust.json; the clean score is the single_round answers to robust_clean.json's questions
# (utils/read_score_robust_clean.py: single_round items whose Answer is one of robust_clean.json's)
ROBUST_CONDITIONS = ("robust-background_noise-snr_-5", "robust-white_noise-snr_-5", "robust-reverberation-rt60_30",
                     "robust-packet_loss-dropping_70", "robust-farfield-filter_400hz",
                     "robust-distortion-clipping_0.0001")
CLEAN = "clean"
AUDIO = "audio"
# the labels of an emotion item's five ``Score`` values, in order (its ``Rate_text``: "Angry: 5; Happy: 1; ...";
# utils/calc_emotion_acoustic.py zips them with emotion2vec's, tokens.txt as README.md:207 writes it)
SCORED_EMOTIONS = ("angry", "happy", "neutral", "sad", "surprised")


class VocalBenchDataError(LayoutDataError):
    """VocalBench data that cannot be used; the message names the file and the fix."""


DATA = DataSpec(
    "VocalBench", "VOCALBENCH_DATA_DIR", "vocalbench_data_dir", hub="VocalNet/VocalBench",
    sample=Path(__file__).resolve().parent / "sample_data", holds="json/<set>.json beside audio/<set>/<n>.wav",
    local_dir="/data/VocalBench", error=VocalBenchDataError,
    advice=ADVICE.replace("fetch it from the Hub", "fetch what they need from the Hub"))


def listing(eval_set: str) -> str:
    return f"json/{eval_set}.json"


def listings(eval_set: str) -> tuple[str, ...]:
    """The lists a set's documents come from: robust's, its clean questions' and single_round's; else its own."""
    if eval_set == "robust":
        return listing("robust"), listing("robust_clean"), listing("single_round")
    return (listing(eval_set),)


def data_source(eval_set: str, metadata: dict, sample: bool) -> DataSource:
    """The bundled sample, the local folder, or the Hub snapshot with the set's lists fetched (the clips come when
    the run's documents are known)."""
    return listed_source(DATA, metadata, sample, listings(eval_set), "vocalbench")


def _problem(item, needed: tuple[str, ...]) -> str | None:
    if not isinstance(item, dict):
        return "is not a JSON object"
    missing = [k for k in ("Qid", "Audio", "Question", *needed) if item.get(k) in (None, "")]
    if missing:
        return f"lacks {', '.join(missing)}"
    if leaves_folder(str(item["Audio"])):
        return f"Audio {item['Audio']!r} leads outside the audio folder: refused"
    if "Score" in needed and not (isinstance(item["Score"], list) and len(item["Score"]) == len(SCORED_EMOTIONS)
                                  and all(isinstance(v, (int, float)) for v in item["Score"])):
        return f"Score {item['Score']!r} is not five numbers ({', '.join(SCORED_EMOTIONS)})"
    if "Context" in needed and not _is_dialogue(item["Context"]):
        return "Context is not a list of turns ({'from': 'user' or 'assistant', 'value': text}) starting with the user's"
    if "Category" in needed and not _judge_prompt_of("creativity", str(item["Category"])).is_file():
        # found here, not when the judge is asked after the model has answered
        return f"Category {item['Category']!r} has no judge prompt (prompts/creativity/)"
    return None


def _is_dialogue(context) -> bool:
    return isinstance(context, list) and bool(context) and all(
        isinstance(turn, dict) and turn.get("from") == ("user", "assistant")[i % 2] and isinstance(turn.get("value"), str)
        for i, turn in enumerate(context))


def _robust_items(root: Path, notes: DataNotes, label: str) -> list[tuple[dict, dict]]:
    """robust's (item, what its document adds): the clean questions' single_round items first, then the scored
    conditions' items, each asked the clean question of its index (qwenmax_eval.py reads robust's questions from
    robust_clean.json: ``metadata[int(question_id.split('-')[-1])]``)."""
    robust, clean, single = (jsonl.json_list(root / name, VocalBenchDataError) for name in listings("robust"))
    clean_answers = {item.get("Answer") for item in clean if isinstance(item, dict)}
    out = [(item, {"condition": CLEAN, "judged_as": "single_round"})
           for item in single if isinstance(item, dict) and item.get("Answer") in clean_answers]
    if not out:
        raise VocalBenchDataError(f"{label}: no single_round item answers a question of {root / listing('robust_clean')}"
                                  ": robust's clean score cannot be formed; use the complete official lists")
    left_out = LeftOut(label, "item", notes)
    for index, item in enumerate(robust):
        qid = str(item.get("Qid", "")) if isinstance(item, dict) else ""
        if qid.rsplit("-", 1)[0] not in ROBUST_CONDITIONS:
            continue  # a condition the score does not read (30 of robust.json's 36)
        number = qid.rsplit("-", 1)[1]
        if not (number.isdigit() and int(number) < len(clean) and isinstance(clean[int(number)], dict)):
            left_out.add(index, qid, f"has no clean question: robust_clean.json has no item {number!r}")
            continue
        out.append(({**item, "Question": clean[int(number)].get("Question")},
                    {"condition": qid.rsplit("-", 1)[0], "judged_as": "robust"}))
    left_out.warn(root / listing("robust"))
    return out


def _judge_prompt_of(eval_set: str, category: str) -> Path:
    from lm_eval_audio.tasks.vocalbench.judges import prompt_path

    return prompt_path(eval_set, category)


def load_docs(eval_set: str, metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    """The items of ``eval_set``, in the list's order; what cannot be used, on ``notes``."""
    source = data_source(eval_set, metadata, sample)
    label = f"VocalBench {eval_set}" + (" sample" if sample else "")
    notes.note("sources", label, source.record())
    path = source.root / listing(eval_set)
    if eval_set == "robust":
        items = _robust_items(source.root, notes, label)
    else:
        items = [(item, {}) for item in jsonl.json_list(path, VocalBenchDataError)]
    needed = SETS[eval_set][1]
    docs, invalid, no_audio = [], LeftOut(label, "item", notes), 0
    for index, (item, added) in enumerate(items):
        bad = _problem(item, needed)
        if not bad and eval_set == "instruction_following":
            added = instruction.doc_fields(item)
            if isinstance(added, str):
                bad = added
            elif not _judge_prompt_of(eval_set, added["category"]).is_file():  # found now, not after the model
                bad = f"category {added['category']!r} has no judge prompt (prompts/instruction/)"
        if bad:
            invalid.add(index, item.get("Qid") if isinstance(item, dict) else None, bad)
            continue
        audio = source.root / AUDIO / str(item["Audio"])
        problem = source.problem(audio, notes)
        if problem:
            no_audio += 1
            notes.note("unusable_audio", f"{label}/{item['Qid']}", problem)
            log.warning("%s: %s: %s; the model is not asked, the item is counted in audio_missing and scored as an "
                        "empty answer", label, item["Qid"], problem)
        docs.append({"doc_id": len(docs), "uniq_id": str(item["Qid"]), "set": eval_set,
                     "question": str(item["Question"]), "answer": str(item.get("Answer", "")),
                     "category": str(item.get("Category", "")), "topic": str(item.get("Topic", "")),
                     "source": str(item.get("Source", "")), "question_emotion": str(item.get("Question_emo", "")),
                     "audio": [str(audio)], "audio_problem": problem, **added,
                     **({"context": item["Context"]} if "Context" in needed else {}),
                     **({"target_emotion": dict(zip(SCORED_EMOTIONS, item["Score"]))} if "Score" in needed else {})})
    invalid.warn(path)
    if not docs:
        raise VocalBenchDataError(f"{label}: {path} lists no usable item; use the complete official list")
    log.info("%s: %d item(s) from %s%s", label, len(docs), path,
             f"; {no_audio} with a missing or empty clip" if no_audio else "")
    return docs
