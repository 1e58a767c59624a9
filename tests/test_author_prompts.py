"""``--model_args ...,prompts=authors`` (issue 42, item 6): each bundled sample's loader, given the metadata lm-eval
hands it (the model arguments merged in), asks the prompt the model's authors published for the benchmark, records
what applied and why (``lm_eval_audio_data.prompt_source``), and keeps the benchmark's own prompt by default. No model
is needed: the loaders are called directly."""

from __future__ import annotations

import json

import pytest

from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.model_wrappers.author_prompts import AuthorPromptError
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.tasks.aishell1 import data as aishell1
from lm_eval_audio.tasks.covost2 import data as covost2
from lm_eval_audio.tasks.fleurs import data as fleurs
from lm_eval_audio.tasks.mmar import utils as mmar
from lm_eval_audio.tasks.mmau import utils as mmau
from lm_eval_audio.tasks.mmsu import data as mmsu
from lm_eval_audio.tasks.muchomusic import data as muchomusic
from lm_eval_audio.tasks.vocalsound import data as vocalsound
from lm_eval_audio.tasks.voicebench import data as voicebench
from lm_eval_audio.tasks.voxpopuli import data as voxpopuli
from lm_eval_audio.tasks.wenetspeech import data as wenetspeech

QWEN3_OMNI = "Qwen/Qwen3-Omni-30B-A3B-Instruct"
QWEN2_AUDIO = "Qwen/Qwen2-Audio-7B"
QWEN2_5_OMNI = "Qwen/Qwen2.5-Omni-7B"
AF3 = "nvidia/audio-flamingo-3-hf"
KIMI = "moonshotai/Kimi-Audio-7B-Instruct"
ZH_QWEN3 = "请将这段中文语音转换为纯文本。"
ZH_QWEN2_5 = "请将这段中文语音转换为纯文本，去掉标点符号。"
EN_QWEN2_5 = "Transcribe the English audio into text without any punctuation marks."


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf_cache"))  # unpacked sample archives land here


# each speech set's sample: (its loader, given the metadata and notes; the label its notes are under)
SPEECH = {
    "fleurs_en_us": (lambda m, n: fleurs.load_docs("en_us", m, True, notes=n), "FLEURS en_us sample"),
    "fleurs_ja_jp": (lambda m, n: fleurs.load_docs("ja_jp", m, True, notes=n), "FLEURS ja_jp sample"),
    "fleurs_cmn_hans_cn": (lambda m, n: fleurs.load_docs("cmn_hans_cn", m, True, notes=n),
                           "FLEURS cmn_hans_cn sample"),
    "aishell1": (lambda m, n: aishell1.load_docs(m, True, notes=n), "AISHELL-1 test sample"),
    "wenetspeech": (lambda m, n: wenetspeech.load_docs("test_net", m, True, notes=n), "WenetSpeech test_net sample"),
    "voxpopuli": (lambda m, n: voxpopuli.load_docs(m, True, notes=n), "VoxPopuli en test sample"),
    "covost2_en_zh": (lambda m, n: covost2.load_docs("en_zh", m, True, notes=n), "CoVoST 2 en_zh sample"),
    "covost2_zh_en": (lambda m, n: covost2.load_docs("zh_en", m, True, notes=n), "CoVoST 2 zh_en sample"),
    "vocalsound": (lambda m, n: vocalsound.load_docs(m, True, notes=n), "VocalSound test sample"),
}
# the benchmark's own prompt of each (prompts=benchmark, the default)
OWN = {
    "fleurs_en_us": "Please transcribe this audio.", "fleurs_ja_jp": "Please transcribe this audio.",
    "fleurs_cmn_hans_cn": "请将这段语音转写成文字。", "aishell1": "请把这段语音转录成文本。",
    "wenetspeech": "请把这段语音转录成文本。", "voxpopuli": "Please transcribe this audio.",
    "covost2_en_zh": "Listen to the provided English speech and produce a translation in Chinese text.",
    "covost2_zh_en": "Listen to the provided Chinese speech and produce a translation in English text.",
    "vocalsound": "Classify the human vocal sound to VocalSound in English:",
}
WIRED = [
    (QWEN3_OMNI, "fleurs_en_us", "Transcribe the English audio into text."),
    (QWEN3_OMNI, "fleurs_ja_jp", "Transcribe the Japanese audio into text."),
    (QWEN3_OMNI, "fleurs_cmn_hans_cn", ZH_QWEN3),
    (QWEN3_OMNI, "aishell1", ZH_QWEN3),
    (QWEN3_OMNI, "wenetspeech", ZH_QWEN3),
    (QWEN3_OMNI, "voxpopuli", "Transcribe the English audio into text."),
    (QWEN3_OMNI, "covost2_en_zh", "Listen to the provided English speech and produce a translation in Chinese text."),
    (QWEN3_OMNI, "covost2_zh_en", "Listen to the provided Chinese speech and produce a translation in English text."),
    (QWEN2_AUDIO, "fleurs_en_us", "Detect the language and recognize the speech: <|en|>"),
    (QWEN2_AUDIO, "fleurs_cmn_hans_cn", "Detect the language and recognize the speech: <|zh|>"),
    (QWEN2_AUDIO, "aishell1", "Detect the language and recognize the speech: <|zh|>"),
    (QWEN2_AUDIO, "wenetspeech", "Detect the language and recognize the speech: <|zh|>"),
    (QWEN2_AUDIO, "voxpopuli", "Detect the language and recognize the speech: <|en|>"),
    (QWEN2_AUDIO, "vocalsound", "Classify the human vocal sound to VocalSound in English:"),
    (QWEN2_5_OMNI, "fleurs_en_us", EN_QWEN2_5),
    (QWEN2_5_OMNI, "fleurs_cmn_hans_cn", ZH_QWEN2_5),
    (QWEN2_5_OMNI, "aishell1", ZH_QWEN2_5),
    (QWEN2_5_OMNI, "wenetspeech", ZH_QWEN2_5),
    (QWEN2_5_OMNI, "voxpopuli", EN_QWEN2_5),
    (QWEN2_5_OMNI, "vocalsound", "Classify the given human vocal sound in English."),
    (QWEN2_5_OMNI, "covost2_en_zh", "Listen to the provided English speech and produce a translation in Chinese text."),
    (AF3, "fleurs_en_us", "Transcribe the input speech."),
    (AF3, "voxpopuli", "Transcribe the input speech."),
    (KIMI, "fleurs_en_us", "Please transcribe this audio."),
    (KIMI, "fleurs_cmn_hans_cn", "请将这段语音转写成文字。"),
    (KIMI, "aishell1", "请把这段语音转录成文本。"),
    (KIMI, "wenetspeech", "请把这段语音转录成文本。"),
]


