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

log = logging.getLogger("lm_eval.audio.vocalbench")

# set -> (items as published, the fields an item must have besides Qid, Audio and Question)
SETS = {
    "knowledge": (2000, ("Answer",)),
    "reasoning": (1000, ("Answer",)),
    "creativity": (400, ("Category",)),
    "single_round": (200, ()),
    "emotion": (500, ("Question_emo", "Score")),
    "safety": (400, ()),
}
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


def data_source(eval_set: str, metadata: dict, sample: bool) -> DataSource:
    """The bundled sample, the local folder, or the Hub snapshot with the set's list fetched (the clips come when
    the run's documents are known)."""
    return listed_source(DATA, metadata, sample, listing(eval_set), "vocalbench")


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
    if "Category" in needed and not _judge_prompt_of(str(item["Category"])).is_file():
        # found here, not when the judge is asked after the model has answered
        return f"Category {item['Category']!r} has no judge prompt (prompts/creativity/)"
    return None


def _judge_prompt_of(category: str) -> Path:
    from lm_eval_audio.tasks.vocalbench.judges import prompt_path

    return prompt_path("creativity", category)


def load_docs(eval_set: str, metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    """The items of ``eval_set``, in the list's order; what cannot be used, on ``notes``."""
    source = data_source(eval_set, metadata, sample)
    label = f"VocalBench {eval_set}" + (" sample" if sample else "")
    notes.note("sources", label, source.record())
    path = source.root / listing(eval_set)
    items = jsonl.json_list(path, VocalBenchDataError)
    needed = SETS[eval_set][1]
    docs, invalid, no_audio = [], LeftOut(label, "item", notes), 0
    for index, item in enumerate(items):
        bad = _problem(item, needed)
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
                     "audio": [str(audio)], "audio_problem": problem,
                     **({"target_emotion": dict(zip(SCORED_EMOTIONS, item["Score"]))} if "Score" in needed else {})})
    invalid.warn(path)
    if not docs:
        raise VocalBenchDataError(f"{label}: {path} lists no usable item; use the complete official list")
    log.info("%s: %d item(s) from %s%s", label, len(docs), path,
             f"; {no_audio} with a missing or empty clip" if no_audio else "")
    return docs
