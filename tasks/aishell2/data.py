"""AISHELL-2's iOS test set, read from a local copy in the layout of AISHELL's own TEST&DEV release, as
Kimi-Audio-Evalkit reads it (MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:475-553, the evaluation
behind Kimi-Audio's AISHELL-2 number): ``TEST&DEV DATA.zip`` unzipped, then ``AISHELL-DEV-TEST-SET/iOS/test.tar.gz``
extracted beside it, so that ``AISHELL-DEV-TEST-SET/iOS/test/`` holds ``wav.scp`` (``<utterance>\\t<path>``, the path
relative to that folder), ``trans.txt`` (``<utterance>\\t<transcript>``) and the clips. Every ``trans.txt`` line is
an item (the evalkit reads them in that order, finding each clip through ``wav.scp``). 5,000 utterances from 10
speakers (AISHELL2-2018A-EVAL's test set, on each of the three devices: kaldi-asr/kaldi@5ef3962
egs/aishell2/README.md:15-19; not counted here).

AISHELL-2 is not on the Hugging Face Hub, so the tasks cannot fetch it. Its training corpus is given on application
(kaldi's README:44-55); the TEST&DEV release is downloaded from AISHELL's evaluation page,
http://www.aishelltech.com/aishell_eval (README:21), and Kimi-Audio-Evalkit fetches it from
https://aishell-eval.oss-cn-beijing.aliyuncs.com/TEST&DEV%20DATA.zip (download_benchmark.py:495).
``AISHELL2_DATA_DIR`` (or ``--metadata '{"aishell2_data_dir": ...}'``) names the folder holding
``AISHELL-DEV-TEST-SET``.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.benchmarks import speech_sets
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.model_wrappers.author_prompts import Published
from lm_eval_audio.benchmarks.choice_layout import LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec
from lm_eval_audio.model_wrappers.family_adapters.not_run import KIMI_AUDIO

TEST = "AISHELL-DEV-TEST-SET/iOS/test"
# kaldi-asr/kaldi@5ef3962 egs/aishell2/README.md:21; MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:495
ADVICE = ("Download AISHELL-2's TEST&DEV release from http://www.aishelltech.com/aishell_eval (Kimi-Audio-Evalkit "
          "fetches https://aishell-eval.oss-cn-beijing.aliyuncs.com/TEST&DEV%20DATA.zip), "
          "unzip it and extract AISHELL-DEV-TEST-SET/iOS/test.tar.gz in place, then `export "
          "{variable}=<the folder holding AISHELL-DEV-TEST-SET>` or pass --metadata '{{\"{metadata_key}\": \"...\"}}'. "
          "The folder must hold {holds}. To try the tasks without the data, run the synthetic `{sample_group}` group.")
SPEC = DataSpec(
    name="AISHELL-2", variable="AISHELL2_DATA_DIR", metadata_key="aishell2_data_dir", hub=None,
    holds=f"{TEST}/wav.scp, {TEST}/trans.txt and the clips wav.scp names", advice=ADVICE,
    sample=Path(__file__).resolve().parent / "sample_data", error=speech_sets.SpeechDataError)
# MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:541: AISHELL-2's question
PROMPT = "请把这段语音转录成文本。"
AUTHORS_PROMPTS = {
    **author_prompts.speech_recognition("zh", "Chinese"),
    KIMI_AUDIO: Published(PROMPT, "MoonshotAI/Kimi-Audio-Evalkit@4080c49 data/download_benchmark.py:541"),
}


def _pairs(path: Path) -> list[tuple[int, str, str]]:
    """(line number, key, value) of a Kaldi-style ``<key>\\t<value>`` file; a line without a tab is refused, as the
    evalkit's ``split('\\t')`` fails on it."""
    if not path.is_file():
        raise speech_sets.SpeechDataError(f"AISHELL-2: {path} does not exist: not the TEST&DEV release's layout. "
                                          + SPEC.help(path.parent))
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        key, tab, value = line.strip().partition("\t")
        if not tab:
            raise speech_sets.SpeechDataError(f"AISHELL-2: {path}:{number} is not '<utterance>\\t<value>' "
                                              f"({line[:60]!r}): extract the release again")
        out.append((number, key, value))
    return out


def load_docs(metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = "AISHELL-2 iOS test" + (" sample" if sample else "")
    root, _ = speech_sets.source(SPEC, metadata, sample)
    folder = root / TEST
    clips = {key: value for _, key, value in _pairs(folder / "wav.scp")}
    lines = _pairs(folder / "trans.txt")
    speech_sets.record(notes, label, root, None, [folder / "wav.scp", folder / "trans.txt"])
    scoring = speech_sets.chinese_cer(metadata)
    default = author_prompts.instruction(notes, label, metadata, AUTHORS_PROMPTS, "AISHELL-2", PROMPT)
    instruction = speech_sets.asked(notes, label, metadata, default, scoring)
    docs, invalid = [], LeftOut(label, "line", notes)
    for index, (number, key, text) in enumerate(lines):
        if not text.strip():
            invalid.add(index, key, f"trans.txt:{number} has no transcript")
            continue
        if key not in clips:
            invalid.add(index, key, f"wav.scp names no clip for it (trans.txt:{number})")
            continue
        path = folder / clips[key]
        docs.append(speech_sets.document(len(docs), key, text, scoring, instruction, audio_path=str(path),
                                         audio_problem=speech_sets.clip_problem(path), language="zh"))
    invalid.warn(label)
    return speech_sets.checked(docs, label, notes)
