"""Check the Chinese, Cantonese, English and other-language error-rate rules (``lm_eval_audio.metrics``) against
Qwen2-Audio's own ``eval_audio/evaluate_asr.py``, run from a checkout of QwenLM/Qwen2-Audio:

    git clone https://github.com/QwenLM/Qwen2-Audio /tmp/Qwen2-Audio      # read at 595360e
    .venv/bin/pip install editdistance
    .venv/bin/python scripts/check_asr_rules_against_qwen2_audio.py /tmp/Qwen2-Audio

Its ``remove_sp`` and ``compute_wer`` are taken out of the script (which imports torch and a model at its top) and
run with its own ``cn_tn.py``, vendored Whisper normalizers and ``evaluate_tokenizer.py``, one pair at a time, on
2,000 pairs made from the sentences below, each perturbed (characters dropped, inserted, replaced; seeded). Prints
the disagreements in edits or reference length, and exits 1 if there is one.
"""

from __future__ import annotations

import ast
import random
import sys
from pathlib import Path

MANDARIN = ["我买了3个苹果。", "今天是2024年3月5日，天气很好！", "价格上涨了12.5%，达到100元。", "请拨打13812345678联系我们",
            "我们下午三点开会讨论OK吗", "iPhone 15 Pro发布了", "甚至出现交易几乎停滞的情况", "这并不是告别。这是一个篇章的结束",
            "他跑了1/3的路程", "共有10000人参加", "第3.14名", "P2P平台很多", "電話是010-12345678", "温度是-5度",
            "《红楼梦》是一本书", "“你好，”他说。", "１２３ＡＢＣ全角", "２０２０年的事情", "Hello世界", "这个、那个；还有：什么？"]
ENGLISH = ["Hello, World! It's 25% of $3.", "Mr. Smith colours the wall, uh, red.", "I'm gonna go home at 5 p.m.",
           "The 1st and 2nd places went to Dr. Who.", "We'll see you in twenty-five minutes!",
           "(laughs) That's not it [noise].", "He said: \"don't\" - twice.", "It costs £10.50 or 3,000 yen.",
           "Um, the U.S.A. is big.", "Colour, flavour and honour."]
OTHER = ["Bonjour, ça va ? (rires) Très bien.", "¿Qué tal, señor Pérez?", "Straße und Größe, München!",
         "Привет, как дела?", "Καλημέρα κόσμε!", "नमस्ते दुनिया।", "こんにちは、世界！", "สวัสดีครับ"]
CANTONESE = ["這是一個測試，好嗎？", "佢哋去咗邊度？", "今日天氣好好。", "我哋聽日見！"]
RULES = {"zh": "cn_tn_chars", "yue": "yue_simplified_chars", "en": "whisper_english_basic", "fr": "whisper_basic"}


def pairs(seed: int = 0, per_language: int = 500) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)

    def perturb(s: str) -> str:
        chars = list(s)
        for _ in range(rng.randint(0, 3)):
            op, i = rng.random(), rng.randrange(len(chars) + 1)
            if op < 0.3 and chars:
                del chars[min(i, len(chars) - 1)]
            elif op < 0.6:
                chars.insert(i, rng.choice(list("，。 ,.!?的a1５")))
            elif chars:
                chars[min(i, len(chars) - 1)] = rng.choice(list("好的了3x"))
        return "".join(chars)

    out = []
    for language, pool in (("zh", MANDARIN), ("en", ENGLISH), ("fr", OTHER), ("yue", CANTONESE)):
        for _ in range(per_language):
            reference = rng.choice(pool)
            out.append((reference, perturb(reference) if rng.random() < 0.8 else rng.choice(pool), language))
    return out


def reference_counts(checkout: Path):
    """Qwen2-Audio's ``remove_sp`` and ``compute_wer``, loaded from the checkout, as ``(ref, hyp, lang) -> (edits,
    length)``."""
    import sacrebleu.tokenizers

    # evaluate_tokenizer.py was written for sacrebleu 1.x, whose TOKENIZERS["none"] returns the text as it is
    sacrebleu.tokenizers.TOKENIZERS = {"none": lambda: (lambda text: text)}
    folder = checkout / "eval_audio"
    sys.path.insert(0, str(folder))
    script = (folder / "evaluate_asr.py").read_text(encoding="utf-8")
    tree = ast.parse(script)
    keep = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
            and not any(a.name.split(".")[0] in ("torch", "transformers", "requests", "tqdm") for a in n.names)
            and getattr(n, "module", "") not in ("transformers", "transformers.pipelines.audio_utils", "tqdm")]
    keep += [n for n in tree.body if isinstance(n, ast.Assign) and any(
        getattr(t, "id", "") in ("english_normalizer", "chinese_normalizer", "basic_normalizer", "PUNCS")
        for t in n.targets)]
    keep += [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in ("remove_sp", "compute_wer")]
    namespace: dict = {}
    exec(compile(ast.Module(body=keep, type_ignores=[]), str(folder / "evaluate_asr.py"), "exec"), namespace)
    import editdistance

    def counts(reference: str, hypothesis: str, language: str) -> tuple[int, int]:
        ref, hyp = namespace["remove_sp"](reference, language), namespace["remove_sp"](hypothesis, language)
        captured = {}
        real_eval = editdistance.eval

        def spy(a, b):
            captured["length"] = len(a)
            return real_eval(a, b)

        namespace["ed"].eval = spy
        try:
            rate = namespace["compute_wer"]([ref], [hyp], language)
        finally:
            namespace["ed"].eval = real_eval
        return round(rate * captured["length"]), captured["length"]

    return counts


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not (Path(argv[0]) / "eval_audio" / "evaluate_asr.py").is_file():
        print(__doc__)
        return 2
    from contextlib import redirect_stdout
    from io import StringIO

    from lm_eval_audio.metrics import error_rates

    official = reference_counts(Path(argv[0]))
    checked = pairs()
    disagree = []
    for reference, hypothesis, language in checked:
        with redirect_stdout(StringIO()):  # compute_wer prints its first item
            theirs = official(reference, hypothesis, language)
        ours = error_rates.counts(reference, hypothesis, RULES[language])
        if (ours.errors, ours.length) != theirs:
            disagree.append((reference, hypothesis, language, (ours.errors, ours.length), theirs))
    for row in disagree[:20]:
        print("disagree:", row)
    print(f"{len(checked)} pairs, {len(disagree)} disagreements")
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
