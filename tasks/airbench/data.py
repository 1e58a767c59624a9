"""AIR-Bench data: the official snapshot's layout, its prompts and its answer rule.

With no local folder set, the tasks read ``qyang1021/AIR-Bench-Dataset`` from the Hugging Face Hub
(``lm_eval_audio.benchmarks.hub_data``): the meta file of each track a run needs, then, as the run builds its
requests, the audio files of the items it evaluates (with ``--limit N``, those of the first N). A snapshot holds ``Foundation/Foundation_meta.json``
and ``Chat/Chat_meta.json`` (JSON lists), with each item's audio at
``<root>/<Track>/<task_name>_<dataset_name>/<path>``. Quirks kept as published: the
misspelled folder names (``Speaker_Emotion_Recontion``, ...), two-choice items without
``choice_c``/``choice_d``, and ``Audio_Grounding`` whose meta says ``.wav`` for files
that are ``.flac``.

Documents carry the audio path, never samples. Items whose folder is absent from the
snapshot are left out with a warning that names the folder and counts its items; an
item whose file is missing or empty stays in, flagged: the model is not run on it, it is
counted (``audio_missing``), and foundation scores it wrong. Every gap is also noted for
the results JSON (on the loader's ``DataNotes``: ``lm_eval_audio.benchmarks.data_notes``).
"""

from __future__ import annotations

import functools
import logging
import re
from collections import Counter, OrderedDict
from pathlib import Path

from lm_eval_audio.model_wrappers.author_prompts import OwnFormat
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec, resolve
from lm_eval_audio.benchmarks.hub_data import DataSource
from lm_eval_audio.storage import jsonl
# The ``dataset_name`` of every item of the bundled sample (make_sample.py): whatever reports on it says so.
from lm_eval_audio.testing.synthetic_audio import SYNTHETIC_SAMPLE_DATASET  # noqa: F401
from lm_eval_audio.model_wrappers.family_adapters.qwen2_audio import QWEN2_AUDIO

log = logging.getLogger("lm_eval.audio.airbench")


FOUNDATION_CATEGORIES = {
    "speech": [
        "Speaker_Age_Prediction", "Speaker_Emotion_Recontion", "Speaker_Gender_Recognition",
        "Speaker_Intent_Classification", "Speaker_Number_Verification", "Speech_Entity_Reconition",
        "Speech_Grounding", "Spoken_Language_Identification", "Synthesized_Voice_Detection",
    ],
    "sound": ["Acoustic_Scene_Classification", "Audio_Grounding", "Sound_AQA", "vocal_sound_classification"],
    "music": [
        "Music_AQA", "Music_Genre_Recognition", "Music_Instruments_Classfication",
        "Music_Midi_Pitch_Analysis", "Music_Midi_Velocity_Analysis", "Music_Mood_Recognition",
    ],
}

# cal_score.py: speech, sound and music are item means over their tasks; mixed is the mean
# of its two tasks' means (the airbench_chat_* group YAMLs encode the same rule).
CHAT_CATEGORIES = {
    "speech": ["speech_QA", "speech_dialogue_QA"],
    "sound": ["sound_QA", "sound_generation_QA"],
    "music": ["music_QA", "music_generation_analysis_QA"],
    "mixed": ["speech_and_sound_QA", "speech_and_music_QA"],
}

# Inference_Foundation.py (OFA-Sys/AIR-Bench@983247666e2a), variable `question_prompts`
FOUNDATION_INSTRUCTION = (
    "Choose the most suitable answer from options A, B, C, and D to respond the question in next line, "
    "you may only choose A or B or C or D."
)

_REQUIRED = {
    "Foundation": ("path", "question", "choice_a", "choice_b", "answer_gt", "task_name", "dataset_name", "uniq_id"),
    "Chat": ("path", "question", "answer_gt", "task_name", "dataset_name", "meta_info", "uniq_id"),
}

# The model authors' prompts (--model_args ...,prompts=authors), per track. Qwen2-Audio's chat evaluation
# (QwenLM/Qwen2-Audio@595360e eval_audio/evaluate_chat.py:55-63) asks each item's query as AIR-Bench writes it, with
# the system turn 'You are a helpful assistant.', on the Instruct model; no family publishes a Foundation prompt.
AUTHORS_PROMPTS = {
    "Foundation": {},
    "Chat": {QWEN2_AUDIO: OwnFormat("QwenLM/Qwen2-Audio@595360e eval_audio/evaluate_chat.py:55-63",
                                      "Qwen2-Audio-7B-Instruct with its chat template and the system turn 'You are a "
                                      "helpful assistant.'")},
}


class AirBenchDataError(ValueError):
    """The snapshot or one of its items cannot be used; the message says how to fix it."""


