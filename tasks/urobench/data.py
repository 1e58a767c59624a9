"""URO-Bench's test sets in their official layout (Ruiqi-Yan/URO-Bench@9e74bc04 README.md "Step 0"): the Hub dataset
``Honggao/URO-Bench`` holds one archive, ``URO-Bench-data.zip``, which unzips to ``URO-Bench-data/<basic|pro>/<subset>/
test.jsonl`` (scripts/example.sh:14: ``${uro_data_dir}/${level}/${dataset_name}/test.jsonl``). Each line is one item:
``source_wav`` (the question's clip, relative to the jsonl's folder: examples/example-test/inference_for_eval.py:59),
``source_text`` (what is said in it), ``target_text`` (the reference: a string, or a list the script joins with
" / "; where absent the reference is ``source_text``, inference_for_eval.py:60-75), and per subset ``style``
(GenStyle), ``emotion`` (UnderEmotion: the user's; GenEmotion: the one to answer with, one of emotion2vec's labels,
metrics/mark_emotion.py:98-118) or ``requirement`` (Multilingual: the language to answer in). A line of a dialogue
subset (MtBenchEval-en, SpeakerAware-en, -zh) is one dialogue: ``num_round`` and ``dialogue``, a list of rounds, each
with ``source_wav`` (relative to the jsonl's folder), ``source_text`` and ``target_text``
(examples/example-test/inference_multi.py:51-70, asr_for_eval.py:74-91, metrics/mark_gpt.py:682-707).

The archive is fetched whole (every subset is in it) and unzipped once into the cache. ``URO_BENCH_DATA_DIR`` (or
``urobench_data_dir`` in ``--metadata``) names a local ``URO-Bench-data`` folder instead.

``SUBSETS`` is scripts/config.sh:38-83 and evaluate.py:12-53: each subset's item count as published, its scoring
mode (mark.py's ``--mode``), track, language and category.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from lm_eval_audio.benchmarks.choice_layout import LayoutDataError, LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import ADVICE, DataSpec, resolve
from lm_eval_audio.benchmarks.hub_data import DataSource
from lm_eval_audio.storage import jsonl
from lm_eval_audio.storage.data_paths import leaves_folder

log = logging.getLogger("lm_eval.audio.urobench")

ARCHIVE, TOP = "URO-Bench-data.zip", "URO-Bench-data"


@dataclass(frozen=True)
class Subset:
    name: str  # as URO-Bench names its folder: "Repeat-zh"
    count: int  # items as published (config.sh)
    mode: str  # mark.py --mode: wer, open, semi-open, qa, gs, ue, sf, ml, srt, ge, multi, sa
    track: str  # basic | pro
    language: str  # en | zh (Multilingual is in pro en)
    category: str  # understanding | reasoning | oral (evaluate.py)

    @property
    def slug(self) -> str:
        return f"{self.track}_{self.name.lower().replace('-', '_')}"

    @property
    def task(self) -> str:
        return f"urobench_{self.slug}"


def _subsets(rows: str) -> dict[str, Subset]:
    out = {}
    for row in rows.strip().splitlines():
        name, count, mode, track, language, category = row.split()
        out[name] = Subset(name, int(count), mode, track, language, category)
    return out


SUBSETS = _subsets("""
Repeat 252 wer basic en understanding
Summary 118 semi-open basic en understanding
GaokaoEval 303 qa basic en understanding
StoralEval 201 semi-open basic en reasoning
TruthfulEval 470 semi-open basic en reasoning
Gsm8kEval 582 qa basic en reasoning
MLC 177 qa basic en reasoning
AlpacaEval 199 open basic en oral
CommonEval 200 open basic en oral
WildchatEval 349 open basic en oral
Repeat-zh 127 wer basic zh understanding
LCSTS-zh 119 semi-open basic zh understanding
HSK5-zh 100 qa basic zh understanding
SQuAD-zh 153 qa basic zh reasoning
APE-zh 190 qa basic zh reasoning
MLC-zh 145 qa basic zh reasoning
OpenbookQA-zh 189 qa basic zh reasoning
AlpacaEval-zh 147 open basic zh oral
Claude-zh 222 open basic zh oral
Wildchat-zh 299 open basic zh oral
UnderEmotion-en 137 ue pro en understanding
CodeSwitching-en 70 semi-open pro en understanding
Safety-en 25 sf pro en understanding
ClothoEval-en 265 qa pro en understanding
MuChoEval-en 311 qa pro en understanding
MLCpro-en 91 qa pro en reasoning
MtBenchEval-en 190 multi pro en reasoning
SpeakerAware-en 55 sa pro en reasoning
SRT-en 43 srt pro en oral
GenEmotion-en 54 ge pro en oral
GenStyle-en 44 gs pro en oral
Multilingual 1108 ml pro en oral
UnderEmotion-zh 79 ue pro zh understanding
CodeSwitching-zh 70 semi-open pro zh understanding
Safety-zh 25 sf pro zh understanding
MLCpro-zh 64 qa pro zh reasoning
SpeakerAware-zh 49 sa pro zh reasoning
SRT-zh 25 srt pro zh oral
GenEmotion-zh 43 ge pro zh oral
GenStyle-zh 39 gs pro zh oral
""")

# Fields a subset's scoring reads beside the question and the reference (mark_gpt.py reads them from test.jsonl)
EXTRA_FIELD = {"gs": "style", "ue": "emotion", "ml": "requirement"}
# The dialogue modes and the numbers of rounds their judge prompts take (mark_gpt.py get_prompt: prompt_multi2..5,
# and prompt_sa's three rounds); a dialogue of another length gets no prompt there (the call fails, the item scores 0)
# and is refused here, counted among the file's unusable lines.
DIALOGUE_ROUNDS = {"multi": (2, 3, 4, 5), "sa": (3,)}


class UROBenchDataError(LayoutDataError):
    """URO-Bench data that cannot be used; the message names the file and the fix."""


DATA = DataSpec(
    "URO-Bench", "URO_BENCH_DATA_DIR", "urobench_data_dir", hub="Honggao/URO-Bench",
    sample=Path(__file__).resolve().parent / "sample_data",  # laid out as URO-Bench-data/
    holds="basic/<subset>/test.jsonl and pro/<subset>/test.jsonl beside each subset's clips",
    local_dir="/data/URO-Bench-data", error=UROBenchDataError,
    advice=ADVICE.replace("`huggingface-cli download {repo} --repo-type dataset --local-dir {local_dir}`",
                          f"`huggingface-cli download {{repo}} {ARCHIVE} --repo-type dataset --local-dir /data` and "
                          f"`unzip /data/{ARCHIVE} -d /data`"))


def subset_of_task(task: str) -> Subset | None:
    """The subset a task (``urobench_<track>_<subset>`` or ``urobench_sample_<track>_<subset>``) evaluates; None for
    a group."""
    slug = task.removeprefix("urobench_").removeprefix("sample_")
    return next((s for s in SUBSETS.values() if s.slug == slug), None)


def data_source(metadata: dict, sample: bool) -> DataSource:
    """The bundled sample, the local ``URO-Bench-data`` folder, or the Hub archive fetched and unzipped once."""
    source = resolve(DATA, metadata, sample)
    snapshot = source.snapshot
    if snapshot is None:
        return source
    if ARCHIVE not in snapshot.files:
        raise UROBenchDataError(f"{snapshot.label} lists no {ARCHIVE}: not the layout this plugin reads. "
                                + DATA.help())
    folder = snapshot.unpacked(ARCHIVE, [], TOP, "urobench") / TOP
    return DataSource(folder, snapshot, (ARCHIVE,))


def _reference(item: dict) -> str:
    """inference_for_eval.py:64-75: ``target_text`` (a list joined with " / "), else ``source_text``."""
    target = item.get("target_text", item["source_text"])
    return " / ".join(str(t) for t in target) if isinstance(target, list) else str(target)


def _problem(item, subset: Subset) -> str | None:
    from lm_eval_audio.model_wrappers.emotion2vec import LABELS

    if not isinstance(item, dict):
        return "is not a JSON object"
    need = ["source_wav", "source_text"] + ([EXTRA_FIELD[subset.mode]] if subset.mode in EXTRA_FIELD else [])
    need += ["emotion"] if subset.mode == "ge" else []
    missing = [k for k in need if item.get(k) in (None, "")]
    if missing:
        return f"lacks {', '.join(missing)}"
    if subset.mode == "ge" and str(item["emotion"]).strip().lower() not in LABELS:
        # mark_emotion.py:98-118 indexes emotion2vec's scores by it: any other value stops the script
        return f"emotion {item['emotion']!r} is none of emotion2vec's labels ({', '.join(LABELS)})"
    if leaves_folder(str(item["source_wav"])):
        return f"source_wav {item['source_wav']!r} leads outside the subset's folder: refused"
    return None


def _dialogue_problem(item, subset: Subset) -> str | None:
    if not isinstance(item, dict):
        return "is not a JSON object"
    rounds = item.get("dialogue")
    if not isinstance(rounds, list) or not rounds:
        return "lacks dialogue (a list of rounds)"
    if item.get("num_round") != len(rounds):  # asr_for_eval.py:79 and mark_gpt.py:695 count rounds by num_round
        return f"num_round {item.get('num_round')!r} is not the {len(rounds)} round(s) of its dialogue"
    if len(rounds) not in DIALOGUE_ROUNDS[subset.mode]:
        return (f"has {len(rounds)} round(s), and mark_gpt.py's {subset.mode} prompts take "
                f"{' or '.join(map(str, DIALOGUE_ROUNDS[subset.mode]))}")
    for k, turn in enumerate(rounds, 1):
        if not isinstance(turn, dict):
            return f"round {k} is not a JSON object"
        missing = [f for f in ("source_wav", "source_text", "target_text") if turn.get(f) in (None, "")]
        if missing:
            return f"round {k} lacks {', '.join(missing)}"
        if not isinstance(turn["target_text"], str):  # mark_gpt.py fills the prompt with str.replace
            return f"round {k}'s target_text is not a string"
        if leaves_folder(str(turn["source_wav"])):
            return f"round {k}'s source_wav {turn['source_wav']!r} leads outside the subset's folder: refused"
    return None


def _dialogue_doc(item: dict, number: int, subset: Subset, folder: Path, source, notes: DataNotes, label: str):
    """A dialogue's document: its rounds' texts (``turns``) and clips (``audio``, one per round, in order)."""
    clips = [folder / str(turn["source_wav"]) for turn in item["dialogue"]]
    problems = [f"round {k}: {why}" for k, why in enumerate((source.problem(c, notes) for c in clips), 1) if why]
    if problems:
        notes.note("unusable_audio", f"{label}/line {number}", problems[0])
        log.warning("%s: line %d: %s; the model is not asked, the dialogue is counted in audio_missing and its rounds "
                    "are judged as unanswered, as URO-Bench's asr_for_eval.py writes a round with no clip", label,
                    number, problems[0])
    turns = [{"question": str(t["source_text"]), "reference": str(t["target_text"])} for t in item["dialogue"]]
    return {"uniq_id": f"{subset.name}/{number - 1:04d}", "subset": subset.name, "language": subset.language,
            "question": turns[0]["question"], "reference": turns[-1]["reference"], "turns": turns,
            "audio": [str(c) for c in clips], "audio_problem": problems[0] if problems else None}


def load_docs(subset: Subset, metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    """The items of ``subset``, in the file's order (the script's ``NNNN`` numbering); what cannot be used, on
    ``notes``."""
    source = data_source(metadata, sample)
    path = source.root / subset.track / subset.name / "test.jsonl"
    label = f"URO-Bench {subset.name}" + (" sample" if sample else "")
    if not path.is_file():
        raise UROBenchDataError(f"{label}: {path} does not exist. " + DATA.help())
    notes.note("sources", label, (source.reading([path]) if source.snapshot is None else source).record())
    docs, invalid, no_audio = [], LeftOut(label, "line", notes), 0
    dialogue = subset.mode in DIALOGUE_ROUNDS
    for number, item in jsonl.records(str(path), UROBenchDataError, "; download it again"):
        bad = (_dialogue_problem if dialogue else _problem)(item, subset)
        if bad:
            invalid.add(number, item.get("key") if isinstance(item, dict) else None, bad)
            continue
        if dialogue:
            doc = _dialogue_doc(item, number, subset, path.parent, source, notes, label)
            no_audio += bool(doc["audio_problem"])
            docs.append({"doc_id": len(docs), **doc})
            continue
        audio = path.parent / str(item["source_wav"])
        problem = source.problem(audio, notes)
        if problem:
            no_audio += 1
            notes.note("unusable_audio", f"{label}/line {number}", problem)
            log.warning("%s: line %d: %s; the model is not asked, the item is counted in audio_missing and scores 0, "
                        "as URO-Bench scores an answer that is not there", label, number, problem)
        doc = {"doc_id": len(docs), "uniq_id": f"{subset.name}/{number - 1:04d}", "subset": subset.name,
               "language": subset.language, "question": str(item["source_text"]), "reference": _reference(item),
               "audio": [str(audio)], "audio_problem": problem}
        if subset.mode in EXTRA_FIELD:
            doc[EXTRA_FIELD[subset.mode]] = str(item[EXTRA_FIELD[subset.mode]])
        if subset.mode == "ge":  # the emotion the answer is to be said with (the emotion metric's target)
            doc["target_emotion"] = str(item["emotion"]).strip().lower()
        docs.append(doc)
    invalid.warn(path)
    if not docs:
        raise UROBenchDataError(f"{label}: {path} lists no usable item; use the complete official file")
    log.info("%s: %d item(s) from %s%s", label, len(docs), path,
             f"; {no_audio} with a missing or empty clip" if no_audio else "")
    return docs
