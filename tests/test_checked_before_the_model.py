"""What a run's scoring needs besides the model, checked before the model loads (or, where only the data says it,
as the tasks load): a missing piece stops the run at once in one line naming it and the fix, never after the model
has answered (issue 51)."""

from __future__ import annotations

import pytest
from conftest import run_cli
from test_cli_errors import _one_error_line

from lm_eval_audio.metrics import installed_data, speech_to_text, text_normalizers
from lm_eval_audio.storage import cn_tn_data, wordnet_data


def test_voicebench_ifeval_without_punkt_tab_stops_before_the_model_loads(monkeypatch, tmp_path):
    import nltk

    def not_found(name, *args, **kwargs):
        raise LookupError(name)

    monkeypatch.setattr(nltk.data, "find", not_found)
    # no model at that path: this error comes first, so nothing was loaded
    line = _one_error_line(run_cli(["lm_eval", "--model", "hf-audio", "--model_args",
                                    f"pretrained={tmp_path / 'no-model-here'}", "--tasks", "voicebench_sample"]))
    assert "voicebench_sample_ifeval: IFEval's checks count sentences with nltk's punkt_tab" in line
    assert "scripts/setup.sh" in line


def test_audiobench_meteor_without_wordnet_is_named_with_its_tasks(monkeypatch):
    def missing():
        raise wordnet_data.WordNetMissing("METEOR needs WordNet: install it")

    monkeypatch.setattr(wordnet_data, "reader", missing)
    with pytest.raises(installed_data.MetricDataMissing, match="audiobench_audiocaps_test, audiobench_wavcaps_test: "
                                                               "METEOR needs WordNet"):
        installed_data.check({"audiobench_wavcaps_test": {"meteor", "judge_score"}, "audiobench_audiocaps_test":
                              {"meteor"}, "audiobench_clotho_aqa_test": {"judge_score"}})
    installed_data.check({"audiobench_clotho_aqa_test": {"judge_score"}})  # needs none: nothing asked


def test_chinese_cer_without_cn_tn_stops_as_the_task_loads(monkeypatch):
    def absent():
        raise RuntimeError("Chinese CER needs SpeechIO's cn_tn.py at /x, which is not there: run scripts/setup.sh")

    monkeypatch.setattr(cn_tn_data, "module", absent)
    text_normalizers._cn_tn.cache_clear()
    try:
        chinese = next(name for name in text_normalizers.RULES if "cn_tn" in name and "folded" not in name)
        with pytest.raises(speech_to_text.NormalizerMissing, match="Chinese CER needs SpeechIO's cn_tn.py"):
            speech_to_text.check_ready(chinese)
    finally:
        text_normalizers._cn_tn.cache_clear()
    speech_to_text.check_ready("bleu:13a")  # BLEU has no normalizer file


def test_a_judged_big_bench_audio_run_without_its_recognizer_stops_before_the_model_loads(monkeypatch):
    import importlib.util

    from lm_eval_audio.benchmarks import registry
    from lm_eval_audio.judges.judge_config import JudgeConfigError

    check = registry.of_task("bigbench_audio_sample").check_judge
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "faster_whisper" else
                        real(name, *a))
    with pytest.raises(JudgeConfigError, match="faster-whisper is not installed; Big Bench Audio's judge reads each "
                                               "question through a recognizer: install the demo extra"):
        check({})


@pytest.mark.parametrize("extra, said", [
    ([], "mmau_test write(s) the predictions for the benchmark's own evaluation server beside the results, and there "
         "is no --output_path: give --output_path FOLDER"),
    (["--output_path", "out", "--log_samples", "--predict_only"], "which --predict_only leaves out"),
])
def test_a_withheld_test_set_without_a_place_for_its_predictions_stops_before_the_data_and_the_model(extra, said,
                                                                                                     tmp_path):
    line = _one_error_line(run_cli(["lm_eval", "--model", "hf-audio", "--model_args",
                                    f"pretrained={tmp_path / 'no-model-here'}", "--tasks", "mmau_test", *extra],
                                   cwd=tmp_path))
    assert said in line