DATA = DataSpec(
    "AIR-Bench", "AIRBENCH_DATA_DIR", "airbench_data_dir", hub="qyang1021/AIR-Bench-Dataset",
    sample=Path(__file__).resolve().parent / "sample_data",
    holds="Foundation/Foundation_meta.json and Chat/Chat_meta.json", error=AirBenchDataError,
    advice="Unset {variable} to let the tasks fetch what they need from the Hub, or point it (or --metadata "
    "'{{\"{metadata_key}\": ...}}') at a copy of {repo} (`hf download {repo} --repo-type dataset --local-dir "
    "/data/AIR-Bench-Dataset`) that holds {holds}. To try the tasks without the data, run the synthetic "
    "`{sample_group}` group.")
REPO, DOWNLOAD_HELP = DATA.repo, DATA.help()


class TaskDataAbsent(AirBenchDataError):
    """The snapshot has no item of this task. Inside a group the startup hook leaves the
    task out (lm-eval cannot build a task with no documents); asked for alone, it is an error."""

    skippable_in_group = True


def sample_root() -> Path:
    """The bundled synthetic stand-in (``airbench_sample``), in the official layout."""
    return DATA.sample


def _meta_file(track: str) -> str:
    return f"{track}/{track}_meta.json"


def data_source(metadata: dict, tracks=tuple(_REQUIRED), sample: bool = False) -> DataSource:
    """The bundled sample (``sample``), else the local folder the metadata or environment names (it wins), else the
    Hub repository with the meta files of ``tracks`` fetched; the audio comes later, for the items a run evaluates.
    The source records the meta files of ``tracks`` it holds: the files a task of those tracks reads."""
    source = resolve(DATA, metadata, sample)
    snapshot = source.snapshot
    if snapshot is None:
        root = source.root
        if not sample and not any((root / _meta_file(track)).is_file() for track in _REQUIRED):
            raise AirBenchDataError(f"{root} holds neither Foundation/Foundation_meta.json nor Chat/Chat_meta.json: it "
                                    "is not an AIR-Bench snapshot. " + DOWNLOAD_HELP)
        return _local(root, tracks)
    metas = [snapshot.files[_meta_file(t)] for t in tracks if _meta_file(t) in snapshot.files]
    snapshot.fetch(metas, "AIR-Bench " + "/".join(tracks) + " metadata", needed_to_plan=True)
    return DataSource(snapshot.root, snapshot, tuple(f.path for f in metas))


def _local(root: Path, tracks) -> DataSource:
    return DataSource(root, None, tuple(_meta_file(t) for t in tracks if (root / _meta_file(t)).is_file()))


def source_key(track: str, sample: bool) -> str:
    """The track's record under the results' ``lm_eval_audio_data.sources``: one per meta file read."""
    return f"AIR-Bench {track}" + (" sample" if sample else "")


def tracks_of(tasks: list[str]) -> tuple[str, ...]:
    """The tracks a run's AIR-Bench tasks read (a group named only "airbench" reads both)."""
    chat, foundation = any("chat" in t for t in tasks), any("foundation" in t for t in tasks)
    return tuple(t for t, wanted in (("Foundation", foundation), ("Chat", chat)) if wanted) or tuple(_REQUIRED)


def check_snapshot(metadata: dict, tasks: list[str] = ()) -> None:
    """Before any model loads: the data folder is set and holds a meta file, or the repository's meta files are
    fetched."""
    data_source(metadata, tracks_of(list(tasks)))


@functools.lru_cache(maxsize=4)
def _read_meta(path: str, mtime_ns: int) -> tuple:
    return jsonl.json_list(path, AirBenchDataError)


def read_meta(root: Path, track: str) -> tuple:
    path = root / _meta_file(track)
    if not path.is_file():
        raise AirBenchDataError(f"{path} is missing: {root} is not an AIR-Bench snapshot. " + DOWNLOAD_HELP)
    return _read_meta(str(path), path.stat().st_mtime_ns)


def audio_file(root: Path, track: str, item: dict) -> str:
    path = f"{root}/{track}/{item['task_name']}_{item['dataset_name']}/{item['path']}"
    if item["task_name"] == "Audio_Grounding":
        path = path[:-3] + "flac"  # as Inference_Foundation.py does: the files are FLAC
    return path


def _item_problem(item, index: int, track: str, meta_path: str) -> str | None:
    """Why an item cannot be evaluated, or None."""
    if not isinstance(item, dict):
        raise AirBenchDataError(f"{meta_path}: item {index} is not a JSON object; download the metadata again")
    missing = [k for k in _REQUIRED[track] if item.get(k) is None]
    if missing:
        return f"lacks {', '.join(missing)}"
    escape = _escapes_the_snapshot(item)
    if escape:
        return escape
    if track == "Foundation":
        choices = [item.get(k) for k in ("choice_a", "choice_b", "choice_c", "choice_d")]
        if item["answer_gt"] not in [c for c in choices if c is not None]:
            return f"answer_gt {item['answer_gt']!r} is none of its choices"
    return None


