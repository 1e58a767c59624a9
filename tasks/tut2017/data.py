"""TUT Acoustic Scenes 2017's evaluation set (DCASE 2017 task 1; https://zenodo.org/records/1040168) as
Kimi-Audio-Evalkit reads it (MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:1026-1122) and
Qwen-Audio asks it (QwenLM/Qwen-Audio@b50fb95 eval_audio/EVALUATION.md:141-176): Zenodo's four
``TUT-acoustic-scenes-2017-evaluation.audio.*.zip`` and its ``.meta.zip`` unpacked side by side, giving
``TUT-acoustic-scenes-2017-evaluation/meta.txt``, one line a clip: its path relative to that folder
(``audio/<n>.wav``) and its scene label, whitespace-separated (the evalkit reads the first two fields,
download_benchmark.py:1097-1099). 1,620 ten-second segments, 15 scenes (the DCASE 2017 task; not checked against a
copy here). Its scene labels write ``city_center``, ``cafe/restaurant``; the question lists ``city center``,
``cafe or restaurant``.

No toolkit reads a Hugging Face Hub copy: both references download Zenodo's files, so the tasks read a local copy
in that layout (``TUT2017_DATA_DIR``) and cannot fetch it for you.

The question is Kimi-Audio-Evalkit's (download_benchmark.py:1093), the one the numbers on its leaderboard and
Kimi-Audio's card were produced with; Qwen-Audio's own prompt is a tag sequence of its base model
(``<|startofanalysis|>...<|scene|>``, eval_audio/evaluate_scene.py:108), for no other model.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.benchmarks import class_reading, speech_sets
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.model_wrappers.author_prompts import Published
from lm_eval_audio.benchmarks.choice_layout import LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec, resolve
from lm_eval_audio.storage.data_paths import leaves_folder
from lm_eval_audio.model_wrappers.family_adapters.not_run import KIMI_AUDIO
from lm_eval_audio.model_wrappers.family_adapters.qwen2_5_omni import QWEN2_5_OMNI
from lm_eval_audio.model_wrappers.family_adapters.qwen2_audio import QWEN2_AUDIO

FOLDER = "TUT-acoustic-scenes-2017-evaluation"
SPEC = DataSpec(
    name="TUT Acoustic Scenes 2017", variable="TUT2017_DATA_DIR", metadata_key="tut2017_data_dir", hub=None,
    holds=f"{FOLDER}/meta.txt beside {FOLDER}/audio/",
    advice=("Download TUT-acoustic-scenes-2017-evaluation.audio.1.zip to .audio.4.zip and .meta.zip from "
            "https://zenodo.org/records/1040168 (what Kimi-Audio-Evalkit's data/download_benchmark.py does) and "
            "unzip them into one folder, then `export {variable}=/data/tut2017` or pass --metadata "
            "'{{\"{metadata_key}\": \"/data/tut2017\"}}'. The folder must hold {holds}. To try the tasks without "
            "the data, run the synthetic `{sample_group}` group."),
    sample=Path(__file__).resolve().parent / "sample_data", error=speech_sets.SpeechDataError)
# The scene labels as meta.txt writes them, each with its option as the evalkit's question writes it, in its order
SCENES = {"beach": "beach", "bus": "bus", "cafe/restaurant": "cafe or restaurant", "car": "car",
          "city_center": "city center", "forest_path": "forest path", "grocery_store": "grocery store",
          "home": "home", "library": "library", "metro_station": "metro station", "office": "office", "park": "park",
          "residential_area": "residential area", "train": "train", "tram": "tram"}
OPTIONS = tuple(SCENES.values())
# MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:1093 (the "\n.Answer" is the source's)
PROMPT = ("Identify the acoustic scene in the audio.\nOptions:\n(A) beach\n(B) bus\n(C) cafe or restaurant\n(D) car\n"
          "(E) city center\n(F) forest path\n(G) grocery store\n(H) home\n(I) library\n(J) metro station\n(K) office\n"
          "(L) park\n(M) residential area\n(N) train\n(O) tram\n.Answer with the option's letter from the given "
          "choices directly and only give the best option.")
AUTHORS_PROMPTS = {
    # MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/qwen_audio.py:42-43 (its Qwen2-Audio-7B base model, an
    # AudioEvent set)
    QWEN2_AUDIO: Published(f"Listen to the given audio carefully and answer this question: {PROMPT} Your answer is:",
                             "MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/qwen_audio.py:42-43"),
    # MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/qwen_omni.py:45-46, 64-66
    QWEN2_5_OMNI: Published(f"Listen to the given audio carefully and answer this question: {PROMPT}.",
                              "MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/qwen_omni.py:45-46",
                              "with the system prompt 'You are a helpful assistant.' (almeval/models/qwen_omni.py:"
                              "64-66; system_prompt= in --model_args)"),
    # MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/kimi_audio.py:31-32: the question as is
    KIMI_AUDIO: Published(PROMPT, "MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/kimi_audio.py:31-32"),
}

# What the results say of the metrics (lm_eval_audio_data.scoring_rules): acc is not the judged number the cards quote
SCORING_RULES = class_reading.UNJUDGED_OPTION + (
    " exact_match: Qwen-Audio's evaluate_scene.py rule (labels taken to be meta.txt's, unconfirmed), near 0 under "
    "the default lettered question")


def _meta(root: Path) -> Path:
    for meta in (root / FOLDER / "meta.txt", root / "meta.txt"):  # the unzipped folder's parent, or the folder
        if meta.is_file():
            return meta
    raise speech_sets.SpeechDataError(f"TUT Acoustic Scenes 2017: {root} holds no {FOLDER}/meta.txt: not the layout "
                                      "of Zenodo's evaluation set. " + SPEC.help(root))


def load_docs(metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = "TUT Acoustic Scenes 2017 evaluation" + (" sample" if sample else "")
    root = resolve(SPEC, metadata, sample).root
    meta = _meta(root)
    speech_sets.record(notes, label, root, None, [meta])
    default = author_prompts.instruction(notes, label, metadata, AUTHORS_PROMPTS, "TUT2017", PROMPT)
    instruction = speech_sets.asked(notes, label, metadata, default)
    notes.note("scoring_rules", label, SCORING_RULES)
    try:
        lines = meta.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as e:
        raise speech_sets.SpeechDataError(f"{meta} is not UTF-8 text ({e}); download the .meta.zip again") from None
    docs, invalid = [], LeftOut(label, "line", notes)
    for index, line in enumerate(lines):
        fields = line.split()
        if not fields:
            continue  # a blank line (the file's end)
        if len(fields) < 2 or fields[1] not in SCENES:
            invalid.add(index, fields[0], f"scene {fields[1] if len(fields) > 1 else None!r} is none of TUT "
                        f"Acoustic Scenes 2017's ({', '.join(SCENES)})")
            continue
        if leaves_folder(fields[0]):
            invalid.add(index, fields[0], "the path leads outside the data folder: refused")
            continue
        clip = meta.parent / fields[0]
        docs.append(speech_sets.document(
            len(docs), fields[0], fields[1], "", instruction, audio_path=str(clip),
            audio_problem=speech_sets.clip_problem(clip), option=SCENES[fields[1]]))
    invalid.warn(meta)
    return speech_sets.checked(docs, label, notes, missing_are="scored wrong")
