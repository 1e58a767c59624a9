"""google/fleurs in its parquet conversion (``<lang>/test-*.parquet``, or ``<lang>/test/*.parquet`` on the
refs/convert/parquet branch; the columns fleurs.py's features: id, num_samples, path, audio, transcription,
raw_transcription, gender, lang_id, language, lang_group_id): tasks/fleurs and tasks/fleurs_s2tt read it as they
read the script's transcript and archive, from a local copy and from the Hub, fetching only the shards they need."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest
from conftest import stand_in_hub

from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.speech_sets import SpeechDataError, doc_to_audio
from lm_eval_audio.tasks.fleurs import data as fleurs
from lm_eval_audio.tasks.fleurs_s2tt import data as s2tt
from lm_eval_audio.testing.synthetic_audio import write_audio_parquet

KEPT = ("uniq_id", "reference", "sentence_id", "language", "scoring", "prompt")
ASR_KEPT = (*KEPT, "raw_transcription", "gender")


def parquet_copy(sample: Path, out: Path, shard: str = "{language}/test-00000-of-00001.parquet") -> Path:
    """The sample's languages as the conversion holds them: each transcript row with its clip's bytes, the columns
    in fleurs.py's features order, gender and the language ids as their class numbers, each Audio cell's path the
    archive member's ("test/<file_name>", as fleurs.py's _generate_examples gives it)."""
    for tsv in sorted(sample.glob("data/*/test.tsv")):
        language = tsv.parent.name
        with tarfile.open(tsv.parent / "audio" / "test.tar.gz") as tar:
            clips = {Path(m.name).name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
        rows = []
        for line in tsv.read_text(encoding="utf-8").split("\n"):
            if not line.strip():
                continue
            sentence, name, raw, text, _, samples, gender = line.strip().split("\t")
            rows.append({"id": int(sentence), "num_samples": int(samples), "path": None,
                         "audio": {"bytes": clips[name], "path": f"test/{name}"}, "transcription": text,
                         "raw_transcription": raw, "gender": fleurs.GENDERS.index(gender),
                         "lang_id": fleurs.LANGUAGES.index(language), "language": fleurs.ENGLISH_NAMES[language],
                         "lang_group_id": 0})
        write_audio_parquet(out / shard.format(language=language), rows)
    return out


def _kept(docs: list[dict], keys=KEPT) -> list[tuple]:
    return [tuple(d[k] for k in keys) for d in docs]


@pytest.mark.parametrize("shard", ["{language}/test-00000-of-00001.parquet", "{language}/test/0000.parquet"])
def test_the_conversion_gives_the_documents_the_transcript_gives(tmp_path, monkeypatch, shard):
    copy = parquet_copy(fleurs.SPEC.folder / "sample_data", tmp_path / "parquet", shard)
    assert not list(copy.rglob("*.tsv"))
    monkeypatch.setenv(fleurs.SPEC.variable, str(copy))
    for language in ("en_us", "cmn_hans_cn", "ja_jp"):
        from_tsv = fleurs.load_docs(language, {}, True, notes=DataNotes())
        from_parquet = fleurs.load_docs(language, {}, False, notes=DataNotes())
        assert _kept(from_parquet, ASR_KEPT) == _kept(from_tsv, ASR_KEPT)
        assert all(d["audio_table"] and not d["audio_problem"] for d in from_parquet)
        assert doc_to_audio(from_parquet[0]) == [{"table": from_parquet[0]["audio_table"], "row": 0, "column": "audio"}]


def test_translation_pairs_the_same_on_the_conversion(tmp_path, monkeypatch):
    copy = parquet_copy(s2tt.SPEC.folder / "sample_data", tmp_path / "parquet")
    monkeypatch.setenv(s2tt.SPEC.variable, str(copy))
    for direction in ("en_zh", "zh_en", "fr_en"):
        assert _kept(s2tt.load_docs(direction, {}, False, notes=DataNotes()), (*KEPT, "source_text")) == _kept(
            s2tt.load_docs(direction, {}, True, notes=DataNotes()), (*KEPT, "source_text"))


def test_a_shard_without_a_column_names_the_file_and_the_fix(tmp_path, monkeypatch):
    bad = tmp_path / "parquet" / "en_us" / "test-00000-of-00001.parquet"
    write_audio_parquet(bad, [{"id": 1, "audio": {"bytes": b"RIFF", "path": "a.wav"}, "transcription": "a"}])
    monkeypatch.setenv(fleurs.SPEC.variable, str(tmp_path / "parquet"))
    with pytest.raises(SpeechDataError, match=r"test-00000-of-00001.parquet lacks the column\(s\) raw_transcription, "
                                              r"gender .*download it again"):
        fleurs.load_docs("en_us", {}, False, notes=DataNotes())


def test_from_the_hub_only_the_languages_shards_are_fetched_and_the_commit_recorded(tmp_path, monkeypatch):
    fleurs_copy = parquet_copy(fleurs.SPEC.folder / "sample_data", tmp_path / "fleurs")
    with stand_in_hub({fleurs.SPEC.repo: fleurs_copy}, tmp_path / "hub_cache", monkeypatch,
                      (fleurs.SPEC.variable,)) as hub:
        notes = DataNotes()
        docs = fleurs.load_docs("cmn_hans_cn", {}, False, notes=notes)
        assert [d["sentence_id"] for d in docs] == ["2001", "2002"]
        served = [e["path"].split("/resolve/", 1)[1].split("/", 1)[1] for e in hub.downloads()]
        assert served == ["cmn_hans_cn/test-00000-of-00001.parquet"]
        record = notes.entries["sources"]["FLEURS cmn_hans_cn"]
        assert record["repo_id"] == "google/fleurs" and len(record["commit"]) == 40


def test_a_translation_direction_fetches_the_two_languages_shards_only(tmp_path, monkeypatch):
    copy = parquet_copy(s2tt.SPEC.folder / "sample_data", tmp_path / "s2tt")
    with stand_in_hub({s2tt.SPEC.repo: copy}, tmp_path / "hub_cache", monkeypatch, (s2tt.SPEC.variable,)) as hub:
        docs = s2tt.load_docs("fr_en", {}, False, notes=DataNotes())
        assert [d["reference"] for d in docs] == ["The weather is nice today.", "I like green tea."]
        served = sorted(e["path"].split("/resolve/", 1)[1].split("/", 1)[1] for e in hub.downloads())
        assert served == ["en_us/test-00000-of-00001.parquet", "fr_fr/test-00000-of-00001.parquet"]



def test_a_shard_whose_audio_cells_are_not_audio_cells_is_refused_naming_it(tmp_path, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    copy = parquet_copy(fleurs.SPEC.folder / "sample_data", tmp_path / "parquet")
    shard = copy / "en_us" / "test-00000-of-00001.parquet"
    table = pq.read_table(shard)
    bytes_only = pa.array([{"bytes": c["bytes"]} for c in table.column("audio").to_pylist()],
                          pa.struct([("bytes", pa.binary())]))
    pq.write_table(table.set_column(table.schema.get_field_index("audio"), "audio", bytes_only), shard)
    monkeypatch.setenv(fleurs.SPEC.variable, str(copy))
    with pytest.raises(SpeechDataError, match=r"test-00000-of-00001.parquet: its audio column is not an Audio cell"):
        fleurs.load_docs("en_us", {}, False, notes=DataNotes())
