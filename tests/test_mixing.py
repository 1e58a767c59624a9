"""``lm-eval-audio mix``: the loudness difference checked with an independent meter
(pyloudnorm), the offset to the sample, no clipping, determinism, batch mode, errors."""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter

import numpy as np
import pyloudnorm
import pytest
import soundfile as sf

from conftest import run_cli, run_readme_block, tone


@pytest.fixture(scope="module")
def speech_and_tone(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mix")
    speech = folder / "speech.wav"  # espeak-ng: 22050 Hz
    speech.write_bytes(subprocess.run(["espeak-ng", "-v", "en-us", "--stdout", "The cat sat on the mat."],
                                      capture_output=True, check=True).stdout)
    hum = folder / "hum.flac"
    sf.write(hum, 0.05 * tone(2.5, freq=220, sr=16000, seed=3), 16000)
    return folder, speech, hum


def _gained(path, rate, gain_db):
    from lm_eval_audio.audio import decoding

    return decoding.load(str(path), rate).astype(np.float64) * 10 ** (gain_db / 20)


@pytest.mark.parametrize("relative_lu,offset", [(6.0, 0.75), (-12.0, -0.3), (0.0, 0.0), (20.0, 1.2), (-0.8, 0.1)])
def test_loudness_difference_offset_and_peak(speech_and_tone, tmp_path, relative_lu, offset):
    folder, speech, hum = speech_and_tone
    out = tmp_path / "mix.wav"
    proc = run_cli(["lm-eval-audio", "mix", str(speech), str(hum), "--relative_lu", str(relative_lu),
                    "--offset", str(offset), "--output", str(out), "--a_meta", '{"text": "The cat sat on the mat."}',
                    "--b_meta", "a low hum"])
    assert proc.returncode == 0, proc.stderr
    meta = json.loads(out.with_suffix(".json").read_text())
    mixed, rate = sf.read(out, dtype="float64")
    assert rate == 22050 == meta["sampling_rate"]
    a, b = meta["clips"]["a"], meta["clips"]["b"]
    assert a["meta"] == {"text": "The cat sat on the mat."} and b["meta"] == "a low hum"
    # The sources as they sit in the mix, measured by a meter that is not the one mix used.
    a_in = _gained(speech, rate, a["total_gain_db"])
    b_in = _gained(hum, rate, b["total_gain_db"])
    meter = pyloudnorm.Meter(rate)
    achieved = meter.integrated_loudness(b_in) - meter.integrated_loudness(a_in)
    assert achieved == pytest.approx(relative_lu, abs=0.5)
    # The offset, to the sample: the file is exactly A at its start plus B at its start.
    shift = round(offset * rate)
    assert meta["offset_samples"] == shift and a["start_sample"] == max(0, -shift) and b["start_sample"] == max(0, shift)
    expected = np.zeros(max(a["start_sample"] + len(a_in), b["start_sample"] + len(b_in)))
    expected[a["start_sample"]: a["start_sample"] + len(a_in)] += a_in
    expected[b["start_sample"]: b["start_sample"] + len(b_in)] += b_in
    assert len(mixed) == len(expected)
    np.testing.assert_allclose(mixed, expected, atol=1.5 / 32768)  # 16-bit rounding
    # Nothing clips; a needed peak normalization is recorded and keeps the difference.
    assert np.abs(mixed).max() <= meta["peak_normalization"]["ceiling"] + 1 / 32768
    assert meta["peak_normalization"]["applied"] == (meta["peak_normalization"]["peak_before"] > 0.98)
    assert meta["louder"] == ("b" if relative_lu > 1 else "a" if relative_lu < -1 else "equal")
    assert meta["first"] == ("a" if offset > 0 else "b" if offset < 0 else "together")
    if relative_lu == 20.0:
        assert meta["peak_normalization"]["applied"] and meta["peak_normalization"]["gain_db"] < 0


def test_batch_from_csv_is_deterministic_with_a_seed(speech_and_tone, tmp_path):
    folder, speech, hum = speech_and_tone
    pairs = folder / "pairs.csv"
    pairs.write_text("a,b,relative_lu,offset,output,a_meta\n"
                     f"{speech.name},{hum.name},3,0.5,first.wav,\"{{\"\"id\"\": 1}}\"\n"
                     f"{hum.name},{speech.name},,,,\n")
    runs = []
    for name in ("one", "two"):
        proc = run_cli(["lm-eval-audio", "mix", "--pairs", str(pairs), "--output_dir", str(tmp_path / name),
                        "--seed", "7"])
        assert proc.returncode == 0, proc.stderr
        assert "2 mixes written" in proc.stdout
        runs.append([json.loads(line) for line in (tmp_path / name / "mixes.jsonl").read_text().splitlines()])
    one, two = runs
    assert one[0]["relative_lu"] == 3.0 and one[0]["clips"]["a"]["meta"] == {"id": 1}
    assert -10 <= one[1]["relative_lu"] <= 10 and -2 <= one[1]["offset_seconds"] <= 2  # drawn
    assert [(m["relative_lu"], m["offset_samples"]) for m in one] == [(m["relative_lu"], m["offset_samples"]) for m in two]
    assert (tmp_path / "one" / "first.wav").read_bytes() == (tmp_path / "two" / "first.wav").read_bytes()
    assert (tmp_path / "one" / "mix_00001.wav").read_bytes() == (tmp_path / "two" / "mix_00001.wav").read_bytes()
    other = run_cli(["lm-eval-audio", "mix", "--pairs", str(pairs), "--output_dir", str(tmp_path / "s8"), "--seed", "8"])
    assert json.loads((tmp_path / "s8" / "mixes.jsonl").read_text().splitlines()[1])["relative_lu"] != one[1]["relative_lu"]
    assert other.returncode == 0


def test_default_draws_vary_which_clip_is_louder_and_which_comes_first(tmp_path):
    from lm_eval_audio.audio import mixing

    sf.write(tmp_path / "a.wav", 0.1 * tone(1.0, freq=300, seed=1), 16000)
    sf.write(tmp_path / "b.wav", 0.1 * tone(1.0, freq=500, seed=2), 16000)
    (tmp_path / "pairs.csv").write_text("a,b\n" + "a.wav,b.wav\n" * 200)
    defaults = mixing.build_parser().parse_args(["--pairs", "x", "--output_dir", "y"])
    mixes = mixing.mix_pairs(str(tmp_path / "pairs.csv"), str(tmp_path), 0, tuple(defaults.lu_range),
                             tuple(defaults.offset_range))
    louder = Counter(m["louder"] for m in mixes)
    first = Counter(m["first"] for m in mixes)
    assert louder["a"] >= 60 and louder["b"] >= 60 and louder["equal"] >= 5  # 200 draws from -10..10 LU
    assert first["a"] >= 60 and first["b"] >= 60
    assert all((m["louder"] == "equal") == (abs(m["relative_lu"]) <= 1) for m in mixes)


def test_batch_from_jsonl_mixes_as_the_same_pairs_in_csv(speech_and_tone, tmp_path):
    folder, speech, hum = speech_and_tone
    (folder / "same.csv").write_text("a,b,relative_lu,offset,a_meta\n"
                                     f"{speech.name},{hum.name},-4,0.25,\"{{\"\"id\"\": 2}}\"\n"
                                     f"{hum.name},{speech.name},,,\n")
    (folder / "same.jsonl").write_text(
        json.dumps({"a": speech.name, "b": hum.name, "relative_lu": -4, "offset": 0.25, "a_meta": {"id": 2}}) + "\n"
        + json.dumps({"a": hum.name, "b": speech.name}) + "\n")
    made = {}
    for kind in ("csv", "jsonl"):
        proc = run_cli(["lm-eval-audio", "mix", "--pairs", str(folder / f"same.{kind}"), "--output_dir",
                        str(tmp_path / kind), "--seed", "3"])
        assert proc.returncode == 0, proc.stderr
        made[kind] = [json.loads(line) for line in (tmp_path / kind / "mixes.jsonl").read_text().splitlines()]
    rate = sf.info(str(tmp_path / "jsonl" / "mix_00000.wav")).samplerate
    assert made["jsonl"][0]["relative_lu"] == -4.0 and made["jsonl"][0]["offset_samples"] == int(0.25 * rate)
    assert made["jsonl"][0]["clips"]["a"]["meta"] == {"id": 2}
    for key in ("relative_lu", "offset_samples", "louder", "first"):
        assert [m[key] for m in made["jsonl"]] == [m[key] for m in made["csv"]], key
    for name in ("mix_00000.wav", "mix_00001.wav"):
        assert (tmp_path / "jsonl" / name).read_bytes() == (tmp_path / "csv" / name).read_bytes()


def test_bad_inputs_name_the_clip_or_row(speech_and_tone, tmp_path):
    folder, speech, hum = speech_and_tone
    short = folder / "short.wav"
    sf.write(short, tone(0.2), 16000)
    silent = folder / "silent.wav"
    sf.write(silent, np.zeros(16000, dtype=np.float32), 16000)
    cases = [
        ([str(speech), str(short), "--relative_lu", "0"], r"clip b \(.*short.wav\): 0.200 s is shorter than the 0.4 s"),
        ([str(silent), str(hum), "--relative_lu", "0"], r"clip a \(.*silent.wav\): the clip is silent"),
        ([str(speech), str(folder / "nope.wav"), "--relative_lu", "0"], "clip b: audio file not found: .*nope.wav"),
    ]
    for args, message in cases:
        proc = run_cli(["lm-eval-audio", "mix", *args, "--output", str(tmp_path / "x.wav")])
        assert proc.returncode != 0
        assert re.search(message, proc.stderr), proc.stderr
    typo = folder / "typo.csv"
    typo.write_text(f"\ufeffa,b,relative_LU\n{speech.name},{hum.name},3\n")  # with a spreadsheet's byte-order mark
    proc = run_cli(["lm-eval-audio", "mix", "--pairs", str(typo), "--output_dir", str(tmp_path / "t")])
    assert proc.returncode != 0 and "typo.csv row 1: unknown keys relative_LU" in proc.stderr
    bad = folder / "bad.jsonl"
    bad.write_text(json.dumps({"a": speech.name, "b": hum.name, "relative_lu": "loud"}) + "\n")
    proc = run_cli(["lm-eval-audio", "mix", "--pairs", str(bad), "--output_dir", str(tmp_path / "b")])
    assert proc.returncode != 0 and "bad.jsonl row 1: relative_lu='loud' is not a number" in proc.stderr


def test_readme_mix_commands_run_as_written(tmp_path):
    proc = run_readme_block("mix", tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    meta = json.loads((tmp_path / "mixed" / "speech_over_music.json").read_text())
    assert meta["relative_lu"] == -6.0 and meta["louder"] == "a" and meta["first"] == "a"
    assert meta["offset_samples"] == 8000  # 0.5 s at 16 kHz
    lines = (tmp_path / "mixed" / "batch" / "mixes.jsonl").read_text().splitlines()
    assert [json.loads(line)["clips"]["a"]["meta"] for line in lines] == [{"kind": "speech"}, {"kind": "sound"}]
    assert (tmp_path / "mixed" / "batch" / "mix_00001.wav").exists()
