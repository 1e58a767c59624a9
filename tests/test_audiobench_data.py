"""AudioBench data: the published layouts, prompts and template pools, long-form chunks."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from conftest import task_scoring, tone, write_audiobench

from lm_eval_audio.audio import decoding
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.tasks.audiobench import data as audiobench
from lm_eval_audio.tasks.audiobench.templates import POOLS, SOURCES, TOOLKIT_TEMPLATES
from lm_eval_audio.tasks.audiobench import utils


def _rows(n, seconds=1.0, **extra):
    return [{"audio": tone(seconds + 0.25 * i, seed=i), "instruction": f"own {i}", "answer": f"answer {i}", **extra}
            for i in range(n)]


def _load(root, name, notes=None, **metadata):
    return audiobench.load_docs(name, {"audiobench_data_dir": str(root), **metadata},
                                notes=DataNotes() if notes is None else notes)


@pytest.mark.parametrize("layout,shards", [("parquet", 2), ("arrow", 1)])
def test_published_layouts_load_in_row_order_and_decode_without_torchcodec(tmp_path, layout, shards):
    rows = _rows(7)
    write_audiobench(tmp_path, "clotho_aqa_test", rows, layout=layout, shards=shards)
    docs = _load(tmp_path, "clotho_aqa_test")
    assert [d["row"] for d in docs] == list(range(7))
    assert [d["answer"] for d in docs] == [f"answer {i}" for i in range(7)]
    assert [d["instruction"] for d in docs] == [f"own {i}" for i in range(7)]  # AQA keeps its own
    for doc, row in zip(docs, rows):
        assert doc["audio_seconds"] == pytest.approx(len(row["audio"]) / 16000)
        (ref,) = utils.doc_to_audio(doc)
        samples = decoding.load(ref, 16000)
        # FLAC is 16-bit: equal to the written samples within one quantization step
        np.testing.assert_allclose(samples, row["audio"], atol=2 / 32768)
    assert docs[0]["other_attributes"] == '{"id": "0"}'


def test_sweep_leaves_datasets_with_their_own_instructions_alone(tmp_path):
    write_audiobench(tmp_path, "clotho_aqa_test", _rows(2))
    docs = _load(tmp_path, "clotho_aqa_test", prompt_mode="sweep")
    assert [d["template_id"] for d in docs] == [-1, -1]  # one document per item, its own instruction
    assert set(utils.process_judged(docs[0], ["x"], task_scoring(judged=True))) == {"judge_score", "judge_failures",
                                                                                    "audio_missing"}


def test_a_cells_digest_is_its_content_and_is_hashed_once_for_all_its_chunks(tmp_path, monkeypatch):
    from lm_eval_audio.audio import tables
    from lm_eval_audio.audio.refs import content_digest

    write_audiobench(tmp_path, "earnings22_test", [{"audio": tone(70.0), "instruction": "x", "answer": "talk"}])
    chunks = [utils.doc_to_audio(d)[0] for d in _load(tmp_path, "earnings22_test")]
    resolved = [tables.resolve(ref) for ref in chunks]
    reads = []
    monkeypatch.setattr(tables, "resolve", lambda ref: reads.append(ref) or resolved[0])
    digests = [content_digest(ref) for ref in chunks]
    assert len(set(digests)) == 3  # the slices differ
    assert digests == [content_digest(r) for r in resolved]  # the same as the bytes it holds
    assert len(reads) == 1  # the recording was read and hashed once, not once per chunk


def test_folder_may_be_named_after_the_repository_or_the_dataset(tmp_path):
    write_audiobench(tmp_path, "openhermes_audio_test", _rows(2, speech_instruction="Tell me a joke."))
    docs = _load(tmp_path, "openhermes_audio_test")
    assert [d["judge_question"] for d in docs] == ["Tell me a joke."] * 2  # SI: the judge reads the spoken text
    assert all(d["instruction"] in POOLS["si"] for d in docs)


def test_missing_data_is_a_clear_error_naming_dataset_and_path(tmp_path, monkeypatch):
    monkeypatch.delenv("AUDIOBENCH_DATA_DIR", raising=False)
    with pytest.raises(audiobench.AudioBenchDataError) as err:
        audiobench.load_docs("iemocap_emotion_test", {"audiobench_data_dir": str(tmp_path / "nope")},
                             notes=DataNotes())
    assert "does not exist" in str(err.value)
    with pytest.raises(audiobench.DatasetAbsent) as err:
        _load(tmp_path, "iemocap_emotion_test")
    assert str(tmp_path / "iemocap_emotion_recognition") in str(err.value)
    assert "hf download AudioLLMs/iemocap_emotion_recognition" in str(err.value)

    (tmp_path / "voxceleb_gender_test").mkdir()
    with pytest.raises(audiobench.AudioBenchDataError, match="holds no test split.*data/test-"):
        _load(tmp_path, "voxceleb_gender_test")

    write_audiobench(tmp_path, "dream_tts_mcq_test", _rows(2))  # no `choices` column
    with pytest.raises(audiobench.AudioBenchDataError, match=r"test-00000-of-00001\.parquet lacks the column\(s\) choices"):
        _load(tmp_path, "dream_tts_mcq_test")


def test_unusable_audio_and_empty_answers_are_flagged_and_counted(tmp_path):
    rows = _rows(4)
    rows[1]["audio"] = None  # a null cell
    rows[2]["answer"] = "  "
    write_audiobench(tmp_path, "wavcaps_qa_test", rows)
    found = DataNotes()
    docs = _load(tmp_path, "wavcaps_qa_test", notes=found)
    assert [d["row"] for d in docs] == [0, 1, 3]  # the empty answer is left out
    assert docs[1]["audio_problem"] == "the audio cell is empty (null)"
    (ref,) = utils.doc_to_audio(docs[1])
    assert ref["unavailable"] == "the audio cell is empty (null)"  # the model wrappers do not run it
    assert found.entries["audiobench_invalid_items"] == {"wavcaps_qa_test/2": "answer empty"}
    assert found.entries["audiobench_unusable_audio"] == {"wavcaps_qa_test/1": "the audio cell is empty (null)"}
    item = utils.process_judged(docs[1], [""], task_scoring())
    assert item["audio_missing"] == 1.0


def test_multiple_choice_prompt_and_answer_prefix_follow_the_toolkit(tmp_path):
    write_audiobench(tmp_path, "cn_college_listen_mcq_test",
                     [{"audio": tone(1.0), "instruction": "What does the woman want?", "answer": "(A) A map.",
                       "choices": "(A) A map.\n(B) A pen."}])
    (doc,) = _load(tmp_path, "cn_college_listen_mcq_test")
    assert doc["instruction"] == "Question:\nWhat does the woman want?\n Choices:\n(A) A map.\n(B) A pen."
    assert doc["judge_question"] == doc["instruction"] and doc["template_id"] == -1

    write_audiobench(tmp_path, "voxceleb_accent_test",
                     [{"audio": tone(1.0), "instruction": "x", "answer": "From the audio, I guess the speaker is from USA."}])
    (doc,) = _load(tmp_path, "voxceleb_accent_test")
    assert doc["answer"] == "USA."


def test_template_draw_is_seeded_per_item_and_prompt_modes(tmp_path):
    write_audiobench(tmp_path, "voxceleb_gender_test", _rows(40))
    first = [d["template_id"] for d in _load(tmp_path, "voxceleb_gender_test")]
    assert first == [d["template_id"] for d in _load(tmp_path, "voxceleb_gender_test")]  # reproducible
    # 40 draws from the toolkit's own 10 (AudioBench@e991641), none from the paper-era or lm-eval-audio entries
    assert len(set(first)) >= 8 and set(first) <= set(range(TOOLKIT_TEMPLATES["gr"])) and TOOLKIT_TEMPLATES["gr"] == 10
    other = [d["template_id"] for d in _load(tmp_path, "voxceleb_gender_test", prompt_seed=7)]
    assert other != first
    docs = _load(tmp_path, "voxceleb_gender_test")
    assert all(d["instruction"] == POOLS["gr"][d["template_id"]] for d in docs)

    fixed = _load(tmp_path, "voxceleb_gender_test", prompt_mode="fixed:3")
    assert {d["instruction"] for d in fixed} == {POOLS["gr"][3]}
    sweep = _load(tmp_path, "voxceleb_gender_test", prompt_mode="sweep")
    assert len(sweep) == 40 * 20
    assert sorted({(d["row"], d["template_id"]) for d in sweep}) == [(r, t) for r in range(40) for t in range(20)]

    with pytest.raises(audiobench.AudioBenchDataError, match="fixed:25 is out of range.*0-19"):
        _load(tmp_path, "voxceleb_gender_test", prompt_mode="fixed:25")
    with pytest.raises(audiobench.AudioBenchDataError, match="prompt_mode='random' is not an option"):
        _load(tmp_path, "voxceleb_gender_test", prompt_mode="random")


def test_figure2_asks_the_papers_three_asr_prompts_verbatim(tmp_path):
    """AudioBench's Figure 2 caption: Prompt 1-3 {"Turn the speech input into a text transcription", "Recognize the
    speech and give me the transcription", "Decode the audio and give me the written transcriptions."}."""
    from lm_eval_audio.tasks.audiobench.templates import FIGURE2_ASR_PROMPTS

    assert FIGURE2_ASR_PROMPTS == ("Turn the speech input into a text transcription",
                                   "Recognize the speech and give me the transcription",
                                   "Decode the audio and give me the written transcriptions.")
    write_audiobench(tmp_path, "librispeech_test_clean", _rows(3))
    notes = DataNotes()
    docs = _load(tmp_path, "librispeech_test_clean", notes, prompt_mode="figure2")
    assert [(d["row"], d["template_id"], d["instruction"], d["prompt_mode"]) for d in docs] == [
        (r, k, FIGURE2_ASR_PROMPTS[k - 1], "figure2") for r in range(3) for k in (1, 2, 3)]
    assert utils._sweeping(docs[0])  # the spread across the three, and each prompt's WER, as for sweep
    assert notes.entries["audiobench_prompts"]["audiobench_librispeech_test_clean"]["source"].endswith("Figure 2 caption")
    second = _load(tmp_path, "librispeech_test_clean", prompt_mode="figure2:2")
    assert {(d["template_id"], d["instruction"], d["prompt_mode"]) for d in second} == {
        (2, FIGURE2_ASR_PROMPTS[1], "figure2:2")} and len(second) == 3
    with pytest.raises(audiobench.AudioBenchDataError, match="prompt_mode='figure2:4' is not an option"):
        _load(tmp_path, "librispeech_test_clean", prompt_mode="figure2:4")
    write_audiobench(tmp_path, "voxceleb_gender_test", _rows(2))
    with pytest.raises(audiobench.AudioBenchDataError, match="figure2 is the paper's ASR prompt test; "
                       "audiobench_voxceleb_gender_test is a GR task"):
        _load(tmp_path, "voxceleb_gender_test", prompt_mode="figure2")


