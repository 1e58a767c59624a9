"""CochlScene (Jeong and Park, APSIPA 2022; https://zenodo.org/records/7080122) as Kimi-Audio-Evalkit reads it
(MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:1125-1243): Zenodo's split zip
(``CochlScene.z01``-``.z05`` and ``.zip``) unpacked into ``CochlScene/``, whose ``Test/`` and ``Val/`` hold one
folder a scene (``Bus``, ``CrowdedIndoor``, ...) of ``.wav`` clips; a clip's scene is its folder's name
(download_benchmark.py:1224). The evalkit scores ``Test`` and ``Val`` apart (its ``subset``, :1212 and :1231;
``test | dev`` on its leaderboard): the tasks ``cochlscene_test`` and ``cochlscene_val``. 13 scenes; the paper
splits 76,115 clips into train, validation and test (the split sizes are not checked against a copy here).

No toolkit reads a Hugging Face Hub copy: both references (Kimi-Audio-Evalkit; Qwen-Audio,
QwenLM/Qwen-Audio@b50fb95 eval_audio/EVALUATION.md:146-154) download Zenodo's files, so the tasks read a local copy
in that layout (``COCHLSCENE_DATA_DIR``: the folder holding ``CochlScene/``, or ``CochlScene/`` itself) and cannot
fetch it for you.

The question is Kimi-Audio-Evalkit's (download_benchmark.py:1209), the one the numbers on its leaderboard and
Kimi-Audio's card were produced with; MiDashengLM asked its own (``prompts=authors``).
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.benchmarks import class_reading, speech_sets
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.model_wrappers.author_prompts import Published
from lm_eval_audio.benchmarks.choice_layout import LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec, resolve
from lm_eval_audio.model_wrappers.family_adapters.not_run import KIMI_AUDIO
from lm_eval_audio.model_wrappers.family_adapters.qwen2_5_omni import QWEN2_5_OMNI
from lm_eval_audio.model_wrappers.family_adapters.qwen2_audio import QWEN2_AUDIO

SPLITS = {"test": "Test", "val": "Val"}  # task -> the folder Zenodo's archive names
SPEC = DataSpec(
    name="CochlScene", variable="COCHLSCENE_DATA_DIR", metadata_key="cochlscene_data_dir", hub=None,
    holds="CochlScene/Test/<scene>/*.wav and CochlScene/Val/<scene>/*.wav",
    advice=("Download CochlScene.z01 to .z05 and CochlScene.zip from https://zenodo.org/records/7080122 (what "
            "Kimi-Audio-Evalkit's data/download_benchmark.py does), join and unzip them (`zip -s 0 CochlScene.zip "
            "--out full.zip && unzip full.zip`), then `export {variable}=/data/cochlscene` or pass --metadata "
            "'{{\"{metadata_key}\": \"/data/cochlscene\"}}'. The folder must hold {holds}. To try the tasks without "
            "the data, run the synthetic `{sample_group}` group."),
    sample=Path(__file__).resolve().parent / "sample_data", error=speech_sets.SpeechDataError)
# The scene folders, each with its option as the evalkit's question writes it, in its order
SCENES = {"Bus": "bus", "Cafe": "cafe", "Car": "car", "CrowdedIndoor": "crowdedindoor", "Elevator": "elevator",
          "Kitchen": "kitchen", "Park": "park", "ResidentialArea": "residentialarea", "Restaurant": "restaurant",
          "Restroom": "restroom", "Street": "street", "Subway": "subway", "SubwayStation": "subwaystation"}
OPTIONS = tuple(SCENES.values())
# MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:1209 (the "\n.Answer" is the source's)
PROMPT = ("Identify the acoustic scene in the audio.\nOptions:\n(A) bus\n(B) cafe\n(C) car\n(D) crowdedindoor\n"
          "(E) elevator\n(F) kitchen\n(G) park\n(H) residentialarea\n(I) restaurant\n(J) restroom\n(K) street\n"
          "(L) subway\n(M) subwaystation\n.Answer with the option's letter from the given choices directly and only "
          "give the best option.")
# xiaomi-research/dasheng-lm@2e3f2b0 evaluate/prompt.csv:11 (MiDashengLM's, scored by label_in_answer; MiDashengLM
# is no family of author_prompts: ask it with --metadata '{"prompt": "..."}')
MIDASHENGLM_PROMPT = "what's the environmental sound heard?"
AUTHORS_PROMPTS = {
    # MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/qwen_audio.py:42-43 (its Qwen2-Audio-7B base model, an
    # AudioEvent set)
    QWEN2_AUDIO: Published(f"Listen to the given audio carefully and answer this question: {PROMPT} Your answer is:",
                             "MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/qwen_audio.py:42-43"),
    # xiaomi-research/dasheng-lm@2e3f2b0 evaluate/prompt.csv:11 (the prompts MiDashengLM's report asked
    # Qwen2.5-Omni; Kimi-Audio-Evalkit's Qwen2.5-Omni prompt is its AudioEvent template, qwen_omni.py:45-46)
    QWEN2_5_OMNI: Published("Classify the single-label sound with keywords in English.",
                              "xiaomi-research/dasheng-lm@2e3f2b0 evaluate/prompt.csv:11",
                              "with the system prompt 'You are a single-label sound classification model.' "
                              "(system_prompt= in --model_args); label_in_answer is that evaluation's reading"),
    # MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/kimi_audio.py:31-32: the question as is
    KIMI_AUDIO: Published(PROMPT, "MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/kimi_audio.py:31-32"),
}

# What the results say of the metrics (lm_eval_audio_data.scoring_rules): acc is not the judged number the cards quote
SCORING_RULES = class_reading.UNJUDGED_OPTION + (
    " exact_match: Qwen-Audio's evaluate_scene.py rule (labels taken to be the scene folders' names, unconfirmed); "
    "label_in_answer: MiDashengLM's compute_at_acc.py rule (same labels); both near 0 under the default lettered "
    "question")


def _split_folder(root: Path, split: str) -> Path:
    for folder in (root / "CochlScene" / SPLITS[split], root / SPLITS[split]):
        if folder.is_dir():
            return folder
    raise speech_sets.SpeechDataError(f"CochlScene {split}: {root} holds no CochlScene/{SPLITS[split]}/: not the "
                                      "layout of Zenodo's archive. " + SPEC.help(root))


def load_docs(split: str, metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = f"CochlScene {split}" + (" sample" if sample else "")
    root = resolve(SPEC, metadata, sample).root
    folder = _split_folder(root, split)
    clips = sorted(folder.rglob("*.wav"))
    # The set is its folders: a clip's path is its label, so the record names (and digests) every clip read
    speech_sets.record(notes, label, root, None, clips)
    default = author_prompts.instruction(notes, label, metadata, AUTHORS_PROMPTS, "CochlScene", PROMPT)
    instruction = speech_sets.asked(notes, label, metadata, default)
    notes.note("scoring_rules", label, SCORING_RULES)
    docs, invalid = [], LeftOut(label, "clip", notes)
    for index, clip in enumerate(clips):
        uniq_id = clip.relative_to(folder).as_posix()
        scene = clip.parent.name
        if clip.parent.parent != folder or scene not in SCENES:
            invalid.add(index, uniq_id, f"its folder {scene!r} is none of CochlScene's scenes ({', '.join(SCENES)}) "
                        f"directly under {folder}")
            continue
        docs.append(speech_sets.document(
            len(docs), uniq_id, scene, "", instruction, audio_path=str(clip),
            audio_problem=speech_sets.clip_problem(clip), option=SCENES[scene], split=SPLITS[split]))
    invalid.warn(folder)
    return speech_sets.checked(docs, label, notes, missing_are="scored wrong")
