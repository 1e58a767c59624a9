"""NSynth's test set in its official release layout (magenta.tensorflow.org/datasets/nsynth, the files Qwen-Audio's
``eval_audio/EVALUATION.md`` "MNA" section and MiDashengLM's ``evaluate/jsonl/MiDashengLM_NSynth.jsonl`` name):
``nsynth-test/examples.json`` (note name -> its attributes: ``instrument_family_str``, one of eleven families, and
``instrument_source_str``: acoustic, electronic, synthetic) beside ``nsynth-test/audio/<note name>.wav``. 4,096
notes (the release's test split; MiDashengLM's NSynth jsonl has 4,096 lines).

No evaluation these numbers come from reads a Hub copy (MiDashengLM's and Qwen-Audio's read the release's files,
Audio Flamingo 3's its own JSON; UltraEval-Audio reads ``TwinkStart/Nsynth``, but no card quoting it was found), and
no Hub copy in this layout was found: the tasks read a local copy (``NSYNTH_DATA_DIR`` or ``--metadata
'{"nsynth_data_dir": ...}'``) of the unpacked ``nsynth-test.jsonwav.tar.gz``.
"""

from __future__ import annotations

import json
from pathlib import Path

from lm_eval_audio.benchmarks import speech_sets
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.model_wrappers.author_prompts import Published
from lm_eval_audio.benchmarks.choice_layout import LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec
from lm_eval_audio.model_wrappers.family_adapters.not_run import KIMI_AUDIO
from lm_eval_audio.model_wrappers.family_adapters.qwen2_5_omni import QWEN2_5_OMNI

DOWNLOAD = ("NSynth is not on the Hub in its release layout: download nsynth-test.jsonwav.tar.gz from "
            "http://download.magenta.tensorflow.org/datasets/nsynth/nsynth-test.jsonwav.tar.gz and unpack it into "
            "{local_dir} (it makes nsynth-test/).")
SPEC = DataSpec(
    name="NSynth", variable="NSYNTH_DATA_DIR", metadata_key="nsynth_data_dir", hub=None,
    holds="nsynth-test/examples.json and nsynth-test/audio/<note>.wav",
    sample=Path(__file__).resolve().parent / "sample_data", error=speech_sets.SpeechDataError,
    advice=DOWNLOAD + " Then `export {variable}={local_dir}` or pass --metadata '{{\"{metadata_key}\": "
    "\"{local_dir}\"}}'. The folder must hold {holds}. To try the tasks without the data, run the synthetic "
    "`{sample_group}` group.", local_dir="/data/nsynth")
FAMILIES = ("bass", "brass", "flute", "guitar", "keyboard", "mallet", "organ", "reed", "string", "synth_lead",
            "vocal")
SOURCES = ("acoustic", "electronic", "synthetic")
FIELDS = {"instrument": "instrument_family_str", "source": "instrument_source_str"}
CLASSES = {"instrument": FAMILIES, "source": SOURCES}
MIDASHENGLM_CSV = "xiaomi-research/dasheng-lm@2e3f2b0 evaluate/prompt.csv:13"
PROMPTS = {
    # MIDASHENGLM_CSV, MiDashengLM's column: the question behind its card's NSynth accuracy
    "instrument": "What's the music instrument?",
    # No evaluation publishes an instrument-source question (Audio Flamingo 3 reports NSynth-Source; its test JSON,
    # holding the question, is not published): this folder's own, worded after the instrument question.
    "source": "What's the source of the music instrument: acoustic, electronic or synthetic?",
}
# The prompts MiDashengLM's evaluation asked the models its card compares (--model_args ...,prompts=authors): the
# numbers its table gives them come from these.
AUTHORS_PROMPTS = {"instrument": {
    QWEN2_5_OMNI: Published("Recognize the music instrument with keywords in English.", MIDASHENGLM_CSV,
                              "as MiDashengLM's evaluation asked Qwen2.5-Omni, with the system prompt 'You are a "
                              "music instrument classification model.' (system_prompt= in --model_args)"),
    # The csv cell ends so ("noth"): cut in the source, reproduced as it is
    KIMI_AUDIO: Published("Classify the music instrument with a keyword in English. Output only one label and noth",
                            MIDASHENGLM_CSV, "as MiDashengLM's evaluation asked Kimi-Audio-Instruct; the text is cut "
                            "short in the source"),
}}


def examples(path: Path) -> dict:
    try:
        table = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise speech_sets.SpeechDataError(f"{path} does not exist: not NSynth's release layout. "
                                          + SPEC.help(path.parent.parent)) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise speech_sets.SpeechDataError(f"{path} is not JSON ({e}): unpack nsynth-test.jsonwav.tar.gz again") from None
    if not isinstance(table, dict):
        raise speech_sets.SpeechDataError(f"{path} is not NSynth's examples.json (a JSON object of notes): unpack "
                                          "nsynth-test.jsonwav.tar.gz again")
    return table


def load_docs(target: str, metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    """The test notes, each asked its ``target`` (``instrument``: the family; ``source``)."""
    label = f"NSynth {target}" + (" sample" if sample else "")
    root, _ = speech_sets.source(SPEC, metadata, sample)
    folder = root / "nsynth-test"
    table = examples(folder / "examples.json")
    speech_sets.record(notes, label, root, None, [folder / "examples.json"])
    default = author_prompts.instruction(notes, label, metadata, AUTHORS_PROMPTS.get(target, {}), "NSynth",
                                         PROMPTS[target])
    instruction = speech_sets.asked(notes, label, metadata, default)
    if target == "source" and instruction == PROMPTS["source"]:
        notes.note("unpublished_prompt", label, "no evaluation publishes an NSynth instrument-source question: this "
                   "folder's own (tasks/nsynth/data.py PROMPTS)")
    docs, invalid = [], LeftOut(label, "note", notes)
    for index, (name, note) in enumerate(table.items()):
        value = note.get(FIELDS[target]) if isinstance(note, dict) else None
        if value not in CLASSES[target]:
            invalid.add(index, name, f"{FIELDS[target]} {value!r} is none of NSynth's ({', '.join(CLASSES[target])})")
            continue
        audio = folder / "audio" / f"{name}.wav"
        docs.append(speech_sets.document(
            len(docs), name, value, "", instruction, audio_path=str(audio),
            audio_problem=speech_sets.clip_problem(audio) or "",
            family=note.get("instrument_family_str"), source=note.get("instrument_source_str")))
    invalid.warn(folder / "examples.json")
    return speech_sets.checked(docs, label, notes, missing_are="scored wrong")
