"""Seed-TTS-eval's test sets in their official layout (BytedanceSpeech/seed-tts-eval@95003fe README.md: the
``seedtts_testset`` folder its Google Drive archive unpacks to).

Each language folder holds a list and the prompt speakers' clips: ``en/meta.lst`` (test-en, 1,088 lines as
published), ``zh/meta.lst`` (test-zh, 2,020) and ``zh/hardcase.lst`` (test-hard, 400), one utterance a line,
``utt|prompt_text|prompt_wav|text`` (a fifth field, the ground-truth speech, where it exists), ``prompt_wav``
relative to the list's folder (``prompt-wavs/<id>.wav``). The README's own words: "filename | the text of the
prompt | the audio of the prompt | the text to be synthesized | the ground-truth counterpart (if it exists)".

With no local folder set, the tasks read the Hub mirror ``zhaochenyang20/seed-tts-eval`` (the same folders at its
root, as its subset ``linyueqian/seed-tts-eval-subset`` documents it): the list a run needs, then the prompt clips
of the utterances it evaluates. ``SEEDTTS_DATA_DIR`` (or ``seedtts_data_dir`` in ``--metadata``) names a local
``seedtts_testset`` folder instead.
"""

from __future__ import annotations

import logging
from pathlib import Path

from lm_eval_audio.benchmarks.choice_layout import LayoutDataError, LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import ADVICE, DataSpec, listed_source
from lm_eval_audio.benchmarks.hub_data import DataSource
from lm_eval_audio.storage.data_paths import leaves_folder

log = logging.getLogger("lm_eval.audio.seedtts")

# set -> (its list, the language its text is in)
SETS = {"test-en": ("en/meta.lst", "en"), "test-zh": ("zh/meta.lst", "zh"), "test-hard": ("zh/hardcase.lst", "zh")}


class SeedTTSDataError(LayoutDataError):
    """Seed-TTS-eval data that cannot be used; the message names the file and the fix."""


DATA = DataSpec(
    "Seed-TTS-eval", "SEEDTTS_DATA_DIR", "seedtts_data_dir", hub="zhaochenyang20/seed-tts-eval",
    sample=Path(__file__).resolve().parent / "sample_data",
    holds="en/meta.lst, zh/meta.lst and zh/hardcase.lst beside each folder's prompt-wavs/",
    local_dir="/data/seedtts_testset", error=SeedTTSDataError,
    advice=ADVICE.replace("fetch it from the Hub", "fetch what they need from the Hub"))


def data_source(test_set: str, metadata: dict, sample: bool) -> DataSource:
    """The bundled sample, the local folder, or the Hub snapshot with the set's list fetched (the prompt clips come
    when the run's documents are known)."""
    return listed_source(DATA, metadata, sample, SETS[test_set][0], "seedtts")


def _fields(line: str) -> tuple[str, str, str, str] | str:
    """(utt, prompt_text, prompt_wav, text), or why the line cannot be read."""
    parts = line.split("|")
    if len(parts) not in (4, 5):
        return f"has {len(parts)} '|'-separated fields, not 4 (utt|prompt_text|prompt_wav|text) or 5"
    utt, prompt_text, prompt_wav, text = parts[:4]
    if not utt or not prompt_wav or not text.strip():
        return "lacks its name, its prompt clip or its text"
    if leaves_folder(prompt_wav):
        return f"prompt_wav {prompt_wav!r} leads outside the set's folder: refused"
    return utt, prompt_text, prompt_wav, text


def load_docs(test_set: str, metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    """The utterances of ``test_set``; what cannot be used, on ``notes``."""
    from lm_eval_audio.tasks.seedtts.scoring import normalized

    listed, language = SETS[test_set]
    source = data_source(test_set, metadata, sample)
    notes.note("sources", f"Seed-TTS-eval {test_set}" + (" sample" if sample else ""), source.record())
    path = source.root / listed
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise SeedTTSDataError(f"{path} cannot be read ({type(e).__name__}: {e}); download it again") from None
    label = f"Seed-TTS-eval {test_set}"
    docs, invalid, no_audio = [], LeftOut(label, "line", notes), 0
    for number, line in enumerate(lines, start=1):
        line = line.strip()
        if not line:
            continue
        fields = _fields(line)
        if isinstance(fields, str):
            invalid.add(number, None, fields)
            continue
        utt, prompt_text, prompt_wav, text = fields
        if not normalized(text, language).strip():
            invalid.add(number, utt, "has no word left once Seed-TTS-eval's punctuation is stripped")
            continue
        audio = path.parent / prompt_wav
        problem = source.problem(audio, notes)
        if problem:
            no_audio += 1
            notes.note("unusable_audio", f"{label}/{utt}", problem)
            log.warning("%s: %s: %s; the model is not asked, it is counted in audio_missing", label, utt, problem)
        docs.append({"doc_id": len(docs), "uniq_id": utt, "set": test_set, "language": language,
                     "prompt_text": prompt_text, "text": text, "audio": [str(audio)], "audio_problem": problem})
    invalid.warn(path)
    if not docs:
        raise SeedTTSDataError(f"{label}: {path} lists no usable utterance; use the complete official list")
    log.info("%s: %d utterance(s) from %s%s", label, len(docs), path,
             f"; {no_audio} with a missing or empty prompt clip" if no_audio else "")
    return docs