def _authors(model: str, key: str = "pretrained", **more) -> dict:
    return {"prompts": "authors", key: model, **more}


@pytest.mark.parametrize("model,task,expected", WIRED, ids=lambda v: str(v)[:30])
def test_a_wired_family_is_asked_its_authors_prompt_and_the_record_cites_it(model, task, expected):
    load, label = SPEECH[task]
    notes = DataNotes()
    docs = load(_authors(model), notes)
    assert {d["prompt"] for d in docs} == {expected}
    assert notes.entries["prompts"][label] == expected
    record = notes.entries["prompt_source"][label]
    assert record["asked"] == "the authors' prompt" and record["authors_prompt"] == expected
    assert record["model"] == model and record["citation"] and record["family_notes"]
    json.dumps(record)  # it goes into the results JSON as it is


@pytest.mark.parametrize("task", sorted(SPEECH))
def test_the_default_and_prompts_benchmark_ask_the_benchmarks_own_prompt_unrecorded(task):
    load, label = SPEECH[task]
    for metadata in ({}, {"pretrained": QWEN3_OMNI}, {"prompts": "benchmark", "pretrained": QWEN3_OMNI},
                     {"prompts": "BENCHMARK", "model": "some-served-model"}):
        notes = DataNotes()
        assert {d["prompt"] for d in load(metadata, notes)} == {OWN[task]}
        assert "prompt_source" not in notes.entries


