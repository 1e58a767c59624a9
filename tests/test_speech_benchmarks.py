"""FLEURS, CoVoST 2, AISHELL-1, WenetSpeech, VoxPopuli, MuChoMusic and VocalSound: their loaders on the bundled
samples and on broken copies, their data fetched from the stand-in Hub (only what a task reads), their official
readings, and all seven samples through the real CLI offline."""

from __future__ import annotations

import io
import json
import math
import shutil
import tarfile
from pathlib import Path

import pytest
import yaml
from conftest import REPO, results_json, run_cli, stand_in_hub, task_scoring

from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.speech_sets import SpeechDataError
from lm_eval_audio.metrics import error_rates
from lm_eval_audio.metrics.text_normalizers import rule_named
from lm_eval_audio.tasks.aishell1 import data as aishell1
from lm_eval_audio.tasks.covost2 import data as covost2
from lm_eval_audio.tasks.fleurs import data as fleurs
from lm_eval_audio.tasks.muchomusic import data as muchomusic
from lm_eval_audio.tasks.muchomusic import scoring as muchomusic_scoring
from lm_eval_audio.tasks.vocalsound import scoring as vocalsound_scoring
from lm_eval_audio.tasks.voxpopuli import data as voxpopuli
from lm_eval_audio.tasks.wenetspeech import data as wenetspeech

TASKS = REPO / "tasks"


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf_cache"))  # unpacked sample archives land here


def test_each_sample_loads_in_its_official_layout_with_its_rule_and_prompt():
    notes = DataNotes()
    en = fleurs.load_docs("en_us", {}, True, notes=notes)
    assert [d["reference"] for d in en][:1] == ["the cat sat on the mat"] and len(en) == 3
    assert en[1]["raw_transcription"].startswith('"Good morning,"')  # a leading quotation mark is text
    assert all(Path(d["audio_path"]).is_file() and not d["audio_problem"] for d in en)
    zh = fleurs.load_docs("cmn_hans_cn", {}, True, notes=notes)
    assert {d["scoring"] for d in zh} == {"cn_tn_chars"} and zh[0]["prompt"] == "请将这段语音转写成文字。"
    assert notes.entries["scoring_rules"]["FLEURS cmn_hans_cn sample"].startswith("cn_tn_chars: corpus CER")
    assert [d["scoring"] for d in covost2.load_docs("en_ja", {}, True, notes=notes)] == ["bleu:ja-mecab"]
    assert "tok:ja-mecab" in notes.entries["scoring_rules"]["CoVoST 2 en_ja sample"]
    assert len(aishell1.load_docs({}, True, notes=notes)) == 3
    net = wenetspeech.load_docs("test_net", {}, True, notes=notes)
    assert net[0]["uniq_id"].startswith("TEST_NET_") and net[0]["prompt"] == "请把这段语音转录成文本。"
    vox = voxpopuli.load_docs({"prompt": "Transcribe it."}, True, notes=notes)
    assert [d["reference"] for d in vox] == ["the debate is closed", "we vote on thursday at twelve noon"]
    assert {d["prompt"] for d in vox} == {"Transcribe it."} and notes.entries["prompts"]["VoxPopuli en test sample"]
    with pytest.raises(SpeechDataError, match="--metadata prompt must be a string"):
        voxpopuli.load_docs({"prompt": 3}, True, notes=DataNotes())


def test_chinese_cer_is_the_references_unless_folded_is_asked_for():
    notes = DataNotes()
    assert {d["scoring"] for d in wenetspeech.load_docs("test_net", {}, True, notes=notes)} == {"cn_tn_chars"}
    folded = {"chinese_cer": "folded"}
    assert {d["scoring"] for d in fleurs.load_docs("cmn_hans_cn", folded, True, notes=notes)} == {"cn_tn_folded_chars"}
    assert {d["scoring"] for d in fleurs.load_docs("ja_jp", folded, True, notes=notes)} == {"whisper_basic_chars"}
    with pytest.raises(SpeechDataError, match="chinese_cer 'nfkc': give reference .* or folded"):
        aishell1.load_docs({"chinese_cer": "nfkc"}, True, notes=DataNotes())