def _escapes_the_snapshot(item: dict) -> str | None:
    """A ``path`` (or folder name) that would lead out of ``<root>/<Track>/<task>_<dataset>/``:
    absolute, or climbing with ``..``. The official files never do; a tampered one is refused."""
    from lm_eval_audio.storage.data_paths import leaves_folder

    for key in ("task_name", "dataset_name", "path"):
        value = str(item[key])
        if leaves_folder(value):
            return f"{key} {value!r} leads outside the snapshot folder (absolute, or with '..'): refused"
        if key != "path" and ("/" in value or "\\" in value):
            return f"{key} {value!r} holds a path separator: refused"
    return None


KNOWN_TASKS = {
    "Foundation": {t for tasks in FOUNDATION_CATEGORIES.values() for t in tasks},
    "Chat": {t for tasks in CHAT_CATEGORIES.values() for t in tasks},
}


def _report_unknown_tasks(meta: tuple, meta_path: str, notes: DataNotes) -> None:
    """Items under a task name no task reads would be left out of every task without a word."""
    track = "Foundation" if meta_path.endswith("Foundation_meta.json") else "Chat"
    unknown = Counter(str(item.get("task_name")) for item in meta
                      if isinstance(item, dict) and item.get("task_name") not in KNOWN_TASKS[track])
    for name, count in unknown.items():
        notes.note("airbench_unknown_task_names", f"{track}/{name}", {"items": count, "meta": meta_path})
    if unknown:
        notes.warn_once(("airbench_unknown_task_names", meta_path), log,
                        "%s: %d item(s) name a task AIR-Bench does not have and are evaluated by no task: %s; "
                        "fix task_name in the metadata (the known names are the folder prefixes of the official "
                        "snapshot)", meta_path, sum(unknown.values()),
                        ", ".join(f"{name!r} ({count})" for name, count in unknown.most_common(5)))


def load_items(source: DataSource | Path, track: str, task_names: list[str] | None, eval_task: str, *,
               notes: DataNotes) -> list[dict]:
    """The documents of one lm-eval task: the items of ``task_names`` (all if None); what cannot be used, on
    ``notes``."""
    source = source if isinstance(source, DataSource) else DataSource(Path(source))
    root = source.root
    meta = read_meta(root, track)
    meta_path = str(root / track / f"{track}_meta.json")
    if task_names is not None:
        _report_unknown_tasks(meta, meta_path, notes)
    selected, invalid = [], []
    for index, item in enumerate(meta):
        if task_names is not None and item.get("task_name") not in task_names:
            continue
        problem = _item_problem(item, index, track, meta_path)
        if problem:
            # score_foundation.py would exit on such an item; one bad item must not end a 21k-item run.
            invalid.append(f"uniq_id {item.get('uniq_id')!r} (item {index}): {problem}")
            notes.note("airbench_invalid_items", f"{track}/{item.get('uniq_id', index)}", problem)
        else:
            selected.append(item)
    if invalid:
        log.warning("%s: %d item(s) of %s cannot be evaluated and are left out: %s%s", eval_task, len(invalid),
                    meta_path, "; ".join(invalid[:10]), " ..." if len(invalid) > 10 else "")
    if not selected:
        known = sorted({item["task_name"] for item in meta})
        notes.note("airbench_absent_tasks", eval_task, f"{meta_path} lists no items of it")
        raise TaskDataAbsent(
            f"{eval_task}: {meta_path} lists no items of this task (it lists {', '.join(known)}); "
            "use the complete official metadata to include it"
        )

    by_folder: OrderedDict[str, list] = OrderedDict()
    for item in selected:
        by_folder.setdefault(f"{item['task_name']}_{item['dataset_name']}", []).append(item)
    absent = {folder: len(items) for folder, items in by_folder.items() if not source.has_folder(f"{track}/{folder}")}
    for folder, count in absent.items():
        notes.note("airbench_missing_folders", f"{track}/{folder}", {"items": count, "root": str(root)})
        log.warning(
            "%s: folder %s/%s is missing from the snapshot at %s: its %d item(s) are not evaluated; "
            "download that folder to include them",
            eval_task, track, folder, root, count,
        )
    if len(absent) == len(by_folder):
        notes.note("airbench_absent_tasks", eval_task, "none of its audio folders is in the snapshot")
        raise TaskDataAbsent(
            f"{eval_task}: none of its audio folders ({', '.join(f'{track}/{f}' for f in absent)}) is in the "
            f"snapshot at {root}; download them"
        )

    docs, problems = [], Counter()
    for folder, items in by_folder.items():
        if folder in absent:
            continue
        for item in items:
            path = audio_file(root, track, item)
            problem = source.problem(path, notes)
            if problem:
                problems[folder] += 1
                notes.note("airbench_unusable_audio", f"{track}/{item['task_name']}/{item['uniq_id']}", problem)
                log.warning("%s: uniq_id %s: %s; the item is scored wrong and counted in audio_missing",
                            eval_task, item["uniq_id"], problem)
            doc = {
                "doc_id": len(docs),
                "uniq_id": str(item["uniq_id"]),
                "task_name": item["task_name"],
                "dataset_name": item["dataset_name"],
                "question": item["question"],
                "answer_gt": item["answer_gt"],
                "audio": path,
                "audio_problem": problem,
            }
            if track == "Foundation":
                for key in ("choice_a", "choice_b", "choice_c", "choice_d"):
                    doc[key] = item.get(key)
            else:
                doc["meta_info"] = item["meta_info"]
            docs.append(doc)
    log.info(
        "%s: %d item(s) from %d folder(s) of %s%s", eval_task, len(docs), len(by_folder) - len(absent), root / track,
        f"; {sum(problems.values())} with missing or empty audio" if problems else "",
    )
    return docs