# sha256 of "\n".join(official entries) per pool, checked against AudioLLMs/AudioBench at
# e991641 (current files) and b30fdf8 (paper-era entries no longer in the current pools).
OFFICIAL_POOL_DIGESTS = {
    "asr": "6a27fb983866e4530e5c8ea26e0c11d6794e898acf07b7e6c922a55888549aa3",
    "ac": "4291dda0747e5ef16ec45713c60aca3393c1c9c9f4a49e3079c8f7b28b881b82",
    "er_iemocap": "2133eb1a7c9bdb3351e532d91bd57d1a53e5c42b3af6a64e806973489328f698",
    "er_meld_emotion": "a625a1a127b2cdbf8c987433138d97d926cdb192b1863ce52dee16d8075a1152",
    "er_meld_sentiment": "b88a98644032912a7cdea0efe08f1fa805f75937114376846491319ad6a29d52",
    "ar": "306dbc3c5c8b71ee19e5fd18e2c7d9a714e03a83a2f2d22337b33a2e1039f3d9",
    "gr": "59ac480822e8a7678d61850a324b4a43dadbb923f1b402ada9fb954b73cbea04",
    "si": "dcfb246393fb8b35d14b80c2df479c6dd4d6bc2f90acebba94960f2b5b0708b9",
}