def test_fleurs_languages_rules_tasks_and_groups_agree():
    assert len(fleurs.LANGUAGES) == 102 and set(fleurs.RULES) <= set(fleurs.LANGUAGES)
    by_unit = {}
    for kind in ("words", "characters"):
        group = yaml.safe_load((TASKS / "fleurs" / f"fleurs_asr_by_{kind}.yaml").read_text())
        by_unit[kind] = [t.removeprefix("fleurs_asr_") for t in group["task"]]
    assert sorted(by_unit["words"] + by_unit["characters"]) == sorted(fleurs.LANGUAGES)
    assert all(rule_named(fleurs.rule(lang)).unit == "char" for lang in by_unit["characters"])
    assert all(rule_named(fleurs.rule(lang)).unit == "word" for lang in by_unit["words"])
    assert fleurs.rule("ko_kr") == "whisper_basic"  # Korean is written with spaces: words
    for lang in fleurs.LANGUAGES:
        task = yaml.safe_load((TASKS / "fleurs" / f"fleurs_asr_{lang}.yaml").read_text())
        assert task["dataset_kwargs"] == {"language": lang}


def test_covost2_directions_tasks_and_hub_configurations_agree():
    group = yaml.safe_load((TASKS / "covost2" / "covost2.yaml").read_text())["task"]
    assert sorted(group) == sorted(f"covost2_{d}" for d in covost2.DIRECTIONS) and len(group) == 24
    assert covost2.DIRECTIONS["zh_en"][0] == "zh-CN_en" and covost2.DIRECTIONS["sv_en"][0] == "sv-SE_en"
    assert [covost2.scoring(d) for d in ("en_zh", "en_ja", "en_de", "ja_en")] == [
        "bleu:zh", "bleu:ja-mecab", "bleu:13a", "bleu:13a"]
    for direction in covost2.DIRECTIONS:
        task = yaml.safe_load((TASKS / "covost2" / f"covost2_{direction}.yaml").read_text())
        assert task["dataset_kwargs"] == {"direction": direction}


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def test_fleurs_rows_keyed_by_file_name_and_clips_missing_from_the_archive_counted(tmp_path, monkeypatch):
    root = _copy(fleurs.SPEC.folder / "sample_data", tmp_path / "fleurs")
    tsv = root / "data" / "en_us" / "test.tsv"
    lines = tsv.read_text(encoding="utf-8").splitlines()
    first = lines[0].split("\t")
    lines.append("\t".join([first[0], first[1], "The cat sat.", "the cat sat", "x", "1", "MALE"]))  # same file again
    lines.append("\t".join(["9", "9999.wav", "Gone.", "gone", "g o n e |", "1", "MALE"]))  # not in the archive
    lines.append("too\tfew\tfields")
    lines.append("\t".join(["8", "../../x.wav", "Out.", "out", "o u t |", "1", "MALE"]))  # leads out of the clips
    tsv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setenv(fleurs.SPEC.variable, str(root))
    notes = DataNotes()
    docs = fleurs.load_docs("en_us", {}, False, notes=notes)
    assert [d["reference"] for d in docs] == ["the cat sat", "good morning she said to everyone",
                                              "good morning she said to everyone", "gone"]
    assert docs[-1]["audio_problem"].startswith("missing audio file: 9999.wav")
    assert notes.entries["repeated_rows"] and list(notes.entries["invalid_items"].values()) == [
        "3 tab-separated fields, not 7", "file_name is not a clip's name (it holds a path): refused"]
    monkeypatch.setenv(fleurs.SPEC.variable, str(tmp_path / "nowhere"))
    with pytest.raises(SpeechDataError, match="FLEURS data folder .* does not exist.*FLEURS_DATA_DIR"):
        fleurs.load_docs("en_us", {}, False, notes=DataNotes())
    with pytest.raises(SpeechDataError, match="no language 'english'"):
        fleurs.load_docs("english", {}, True, notes=DataNotes())