def test_the_models_family_from_its_hub_id_its_served_name_or_its_folders_config(tmp_path):
    for name, family in [(QWEN3_OMNI, "Qwen3-Omni"), ("Qwen/Qwen3-Omni-30B-A3B-Thinking", "Qwen3-Omni"),
                         ("qwen2-audio-7b-instruct", "Qwen2-Audio"), (QWEN2_5_OMNI, "Qwen2.5-Omni"),
                         ("AUDIO-FLAMINGO-3", "Audio Flamingo 3"), (KIMI, "Kimi-Audio"),
                         ("/models/qwen3_omni_served", "Qwen3-Omni")]:
        assert author_prompts.family({"pretrained": name}).name == family
    assert author_prompts.family({"model": "Qwen3-Omni-30B-A3B-Instruct"}).name == "Qwen3-Omni"  # openai-audio
    for model_type, family in [("qwen3_omni_moe", "Qwen3-Omni"), ("qwen3_omni_moe_thinker", "Qwen3-Omni"),
                               ("qwen2_audio", "Qwen2-Audio"), ("qwen2_5_omni", "Qwen2.5-Omni"),
                               ("audioflamingo3", "Audio Flamingo 3")]:
        folder = tmp_path / model_type / "checkpoint"  # the folder's name tells nothing
        folder.mkdir(parents=True)
        (folder / "config.json").write_text(json.dumps({"model_type": model_type}))
        assert author_prompts.family({"pretrained": str(folder)}).name == family
    # a model_type of a family without authors' prompts (a Qwen2.5-Omni thinker saved alone): the name decides
    folder = tmp_path / "Qwen2.5-Omni-7B-thinker"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "qwen2_5_omni_thinker"}))
    assert author_prompts.family({"model": str(folder)}).name == "Qwen2.5-Omni"


def test_a_model_of_no_family_with_authors_prompts_stops_the_load_in_one_line(tmp_path):
    listed = ", ".join(f.name for f in author_prompts.with_authors_prompts())
    assert {"Qwen3-Omni", "Qwen2.5-Omni", "Qwen2-Audio", "Audio Flamingo 3", "Kimi-Audio", "Qwen-Audio"} <= set(
        listed.split(", "))
    with pytest.raises(AuthorPromptError) as e:
        aishell1.load_docs(_authors("mistralai/Voxtral-Mini-3B-2507"), True, notes=DataNotes())
    assert "mistralai/Voxtral-Mini-3B-2507" in str(e.value) and listed in str(e.value)
    assert "\n" not in str(e.value) and "prompts=benchmark" in str(e.value)
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "voxtral"}))
    with pytest.raises(AuthorPromptError, match="model_type 'voxtral'.* of the family Voxtral, which has no authors' "
                       "prompts; families with authors' prompts: Audio Flamingo 3"):
        mmau.load(split="test-mini", where={"task": "sound"}, sample=True, **_authors(str(folder)))
    with pytest.raises(AuthorPromptError, match="needs the model's name.*pretrained=.*model="):
        voxpopuli.load_docs({"prompts": "authors"}, True, notes=DataNotes())


def test_an_unknown_prompts_value_is_refused_by_the_loaders_and_before_the_model_loads():
    with pytest.raises(AuthorPromptError, match="prompts 'author': give benchmark .* or authors"):
        fleurs.load_docs("en_us", {"prompts": "author", "pretrained": QWEN3_OMNI}, True, notes=DataNotes())
    with pytest.raises(AuthorPromptError, match="prompts 'official'"):
        mmar.load(where={"modality": "sound"}, sample=True, prompts="official")
    # before the model loads, for a run of any benchmark's tasks (the seam's check, once for the run)
    from lm_eval_audio.benchmarks import registry
    from lm_eval_audio.harness.cli_patches import RunCommand, check_data_first

    def run(tasks, **model_args):
        check_data_first(RunCommand(model="hf-audio", tasks=tuple(tasks), model_args=model_args))

    with pytest.raises(AuthorPromptError, match="prompts 'author'"):
        run(["fleurs_asr_sample_en_us"], prompts="author")
    with pytest.raises(AuthorPromptError, match="is of no family"):
        run(["fleurs_asr_sample_en_us"], prompts="authors", pretrained="google/gemma-3n-E4B-it")
    run(["fleurs_asr_sample_en_us"], prompts="authors", pretrained=QWEN3_OMNI)  # nothing raised
    tasks = sorted(path.stem for benchmark in registry.all_benchmarks() for path in benchmark.folder.glob("*.yaml"))
    assert len(registry.by_benchmark(tasks, ())) == len(registry.all_benchmarks())  # tasks of every benchmark
    with pytest.raises(AuthorPromptError):  # refused before any benchmark's data is looked at
        run(tasks, prompts="nope")


