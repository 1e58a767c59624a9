"""GTZAN as UltraEval-Audio evaluates it, the only published GTZAN evaluation found: the Hub copy
``TwinkStart/GTZAN``, split ``test``, its reference column ``label`` (OpenBMB/UltraEval-Audio@9b69da6
registry/dataset/GTZAN.yaml:1-7), read with ``datasets.load_dataset(path=name, split="test", trust_remote_code=True)``
(audio_evals/dataset/huggingface.py:38-50, the function ``load_audio_hf_dataset``).

Confirmed (from UltraEval-Audio's code): the repository id, the split, the column name. Assumed (the Hub is not
reachable here and neither the copy's card nor its file list was found in any index): the files, taken to be
``data/test-*.parquet`` as ``push_to_hub`` writes a ``test`` split (as the same uploader's ``TwinkStart/AudioCaps``
card at 7405ddc says of its own files, and ``TwinkStart/VSC``'s card at 7d811bd); the clip column ``audio`` (an
``Audio`` cell, as on those cards); ``label``'s type, taken to be the genre's name as a string (``TwinkStart/VSC``'s
``label`` is a string; UltraEval-Audio's reading compares ``str(label)`` with the answer and its question asks for
a name, so a number there would leave nothing to match); the row count (GTZAN has 1,000 clips, one of them,
``jazz.00054``, undecodable in the common distribution).

``label`` is read, case-insensitively, as one of the ten genres. An integer ``label`` (a ``ClassLabel``) is read as
the genre the shard's own ``ClassLabel`` names give it (its ``huggingface`` schema metadata, as ``datasets`` writes
it), and said so (``label_from_class_names``: UltraEval-Audio would have compared the number itself); a shard with
integers and no such names is refused, naming it: which genre a number stands for cannot be known.
"""

from __future__ import annotations

import json
from pathlib import Path

from lm_eval_audio.audio import table_checks
from lm_eval_audio.benchmarks import speech_sets
from lm_eval_audio.benchmarks.choice_layout import LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec

SPEC = DataSpec(
    name="GTZAN", variable="GTZAN_DATA_DIR", metadata_key="gtzan_data_dir", hub="TwinkStart/GTZAN",
    holds="data/test-*.parquet (columns audio, label: the genre; file names assumed, see tasks/gtzan/README.md)",
    sample=Path(__file__).resolve().parent / "sample_data", error=speech_sets.SpeechDataError)
SHARDS = "data/test-*.parquet"
LABEL = "label"  # OpenBMB/UltraEval-Audio@9b69da6 registry/dataset/GTZAN.yaml:7 (ref_col)
GENRES = ("blues", "classical", "country", "disco", "hiphop", "jazz", "metal", "pop", "reggae", "rock")
# OpenBMB/UltraEval-Audio@9b69da6 registry/prompt/music.yaml:32 (prompt music_genre, lines 23-32: the clip, then this
# text, one user turn), the prompt of GTZAN's default task music_genre (registry/eval_task/music.yaml:19-26)
PROMPT = ("Listen to the provided music clip and identify the genre. the answer must be one of [blues,classical,"
          "country,disco,hiphop,jazz,metal,pop,reggae,rock], answer without explain")
SCORING_RULES = (
    "acc: UltraEval-Audio's prefix-match (OpenBMB/UltraEval-Audio@9b69da6 audio_evals/evaluator/base.py:60-79, "
    "GTZAN's eval task music_genre, registry/eval_task/music.yaml:19-26): right when the lower-cased, stripped "
    "answer begins with the lower-cased, stripped label; label_in_answer: MiDashengLM's single-target reading "
    "(xiaomi-research/dasheng-lm@2e3f2b0 evaluate/compute_at_acc.py:28-30), the label anywhere in the answer")


def class_names(path: Path, column: str) -> list | None:
    """The names of ``column``'s ``ClassLabel`` as ``datasets`` records them in the parquet file's schema metadata
    (``{"info": {"features": {column: {"names": [...], "_type": "ClassLabel"}}}}``), or None where it records none."""
    import pyarrow.parquet as pq

    try:
        meta = (pq.read_schema(path).metadata or {}).get(b"huggingface")
        feature = json.loads(meta)["info"]["features"][column] if meta else None
    except (ValueError, KeyError, TypeError):
        return None
    if isinstance(feature, dict) and feature.get("_type") == "ClassLabel" and isinstance(feature.get("names"), list):
        return feature["names"]
    return None


def _genre(value) -> str | None:
    return value.strip().lower() if isinstance(value, str) and value.strip().lower() in GENRES else None


def _labels(path: Path, rows: list[dict], label: str, notes: DataNotes) -> list:
    """Each row's ``label`` as the reference the reading compares: the string as the copy writes it, or an integer's
    ``ClassLabel`` name. An integer with no names to read it by stops the load, naming the file."""
    values = [row.get(LABEL) for row in rows]
    numbers = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    if not numbers:
        return values
    names = class_names(path, LABEL)
    if names is None:
        raise speech_sets.SpeechDataError(
            f"{path}: its {LABEL!r} column holds integers (e.g. {numbers[0]}) and the file names no ClassLabel order "
            f"for them (no 'huggingface' schema metadata with {LABEL!r}'s names): which genre each number stands for "
            f"cannot be known. Use a copy whose {LABEL!r} is the genre's name ({', '.join(GENRES)}), as "
            f"{SPEC.repo} is read by UltraEval-Audio, or one written by datasets with its ClassLabel")
    notes.note("label_from_class_names", label, f"{path.name}: {LABEL!r} holds integers, read as the genres its "
               f"ClassLabel names ({', '.join(map(str, names))}); UltraEval-Audio's reading would compare the "
               "number itself (str(label)), so its acc on this copy is not this one")
    return [names[v] if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(names) else v
            for v in values]


def load_docs(metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = "GTZAN test" + (" sample" if sample else "")
    shards = speech_sets.table_shards(SPEC, metadata, sample, SHARDS, label, notes)
    instruction = speech_sets.asked(notes, label, metadata, PROMPT)
    notes.note("scoring_rules", label, SCORING_RULES)
    docs, invalid, index = [], LeftOut(label, "row", notes), 0
    for path in shards:
        rows, clips = table_checks.parquet_rows(path, [LABEL], "audio", speech_sets.SpeechDataError, SPEC.repo)
        for audio_row, (reference, (_, problem)) in enumerate(zip(_labels(path, rows, label, notes), clips)):
            row_index, index = index, index + 1
            genre = _genre(reference)
            if genre is None:
                invalid.add(row_index, f"{path.name}/{audio_row}", f"{LABEL} {reference!r} is none of GTZAN's ten "
                            f"genres ({', '.join(GENRES)}, any case)")
                continue
            docs.append(speech_sets.document(
                len(docs), f"{path.name}/{audio_row}", reference, "", instruction, audio_table=str(path),
                audio_row=audio_row, audio_problem=problem or "", genre=genre))
    invalid.warn(label)
    return speech_sets.checked(docs, label, notes, missing_are="scored wrong")