def test_broken_copies_stop_with_the_file_and_the_fix(tmp_path, monkeypatch):
    root = _copy(voxpopuli.SPEC.folder / "sample_data", tmp_path / "vox")
    tsv = root / "data" / "en" / "asr_test.tsv"
    tsv.write_text(tsv.read_text().replace("normalized_text", "text"))
    monkeypatch.setenv(voxpopuli.SPEC.variable, str(root))
    with pytest.raises(SpeechDataError, match=r"asr_test.tsv lacks the column\(s\) normalized_text"):
        voxpopuli.load_docs({}, False, notes=DataNotes())
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv(aishell1.SPEC.variable, str(empty))
    with pytest.raises(SpeechDataError, match=r"holds no data/test-\*\.parquet.*AISHELL1_DATA_DIR"):
        aishell1.load_docs({}, False, notes=DataNotes())
    with pytest.raises(SpeechDataError, match="no task direction 'en_fr'"):
        covost2.load_docs("en_fr", {}, True, notes=DataNotes())


def _tar_with(path: Path, names: list[str]) -> None:
    with tarfile.open(path, "w:gz") as tar:
        for name in names:
            info = tarfile.TarInfo(name)
            info.size = 4
            tar.addfile(info, io.BytesIO(b"RIFF"))


def test_an_archive_naming_one_clip_twice_is_refused(tmp_path, monkeypatch):
    root = _copy(fleurs.SPEC.folder / "sample_data", tmp_path / "fleurs")
    _tar_with(root / "data" / "ja_jp" / "audio" / "test.tar.gz", ["test/a.wav", "other/a.wav"])
    monkeypatch.setenv(fleurs.SPEC.variable, str(root))
    with pytest.raises(Exception, match="1 clip name\\(s\\) appear twice"):
        fleurs.load_docs("ja_jp", {}, False, notes=DataNotes())


def _file(download: dict) -> str:
    """The repository path of a file the stand-in served (``/datasets/<repo>/resolve/<commit>/<path>``)."""
    return download["path"].split("/resolve/", 1)[1].split("/", 1)[1]


def test_tasks_fetch_only_what_they_read_from_the_hub_and_record_the_commit(tmp_path, monkeypatch):
    repos = {spec.repo: spec.folder / "sample_data" for spec in (fleurs.SPEC, covost2.SPEC)}
    with stand_in_hub(repos, tmp_path / "hub_cache", monkeypatch, (fleurs.SPEC.variable, covost2.SPEC.variable)) as hub:
        notes = DataNotes()
        docs = fleurs.load_docs("cmn_hans_cn", {}, False, notes=notes)
        assert len(docs) == 2 and all(Path(d["audio_path"]).is_file() for d in docs)
        served = sorted(_file(e) for e in hub.downloads())
        assert served == ["data/cmn_hans_cn/audio/test.tar.gz", "data/cmn_hans_cn/test.tsv"]
        record = notes.entries["sources"]["FLEURS cmn_hans_cn"]
        assert record["repo_id"] == "google/fleurs" and len(record["commit"]) == 40
        covost2.load_docs("zh_en", {}, False, notes=notes)
        assert [_file(e) for e in hub.downloads()][len(served):] == ["zh-CN_en/test-00000-of-00001.parquet"]
        before = len(hub.downloads())
        fleurs.load_docs("cmn_hans_cn", {}, False, notes=DataNotes())  # cached, unpacked once
        assert len(hub.downloads()) == before


