"""The shared text normalizations, error rates and BLEU (lm_eval_audio.metrics), on hand-made pairs: Chinese CER
after SpeechIO's cn_tn as Qwen2-Audio's evaluate_asr.py computes it, Japanese BLEU against sacrebleu's own
ja-mecab, English and non-English normalization."""

from __future__ import annotations

import hashlib
import math

import pytest
import sacrebleu
from conftest import task_scoring

from lm_eval_audio.metrics import bleu, error_rates, speech_to_text, text_normalizers
from lm_eval_audio.storage import cn_tn_data

# (reference, answer, Qwen2-Audio's language) and the (edits, reference units) Qwen2-Audio's own evaluate_asr.py
# gives them (QwenLM/Qwen2-Audio@595360e: remove_sp, then compute_wer with its cn_tn.py, whisper_normalizer and
# evaluate_tokenizer.py, run on this machine; 2,000 perturbed pairs agreed too, docs/ASR_AND_TRANSLATION.md).
OFFICIAL = [
    ("我买了3个苹果。", "我买了三个苹果", "zh", (0, 7)),
    ("今天是2024年3月5日，天气很好！", "今天是二零二四年三月五日天气很好", "zh", (0, 16)),
    ("价格上涨了12.5%，达到100元。", "价格上涨了百分之十二点五达到一百元", "zh", (0, 17)),
    ("请拨打13812345678联系我们", "请拨打一三八一二三四五六七八联系我们", "zh", (0, 18)),
    ("我们下午三点开会讨论OK吗", "我们下午3点开会讨论ok吗", "zh", (0, 13)),
    ("iPhone 15 Pro发布了", "iphone十五pro发布了", "zh", (0, 14)),
    ("甚至出现交易几乎停滞的情况", "甚至出现交易几乎停止的情况。", "zh", (1, 13)),
    ("这 并 不 是 告 别", "這並不是告別", "zh", (3, 6)),  # Mandarin is not converted to simplified
    ("<|zh|>你好 ， 世界 ！", "你好世界", "zh", (0, 4)),
    ("這是一個測試，好嗎？", "这是一个测试好吗", "yue", (0, 8)),
    ("佢哋去咗邊度？", "佢地去咗边度", "yue", (1, 6)),
    ("Hello, World! It's 25% of $3.", "hello world it is twenty five percent of three dollars", "en", (0, 7)),
    ("Mr. Smith colours the wall, uh, red.", "mister smith colors the wall red", "en", (0, 6)),
    ("I'm gonna go <|en|>", "i am going to go", "en", (0, 5)),
    ("Bonjour, ça va ? (rires) Très bien.", "bonjour ca va tres bien", "fr", (2, 5)),
    ("¿Qué tal, señor Pérez?", "que tal senor perez", "es", (3, 4)),
]
RULE = {"zh": "cn_tn_chars", "yue": "yue_simplified_chars", "en": "whisper_english_basic", "fr": "whisper_basic",
        "es": "whisper_basic"}


@pytest.mark.parametrize("reference,answer,language,expected", OFFICIAL)
def test_error_counts_are_qwen2_audio_evaluate_asr_py(reference, answer, language, expected):
    got = error_rates.counts(reference, answer, RULE[language])
    assert (got.errors, got.length) == expected


def test_a_chinese_pair_is_scored_by_characters_with_numbers_read_out():
    # 我买了3个苹果 / 我买了四个苹果: the digit is read 三 first, so one substitution over seven characters
    assert error_rates.counts("我买了3个苹果。", "我买了四个苹果", "cn_tn_chars") == error_rates.Counts(1, 7)
    assert text_normalizers.cn_tn("今天是2024年3月5日，") == "今天是二零二四年三月五日"
    # a word error rate on the same unsegmented text counts the whole sentence as one word: the number that looks
    # right and is not
    assert error_rates.counts("我买了3个苹果。", "我买了四个苹果", "whisper_basic") == error_rates.Counts(1, 1)


def test_the_chinese_normalizer_is_the_pinned_cn_tn_and_says_how_to_install_it(tmp_path, monkeypatch):
    assert hashlib.sha256(cn_tn_data.default_path().read_bytes()).hexdigest() == cn_tn_data.SHA256
    monkeypatch.setattr(cn_tn_data, "default_path", lambda: tmp_path / "cn_tn.py")
    cn_tn_data.module.cache_clear()
    try:
        with pytest.raises(RuntimeError, match=r"pip download --no-deps lmms_eval==0.7.3 .*cn_tn_data"):
            cn_tn_data.module()
        (tmp_path / "cn_tn.py").write_text("TextNorm = None\n")
        with pytest.raises(RuntimeError, match="is not the cn_tn.py this plugin pins"):
            cn_tn_data.module()
    finally:
        cn_tn_data.module.cache_clear()


