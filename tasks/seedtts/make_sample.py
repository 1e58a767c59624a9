"""Generate ``sample_data`` here: a SYNTHETIC stand-in for Seed-TTS-eval (run once; outputs are committed).

    apt-get install espeak-ng sox && .venv/bin/python tasks/seedtts/make_sample.py

Laid out exactly as Seed-TTS-eval's ``seedtts_testset`` (BytedanceSpeech/seed-tts-eval README.md): ``en/meta.lst``,
``zh/meta.lst`` and ``zh/hardcase.lst``, one utterance a line, ``utt|prompt_text|prompt_wav|text``, beside each
folder's ``prompt-wavs/<id>.wav`` (the prompt speaker saying ``prompt_text``, in espeak-ng's voices here). Names
follow the published ones' forms (Common Voice ids in English, DiDiSpeech-like ids in Chinese); one English line
carries the fifth field, a ground-truth clip, as some published lines do.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.testing.synthetic_audio import said_whole, write_audio, write_sample

EN = [  # (utt, prompt id, prompt text, text to say)
    ("common_voice_en_0001-common_voice_en_0002", "common_voice_en_0001", "The weather was fine that morning.",
     "Get the trust fund to the bank early."),
    ("common_voice_en_0003-common_voice_en_0004", "common_voice_en_0003", "She opened the window and smiled.",
     "Please call Stella, and ask her to bring these things."),
    ("common_voice_en_0005-common_voice_en_0006", "common_voice_en_0005", "We asked over twenty different people.",
     "It's a small world, isn't it?"),
]
ZH = [
    ("10002287-00000095", "10002287-00000094", "今天的天气非常好。", "我们明天一起去公园散步吧。"),
    ("10002288-00000011", "10002288-00000010", "他每天早上都去跑步。", "这本书的内容很有意思，值得一读。"),
]
HARD = [
    ("hard_0001", "10002287-00000094", "今天的天气非常好。", "四是四，十是十，十四是十四，四十是四十。"),
]


def _write(out: Path, language: str, listed: str, rows, voice: str, fifth: bool = False) -> int:
    folder = out / language
    lines = []
    for i, (utt, prompt, prompt_text, text) in enumerate(rows):
        wav = f"prompt-wavs/{prompt}.wav"
        if not (folder / wav).exists():
            write_audio(said_whole(prompt_text, voice), folder / wav)
        line = [utt, prompt_text, wav, text]
        if fifth and i == 0:  # the ground-truth counterpart, where the published list gives one
            write_audio(said_whole(text, voice), folder / "wavs" / f"{utt}.wav")
            line.append(f"wavs/{utt}.wav")
        lines.append("|".join(line))
    (folder / listed).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


def make(out: Path) -> int:
    return (_write(out, "en", "meta.lst", EN, "en", fifth=True) + _write(out, "zh", "meta.lst", ZH, "cmn")
            + _write(out, "zh", "hardcase.lst", HARD, "cmn"))


if __name__ == "__main__":
    write_sample("Seed-TTS-eval", Path(__file__).resolve().parent, make)