def test_an_explicit_prompt_wins_over_the_authors_and_the_record_says_so():
    notes = DataNotes()
    docs = voxpopuli.load_docs(_authors(QWEN3_OMNI, prompt="Write what is said."), True, notes=notes)
    assert {d["prompt"] for d in docs} == {"Write what is said."}
    record = notes.entries["prompt_source"]["VoxPopuli en test sample"]
    assert record["asked"] == "the prompt= override (it wins over prompts=authors)"
    assert record["authors_prompt"] == "Transcribe the English audio into text." and "override" in record
    assert notes.entries["prompts"]["VoxPopuli en test sample"] == "Write what is said."


def test_no_published_prompt_is_recorded_never_silent():
    notes = DataNotes()
    docs = vocalsound.load_docs(_authors(QWEN3_OMNI), True, notes=notes)
    assert {d["prompt"] for d in docs} == {OWN["vocalsound"]}
    assert notes.entries["prompt_source"]["VocalSound test sample"]["asked"] == (
        "no published prompt for Qwen3-Omni on VocalSound: the benchmark's own")
    notes = DataNotes()
    docs = fleurs.load_docs("ja_jp", _authors(AF3), True, notes=notes)  # AF3: English ASR only
    assert {d["prompt"] for d in docs} == {OWN["fleurs_ja_jp"]}
    assert notes.entries["prompt_source"]["FLEURS ja_jp sample"]["asked"] == (
        "no published prompt for Audio Flamingo 3 on FLEURS: the benchmark's own")
    notes = DataNotes()
    covost2.load_docs("en_zh", _authors(QWEN2_AUDIO), True, notes=notes)  # its covost2 jsonl is unreadable
    assert notes.entries["prompt_source"]["CoVoST 2 en_zh sample"]["asked"].startswith("no published prompt for "
                                                                                       "Qwen2-Audio on CoVoST 2")
    notes = DataNotes()
    muchomusic.load_docs(_authors(KIMI), True, notes=notes)
    assert notes.entries["prompt_source"]["MuChoMusic sample"]["asked"] == (
        "no published prompt for Kimi-Audio on MuChoMusic: the benchmark's own")


def test_a_prompt_whose_answer_the_scorer_cannot_read_is_not_asked_and_the_record_says_why():
    notes = DataNotes()
    docs = vocalsound.load_docs(_authors(KIMI), True, notes=notes)
    assert {d["prompt"] for d in docs} == {OWN["vocalsound"]}
    record = notes.entries["prompt_source"]["VocalSound test sample"]
    assert record["asked"] == "the benchmark's own" and "option letter" in record["not_used"]
    assert record["authors_prompt"].startswith("Identify the human vocal sound in the audio.\nOptions:\n(A) Laughter")
    assert record["citation"].endswith("data/download_benchmark.py:806")


def test_the_records_carry_the_authors_caveats():
    notes = DataNotes()
    fleurs.load_docs("cmn_hans_cn", _authors(QWEN2_AUDIO), True, notes=notes)
    record = notes.entries["prompt_source"]["FLEURS cmn_hans_cn sample"]
    assert "BASE model" in record["family_notes"] and "no chat template" in record["family_notes"]
    notes = DataNotes()
    voxpopuli.load_docs(_authors(AF3), True, notes=notes)
    assert "The spoken content of the audio is" in notes.entries["prompt_source"]["VoxPopuli en test sample"]["notes"]
    notes = DataNotes()
    aishell1.load_docs(_authors(QWEN2_5_OMNI), True, notes=notes)
    assert "You are a speech recognition model." in notes.entries["prompt_source"]["AISHELL-1 test sample"]["notes"]


def _mcq(question: str, choices: list[str], inline: bool) -> str:
    options = [f"({chr(65 + i)}) {c}" for i, c in enumerate(choices)]
    if inline:
        return f"{question}\n" + " ".join(options)
    return f"{question} Choose the correct option from the following options:\n" + "\n".join(options)


@pytest.mark.parametrize("model,inline", [(AF3, False), (KIMI, True)])
def test_mmau_items_are_asked_in_the_authors_multiple_choice_format(model, inline):
    default = mmau.load(split="test-mini", where={"task": "sound"}, sample=True)["test"]
    authors = mmau.load(split="test-mini", where={"task": "sound"}, sample=True, **_authors(model))["test"]
    assert len(authors) == len(default) > 0
    for doc, own in zip(authors, default):
        assert mmau.prompt(doc) == _mcq(doc["question"], doc["choices"], inline)
        assert mmau.prompt(own).endswith("Answer with the full option text (you may include the letter).")
    from lm_eval_audio.benchmarks import data_notes

    dataset = mmau.load(split="test-mini", where={"task": "sound"}, sample=True, **_authors(model))
    notes = data_notes.of(dataset).entries  # the record rides on the dataset lm-eval keeps
    assert notes["prompt_source"]["MMAU test-mini, task=sound"]["asked"] == "the authors' prompt"
    from lm_eval_audio.tasks.mmau import data

    assert notes["prompts"]["MMAU test-mini, task=sound"] == (data.KIMI_MCQ if inline else data.AF3_MCQ)