def test_english_and_other_languages_are_normalized_as_whisper_does():
    assert text_normalizers.whisper_english_basic("Mr. Smith colours it, uh, red!") == "mister smith colors it red"
    # the basic normalizer keeps letters with diacritics and drops punctuation, brackets and case
    assert text_normalizers.whisper_basic("¿Qué tal? [ruido] Año (risas) NUEVO") == "qué tal año nuevo"
    # scored by characters, Japanese is not one word per sentence
    assert error_rates.counts("今日はいい天気です。", "今日は良い天気です", "whisper_basic_chars") == error_rates.Counts(1, 9)


def test_japanese_bleu_is_sacrebleus_own_ja_mecab_and_not_13a():
    hyps, refs = ["今日は良い天気ですね。", "私は緑茶が好きです。"], ["今日はいい天気ですね。", "私は緑茶が大好きです。"]
    tokenize = bleu.tokenizer_for("ja")
    assert tokenize == "ja-mecab"
    ours = bleu.corpus_bleu(hyps, refs, tokenize)
    assert ours == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs], tokenize="ja-mecab").score)
    assert ours != pytest.approx(sacrebleu.corpus_bleu(hyps, [refs], tokenize="13a").score)
    assert "tok:ja-mecab" in bleu.signature(tokenize) and "nrefs:1" in bleu.signature(tokenize)


def test_target_languages_get_their_tokenizer():
    assert [bleu.tokenizer_for(x) for x in ("zh", "zh-CN", "ja", "de", "en")] == ["zh", "zh", "ja-mecab", "13a", "13a"]
    hyps, refs = ["我喜欢喝绿茶。"], ["我喜欢绿茶。"]
    assert bleu.corpus_bleu(hyps, refs, "zh") == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs], tokenize="zh").score)
    assert math.isnan(bleu.corpus_bleu([], [], "13a"))


def _item(doc_id, reference, response, scoring="whisper_english", missing=False):
    doc = {"doc_id": doc_id, "reference": reference, "scoring": scoring, "audio_problem": "gone" if missing else ""}
    return speech_to_text.process_results(doc, [response])


def test_error_rate_is_corpus_level_over_the_heard_items():
    items = [_item(0, "the cat sat on the mat", "the cat sat on mat")["wer"],  # 1 edit / 6 words
             _item(1, "a b c", "a x c d")["wer"],  # 2 edits / 3 words
             _item(2, "never heard", "", missing=True)["wer"]]  # no clip: counted apart, not scored
    task = task_scoring("speech")
    assert speech_to_text.error_rate(items, task) == pytest.approx(3 / 9)
    assert _item(3, "x", "y", missing=True)["audio_missing"] == 1.0
    assert set(_item(4, "我", "我", "cn_tn_chars")) == {"cer", "audio_missing"}
    with pytest.raises(ValueError, match="scored by different rules"):
        speech_to_text.error_rate([items[0], _item(5, "我", "我", "cn_tn_chars")["cer"]], task)


def test_bleu_items_are_scored_as_one_corpus_and_described_with_their_signature():
    items = [_item(0, "我喜欢绿茶。", "我喜欢绿茶。", "bleu:zh")["bleu"], _item(1, "今天天气很好。", "今天很好。", "bleu:zh")["bleu"]]
    assert speech_to_text.bleu(items, task_scoring("st")) == pytest.approx(
        sacrebleu.corpus_bleu(["我喜欢绿茶。", "今天很好。"], [["我喜欢绿茶。", "今天天气很好。"]], tokenize="zh").score)
    assert speech_to_text.describe("bleu:zh").startswith("corpus BLEU, sacrebleu nrefs:1|case:mixed|eff:no|tok:zh")
    assert speech_to_text.describe("cn_tn_chars").startswith("cn_tn_chars: corpus CER")
    with pytest.raises(ValueError, match="no text normalization rule 'chinese'"):
        speech_to_text.metric_of("chinese")


def test_the_folded_chinese_rule_is_asked_for_by_name_and_forgives_width_and_script_only():
    reference, answer = "我们开会讨论OK吗", "我們開會討論ＯＫ嗎"  # traditional characters, full-width letters
    assert error_rates.counts(reference, answer, "cn_tn_chars") == error_rates.Counts(8, 9)  # the reference's rule
    assert error_rates.counts(reference, answer, "cn_tn_folded_chars") == error_rates.Counts(0, 9)
    assert error_rates.counts(reference, "我們開會討論ＯＫ", "cn_tn_folded_chars") == error_rates.Counts(1, 9)