def test_download_dry_run_lists_a_languages_transcript_and_archive(tmp_path, monkeypatch):
    with stand_in_hub({fleurs.SPEC.repo: fleurs.SPEC.folder / "sample_data"}, tmp_path / "hub_cache", monkeypatch,
                      (fleurs.SPEC.variable,)) as hub:
        env = {"HF_ENDPOINT": hub.url, "HF_HUB_CACHE": str(hub.cache), "HF_HUB_OFFLINE": "0", "HF_HUB_DISABLE_XET": "1"}
        proc = run_cli(["lm-eval-audio", "download", "--tasks", "fleurs_asr_ja_jp", "--dry_run"], env_extra=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        archive = fleurs.SPEC.folder / "sample_data" / "data" / "ja_jp" / "audio" / "test.tar.gz"
        assert f"  data/ja_jp/audio/test.tar.gz\t{archive.stat().st_size}" in proc.stdout
        assert "total: 1 file(s)" in proc.stdout  # the transcript is fetched to plan
        assert [_file(e) for e in hub.downloads()] == ["data/ja_jp/test.tsv"]  # the transcript only


@pytest.mark.parametrize("response,choice", [
    ("C", 2), ("(C) It falls", 2), ("The correct answer is: B", 1), ("Based on it, C", -1),  # "B" of "Based" counts
    ("it falls slowly", 2), ("no idea", -1), ("A or B", -1)])
def test_muchomusic_reading_is_extract_responses(response, choice):
    options = ["It rises", "It stays on one note", "It falls", "It is sung by a choir"]
    assert muchomusic_scoring.official_choice(response, options) == choice


def test_muchomusic_prompt_dimensions_and_unmatched_questions(tmp_path, monkeypatch):
    docs = muchomusic.load_docs({}, True, notes=DataNotes())
    assert muchomusic.prompt(docs[1]).endswith(
        "\n Question: Does the melody rise or fall?\n Options: (A) It rises (B) It stays on one note (C) It falls "
        "(D) It is sung by a choir \n The correct answer is: ")
    assert muchomusic.prompt(docs[1]).startswith(muchomusic.IN_CONTEXT_EXAMPLE)
    task = task_scoring("muchomusic_sample_test")
    results = [muchomusic_scoring.process_results(d, [r]) for d, r in zip(docs, ["B", "A", "A"])]
    assert [r["acc"] for r in results] == [1.0, 0.0, 1.0]
    assert muchomusic_scoring.knowledge_acc([r["knowledge_acc"] for r in results], task) == pytest.approx(1 / 2)
    assert muchomusic_scoring.reasoning_acc([r["reasoning_acc"] for r in results], task) == pytest.approx(1 / 2)
    root = _copy(muchomusic.SPEC.folder / "sample_data", tmp_path / "mcm")
    csv_path = root / "muchomusic.csv"
    csv_path.write_text(csv_path.read_text().replace("How many notes are played?", "How many notes?"))
    monkeypatch.setenv(muchomusic.SPEC.variable, str(root))
    notes = DataNotes()
    docs = muchomusic.load_docs({}, False, notes=notes)
    assert [d["matched"] for d in docs] == [True, True, False] and notes.entries["unmatched_questions"]
    results = [muchomusic_scoring.process_results(d, ["A"]) for d in docs]
    assert math.isnan(muchomusic_scoring.knowledge_acc([r["knowledge_acc"] for r in results], task))
    assert [r["acc"] for r in results] == [0.0, 0.0, 1.0]  # still scored


def test_muchomusic_refuses_an_answer_that_is_not_its_option_and_a_bad_dimension_cell(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    root = _copy(muchomusic.SPEC.folder / "sample_data", tmp_path / "mcm")
    shard = root / "data" / "test-00000-of-00001.parquet"
    table = pq.read_table(shard).to_pylist()
    table[0]["answer"] = "(B) Slow tempo"  # option B is "Fast tempo"
    from lm_eval_audio.testing.synthetic_audio import write_audio_parquet

    write_audio_parquet(shard, table)
    monkeypatch.setenv(muchomusic.SPEC.variable, str(root))
    notes = DataNotes()
    assert len(muchomusic.load_docs({}, False, notes=notes)) == 2
    assert "is not option B, 'Fast tempo'" in next(iter(notes.entries["invalid_items"].values()))
    csv_path = root / "muchomusic.csv"
    csv_path.write_text(csv_path.read_text().replace("['melody']", "melody"))
    with pytest.raises(SpeechDataError, match=r"muchomusic.csv line 3: music_knowledge 'melody' is not a list literal"):
        muchomusic.load_docs({}, False, notes=DataNotes())


# mulab-mir/muchomusic@d3c9a42, muchomusic_eval/configs/default.yaml: the entry as published (benchmark data)
OFFICIAL_EXAMPLE_YAML = """in_context_examples:
  - "Question: What rhythm pattern do the digital drums primarily follow in this pop music piece? \\n
    Options: (A) Four on the floor. (B) Off-beat syncopation. (C) Scat singing. (D) E-guitar playing a simple melody. \\n
    The correct answer is: A"
"""


def test_the_in_context_example_is_the_official_yaml_entry_as_its_parser_reads_it():
    assert " ".join(yaml.safe_load(OFFICIAL_EXAMPLE_YAML)["in_context_examples"]) == muchomusic.IN_CONTEXT_EXAMPLE


@pytest.mark.parametrize("response,read", [
    ("Throat clearing", "Throat clearing"), ("someone clears their throat", "Throat clearing"),
    ("A cough, then a sniff", "Sniff"), ("laughing", None), ("Laughter.", "Laughter")])
def test_vocalsound_reading_is_lmms_evals(response, read):
    assert vocalsound_scoring.substring_class(response) == read


@pytest.mark.slow  # seven samples through lm_eval: about 40 s
def test_seven_samples_through_the_cli_offline(tmp_path):
    """The bundled cascade answers all seven samples in one run; each score is recomputed from the logged answers."""
    groups = ["fleurs_asr_sample", "covost2_sample", "aishell1_sample", "wenetspeech_sample", "voxpopuli_sample",
              "muchomusic_sample", "vocalsound_sample"]
    proc = run_cli(["lm_eval", "--model", "cascade", "--tasks", ",".join(groups), "--limit", "2", "--batch_size", "8",
                    "--gen_kwargs", "max_gen_toks=12", "--output_path", str(tmp_path), "--log_samples"],
                   env_extra={"LM_EVAL_AUDIO_TRANSCRIPT_CACHE": str(tmp_path / "t.sqlite"),
                              "HF_HUB_CACHE": str(tmp_path / "hf_cache")})
    assert proc.returncode == 0, proc.stderr[-4000:]
    res = results_json(tmp_path)
    data = res["lm_eval_audio_data"]
    assert data["scoring_rules"]["AISHELL-1 test sample"].startswith("cn_tn_chars")
    assert "tok:zh" in data["scoring_rules"]["CoVoST 2 en_zh sample"]

    def logged(task):
        (path,) = tmp_path.rglob(f"samples_{task}_*.jsonl")
        return [json.loads(line) for line in path.read_text().splitlines()]

    for task, rule, metric in (("fleurs_asr_sample_cmn_hans_cn", "cn_tn_chars", "cer"),
                               ("voxpopuli_sample_en_test", "whisper_english_spelled_numbers", "wer")):
        samples = logged(task)
        total = error_rates.total(error_rates.counts(s["doc"]["reference"], s["filtered_resps"][0], rule)
                                  for s in samples)
        assert res["results"][task][f"{metric},none"] == pytest.approx(error_rates.rate(total))
    assert res["results"]["fleurs_asr_sample_by_characters"]["cer,none"] == pytest.approx(
        (res["results"]["fleurs_asr_sample_cmn_hans_cn"]["cer,none"] + res["results"]["fleurs_asr_sample_ja_jp"][
            "cer,none"]) / 2)
    import sacrebleu

    samples = logged("covost2_sample_en_zh")
    assert res["results"]["covost2_sample_en_zh"]["bleu,none"] == pytest.approx(sacrebleu.corpus_bleu(
        [s["filtered_resps"][0] for s in samples], [[s["doc"]["reference"] for s in samples]], tokenize="zh").score)
    for task in ("muchomusic_sample_test", "vocalsound_sample_test"):
        assert 0.0 <= res["results"][task]["acc,none"] <= 1.0
    assert "class" in data["official_breakdown"]["vocalsound_sample_test"]["acc"]