def test_mmar_items_are_asked_in_audio_flamingo_3s_format_and_qwen3_omni_keeps_the_benchmarks():
    from lm_eval_audio.benchmarks import data_notes

    docs = mmar.load(where={"modality": "sound"}, sample=True, **_authors(AF3))["test"]
    assert all(mmar.prompt(d) == _mcq(d["question"], d["choices"], False) for d in docs)
    dataset = mmar.load(where={"modality": "sound"}, sample=True, **_authors(QWEN3_OMNI))
    own = mmar.load(where={"modality": "sound"}, sample=True)["test"]
    assert [mmar.prompt(d) for d in dataset["test"]] == [mmar.prompt(d) for d in own]
    record = data_notes.of(dataset).entries["prompt_source"]["MMAR, modality=sound"]
    assert record["asked"] == "the benchmark's own (the authors' stated setting)"
    assert "Benchmark-Specific Formatting" in record["citation"]


def test_mmsu_and_voicebench_record_qwen3_omnis_stated_setting():
    notes = DataNotes()
    docs = mmsu.load_docs({"category": "Perception"}, _authors(QWEN3_OMNI), True, notes=notes)
    own = mmsu.load_docs({"category": "Perception"}, {}, True, notes=DataNotes())
    assert [mmsu.prompt(d) for d in docs] == [mmsu.prompt(d) for d in own]
    assert notes.entries["prompt_source"]["MMSU, category=Perception"]["asked"] == author_prompts.OWN
    notes = DataNotes()
    docs = voicebench.load_docs("openbookqa", "test", _authors(KIMI, key="model"), True, notes=notes)
    assert {voicebench.doc_to_text(d) for d in docs} == {""}
    assert notes.entries["prompt_source"]["VoiceBench openbookqa/test"]["asked"] == author_prompts.OWN


def test_every_fleurs_language_has_its_english_name():
    assert set(fleurs.ENGLISH_NAMES) == set(fleurs.LANGUAGES)


def _authors_prompts_tables():
    """Every AUTHORS_PROMPTS table a benchmark folder declares (a table of tables: NSynth's by target, AIR-Bench's by
    track), as (folder, its family -> entry tables)."""
    import importlib

    from lm_eval_audio.benchmarks import registry

    for benchmark in registry.all_benchmarks():
        if not (benchmark.folder / "data.py").exists():
            continue
        table = getattr(importlib.import_module(f"lm_eval_audio.tasks.{benchmark.key}.data"), "AUTHORS_PROMPTS", None)
        if table:
            nested = all(isinstance(v, dict) for v in table.values())
            yield benchmark.key, list(table.values()) if nested else [table]


def test_every_authors_prompt_is_declared_for_a_family_record_with_authors_prompts():
    """A folder names a family by its record (model_wrappers.families.Family), so a family that does not exist fails
    at import; each one named has authors' notes, so prompts=authors can reach it."""
    from lm_eval_audio.model_wrappers.families import Family

    reachable = set(author_prompts.with_authors_prompts())
    seen = 0
    for folder, tables in _authors_prompts_tables():
        for table in tables:
            for family in table:
                assert isinstance(family, Family), f"tasks/{folder}: {family!r} is no family record"
                assert family in reachable, f"tasks/{folder}: {family.name} has no authors' notes: unreachable"
                seen += 1
    assert seen >= 40


def test_an_authors_prompt_naming_an_unknown_family_fails_at_import(tmp_path, monkeypatch):
    (tmp_path / "scratch_prompts.py").write_text(
        "from lm_eval_audio.model_wrappers.author_prompts import Published\n"
        "from lm_eval_audio.model_wrappers.family_adapters.qwen3_omni import QWEN4_OMNI\n"
        "AUTHORS_PROMPTS = {QWEN4_OMNI: Published('Say it.', 'nowhere')}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError, match="QWEN4_OMNI"):
        __import__("scratch_prompts")