# --- prompts and the official answer rule ---------------------------------------------


def foundation_prompt(doc: dict) -> str:
    """Inference_Foundation.py's instruction, byte for byte (``None`` for a missing C or D)."""
    choices = f"A. {doc['choice_a']}\nB. {doc['choice_b']}\nC. {doc.get('choice_c')}\nD. {doc.get('choice_d')}"
    return FOUNDATION_INSTRUCTION + "\n" + doc["question"] + "\n" + choices


def choices_of(doc: dict) -> list:
    return [doc.get("choice_a"), doc.get("choice_b"), doc.get("choice_c"), doc.get("choice_d")]


def answer_letter(doc: dict) -> str:
    """The letter of ``answer_gt``, matched as score_foundation.py does (A first)."""
    for letter, choice in zip("ABCD", choices_of(doc)):
        if choice is not None and doc["answer_gt"] == choice:
            return letter
    raise AirBenchDataError(f"uniq_id {doc.get('uniq_id')!r}: answer_gt {doc['answer_gt']!r} is none of its choices")


# The answer formats the paper's Table 4 counts as following the instruction: an option letter alone ("B"),
# in parentheses ("(B)"), or closed by ".", ")" or ":" and optionally followed by the option's text
# ("B.", "B)", "B: a dog barking"). Not "Definitely C." or "Anger", from which the official rule still
# reads a letter (D and A).
_OPTION_FORMAT = re.compile(r"\(?([A-D])\)?(?:[.):](?:\s.*)?)?", re.DOTALL)


def follows_answer_format(response: str) -> bool:
    """The response, stripped, is an option letter in one of the formats above (paper Table 4's success)."""
    return _OPTION_FORMAT.fullmatch((response or "").strip()) is not None


def folder_of(doc: dict) -> str:
    """The audio folder an item comes from, ``<task_name>_<dataset_name>``: the unit ``score_foundation.py``
    reports an accuracy for (its ``task_id``)."""
    return f"{doc['task_name']}_{doc['dataset_name']}"


def accuracy_by_folder(scores: list[tuple[str, float | None]]) -> dict[str, dict]:
    """Per folder, from (folder, score) pairs where None is an item left out of the denominator: the accuracy
    over the rest, how many were scored and how many items the folder has (``score_foundation.py``'s per-task_id
    ``Sum`` and ``acc``)."""
    out: dict[str, dict] = {}
    for folder, score in scores:
        entry = out.setdefault(folder, {"items": 0, "scored": 0, "correct": 0.0})
        entry["items"] += 1
        if score is not None:
            entry["scored"] += 1
            entry["correct"] += score
    for entry in out.values():
        entry["accuracy"] = entry["correct"] / entry["scored"] if entry["scored"] else None
        del entry["correct"]
    return dict(sorted(out.items()))


def official_choice(response: str) -> str | None:
    """score_foundation.py's rule: the first character if it is A-D, else the
    second-to-last ("The answer is A."), after stripping and deleting newlines; None
    when neither is a letter (the paper's Table 4 counts those as failures)."""
    predict = (response or "").strip().replace("\n", "")
    if not predict or predict == "None":
        return None
    if predict[0] in "ABCD":
        return predict[0]
    if len(predict) > 1 and predict[-2] in "ABCD":
        return predict[-2]
    return None