def test_template_pools_hold_the_official_strings_and_at_least_20_where_required():
    for pool, blocks in SOURCES.items():
        official = [t for source, templates in blocks if source.startswith("AudioLLMs/") for t in templates]
        assert hashlib.sha256("\n".join(official).encode()).hexdigest() == OFFICIAL_POOL_DIGESTS[pool], pool
        assert POOLS[pool][: len(official)] == tuple(official)  # official first: fixed:K indexes are stable
        assert len(set(POOLS[pool])) == len(POOLS[pool])
    for dataset in audiobench.DATASETS.values():
        if dataset.task_type in ("ASR", "ER", "AR", "GR", "AC"):
            assert len(POOLS[dataset.pool]) >= 20, dataset.name
    assert len(audiobench.DATASETS) == 26
    counts = {}
    for dataset in audiobench.DATASETS.values():
        counts[dataset.task_type] = counts.get(dataset.task_type, 0) + 1
    assert counts == {"ASR": 9, "SQA": 4, "SI": 2, "AQA": 3, "AC": 2, "ER": 3, "AR": 1, "GR": 2}  # paper Table 1


def test_long_recordings_are_cut_at_the_window_and_log_their_cut_points(tmp_path):
    long = tone(70.0, seed=3)
    write_audiobench(tmp_path, "earnings21_test", [{"audio": long, "instruction": "x", "answer": "the whole talk"},
                                                  {"audio": tone(5.0), "instruction": "x", "answer": "short"}])
    docs = _load(tmp_path, "earnings21_test")
    chunks = [d for d in docs if d["row"] == 0]
    assert [(d["chunk_index"], d["chunk_count"], d["audio_start"], d["audio_end"]) for d in chunks] == [
        (0, 3, 0.0, 30.0), (1, 3, 30.0, 60.0), (2, 3, 60.0, 70.0)]
    assert [d["answer"] for d in chunks] == ["the whole talk", "", ""]  # the reference rides on chunk 0
    assert len({d["instruction"] for d in chunks}) == 1  # one instruction per recording, as the toolkit
    (ref,) = utils.doc_to_audio(chunks[1])
    np.testing.assert_allclose(decoding.load(ref, 16000), long[30 * 16000 : 60 * 16000], atol=2 / 32768)
    short = [d for d in docs if d["row"] == 1]
    assert len(short) == 1 and short[0]["audio_start"] is None

    docs = _load(tmp_path, "earnings21_test", chunk_seconds=20)
    assert [(d["audio_start"], d["audio_end"]) for d in docs if d["row"] == 0] == [
        (0.0, 20.0), (20.0, 40.0), (40.0, 60.0), (60.0, 70.0)]
    with pytest.raises(audiobench.AudioBenchDataError, match="chunk_seconds=0.0 must be positive"):
        _load(tmp_path, "earnings21_test", chunk_seconds=0)
