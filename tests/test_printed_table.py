"""The table lm-eval prints for a run: what each number is, said in its row."""

from __future__ import annotations

import re

import lm_eval.utils

SMOKE = {"model": "SmolLM2-135M-Instruct (bundled smoke-test judge, not a benchmark judge)", "smoke_test": True}
REAL = {"model": "gpt-4o-mini", "smoke_test": False}


def _rows(table: str, task: str) -> list[str]:
    """The printed lines of a task's rows (its name in the first, blank in those after)."""
    lines, inside = [], False
    for line in table.splitlines():
        first = line.split("|")[1].strip(" -").removesuffix(" (synthetic sample)") \
            if line.startswith("|") and line.count("|") > 2 else ""
        inside = first == task or (inside and first == "")
        if inside:
            lines.append(line)
    return lines


def test_smoke_test_judge_numbers_are_marked_in_their_rows_and_real_ones_are_not():
    results = {
        "results": {
            "airbench_sample": {"alias": "airbench_sample", "gpt_align,none": 0.1714, "exact_match,none": 0.1429},
            "airbench_sample_foundation": {"alias": "airbench_sample_foundation", "gpt_align,none": 0.1714,
                                           "gpt_align_stderr,none": 0.0646, "exact_match,none": 0.1429},
            "airbench_sample_chat": {"alias": "airbench_sample_chat", "score,none": float("nan")},
            "audiobench_aqa": {"alias": "audiobench_aqa", "judge_score,none": 0.62},
        },
        "group_subtasks": {"airbench_sample": ["airbench_sample_foundation", "airbench_sample_chat"],
                           "audiobench_aqa": []},
        "versions": {}, "n-shot": {},
        "higher_is_better": {"airbench_sample_foundation": {"gpt_align": True, "exact_match": True}},
        "lm_eval_audio_judge": {"airbench_sample_foundation": {"judge": SMOKE}, "airbench_sample_chat": {"judge": SMOKE},
                                "audiobench_aqa": {"judge": REAL}},
    }
    table = lm_eval.utils.make_table(results)
    foundation = _rows(table, "airbench_sample_foundation")
    assert any(re.search(r"\|gpt_align *\|↑ *\|0\.1714 \(0-1; smoke-test judge\) *\|± *\|0\.0646", r) for r in foundation), table
    assert any(re.search(r"\|exact_match *\|↑ *\|0\.1429 \(0-1\) *\|", r) for r in foundation), table  # a rule: no mark
    assert any("|score " in r and "NaN (smoke-test judge)" in r for r in _rows(table, "airbench_sample_chat")), table
    assert any("0.1714 (0-1; smoke-test judge)" in r for r in _rows(table, "airbench_sample")), table  # the group's copy
    assert any(re.search(r"\|judge_score *\|[^|]*\|0\.6200 \(0-100\) *\|", r) for r in _rows(table, "audiobench_aqa")), table
    assert results["results"]["airbench_sample_foundation"]["gpt_align,none"] == 0.1714  # the results keep numbers


def test_the_table_says_which_average_airbench_rows_are():
    results = {"results": {"airbench_sample_foundation": {"alias": "airbench_sample_foundation",
                                                          "exact_match,none": 0.1429}},
               "versions": {}, "n-shot": {}, "higher_is_better": {}}
    table = lm_eval.utils.make_table(results)
    assert table.rstrip().endswith("AIR-Bench: each row is lm-eval's mean over items (a group's over all its items); "
                                   "the paper's Table 3 averages categories, each the mean of its tasks: "
                                   "`lm-eval-audio report` gives those"), table
    assert "AIR-Bench" not in lm_eval.utils.make_table({**results, "results": {"spoken_digits": {"acc,none": 0.5}}})



def test_each_number_says_its_scale():
    results = {"results": {
        "fleurs_asr_sample_en_us": {"alias": "fleurs_asr_sample_en_us", "wer,none": 12.8889, "wer_stderr,none": "N/A"},
        "covost2_sample_en_ja": {"alias": "covost2_sample_en_ja", "bleu,none": 25.0},
        "voicebench_sample_advbench": {"alias": "voicebench_sample_advbench", "leaderboard_score,none": 50.0,
                                       "refusal_rate,none": 0.5},
        "airbench_sample_chat": {"alias": "airbench_sample_chat", "score,none": 6.5},
        "clotho_caption_sample": {"alias": "clotho_caption_sample", "cider_d,none": 1.25, "spice,none": 0.12,
                                  "sample_len": 3},
    }, "versions": {}, "n-shot": {}, "higher_is_better": {}}
    table = lm_eval.utils.make_table(results)
    assert re.search(r"\|wer *\|[^|]*\|12\.8889 \(fraction; 1288\.89 %\) *\|", table), table
    assert "|25.0000 (0-100)" in table and "|50.0000 (0-100)" in table and "|6.5000 (1-10)" in table, table
    assert re.search(r"\|refusal_rate *\|[^|]*\|0\.5000 \(0-1\) *\|", table), table  # a fraction of 1, said so
    assert "|1.2500 (0-10)" in table and "|0.1200 (0-1)" in table, table  # CIDEr-D x10, as coco-caption gives it


def test_every_nan_in_the_table_has_its_reason_under_it():
    from lm_eval_audio.harness.run_patches import RunResults
    from lm_eval_audio.metrics.task_scoring import TaskScoring

    commoneval = TaskScoring("voicebench_sample_commoneval")
    commoneval.not_a_number("leaderboard_score", "no judge is configured: set X", said=True)
    results = RunResults({"results": {
        "voicebench_sample": {"alias": "voicebench_sample", "leaderboard_score,none": float("nan")},
        "voicebench_sample_commoneval": {"alias": " - commoneval", "leaderboard_score,none": float("nan")},
        "mmsu_sample": {"alias": "mmsu_sample", "official_acc,none": float("nan")},
    }, "group_subtasks": {"voicebench_sample": ["voicebench_sample_commoneval"]},
        "versions": {}, "n-shot": {}, "higher_is_better": {}}, {commoneval.name: commoneval}, None)
    table = lm_eval.utils.make_table(results)
    reasons = table[table.index("NaN in the table above, why:"):]
    assert "  voicebench_sample_commoneval leaderboard_score: no judge is configured: set X" in reasons, table
    assert ("  voicebench_sample leaderboard_score: from voicebench_sample_commoneval: no judge is configured: set X"
            in reasons), table
    assert "  mmsu_sample official_acc: nothing was scored for it" in reasons, table  # no reason given: said so


def test_each_row_names_its_benchmark_and_a_synthetic_sample_says_so():
    """A task's YAML alias ("sound") names no benchmark: its whole name is printed, in the counts table too."""
    results = {"results": {
        "mmau_sample": {"alias": "mmau_sample", "official_acc,none": 0.5},
        "mmau_sample_sound": {"alias": " - sound", "official_acc,none": 0.5, "audio_missing,none": 0},
        "mmau_test_mini_sound": {"alias": "sound", "official_acc,none": 0.25, "audio_missing,none": 1},
    }, "group_subtasks": {"mmau_sample": ["mmau_sample_sound"]}, "versions": {}, "n-shot": {}, "higher_is_better": {}}
    table = lm_eval.utils.make_table(results)
    first_cells = [line.split("|")[1] for line in table.splitlines() if line.startswith("|") and "official_acc" in line]
    assert [c.strip() for c in first_cells] == ["mmau_sample (synthetic sample)", "- mmau_sample_sound (synthetic sample)",
                                                "mmau_test_mini_sound"], table
    assert "|mmau_test_mini_sound|1|" in table and "|mmau_sample_sound (synthetic sample)|0|" in table, table


def test_rows_that_could_be_misread_say_what_their_numbers_are():
    results = {"results": {
        "gtzan_sample_genre": {"alias": "gtzan_sample_genre", "acc,none": 0.0, "label_in_answer,none": 0.8},
        "voicebench_sample_bbh": {"alias": "voicebench_sample_bbh", "official_acc,none": 0.5,
                                  "leaderboard_score,none": 50.0, "unread_rate,none": 1.0},
        "voicebench_sample_openbookqa": {"alias": "voicebench_sample_openbookqa", "official_acc,none": 0.5,
                                         "unread_rate,none": 0.0},
        "openaudiobench_sample_trivia_qa": {"alias": "openaudiobench_sample_trivia_qa", "judge_score,none": 0.0,
                                            "judge_failures,none": 2},
    }, "versions": {}, "n-shot": {}, "higher_is_better": {}}
    table = lm_eval.utils.make_table(results)
    notes = table[table.index("What the rows above are:"):].split("\n\n")[0]
    assert ("  gtzan_sample_genre (synthetic sample): acc 0.0000 is UltraEval-Audio's reading, which needs the answer to "
            "begin with its genre: 80% of the answers name their genre after something else") in notes, table
    assert ("  voicebench_sample_bbh (synthetic sample): every answer read no option: official_acc and "
            "leaderboard_score score them with VoiceBench's random fallback option") in notes, table
    assert "(so official_acc is chance alone)" in notes and "voicebench_sample_openbookqa" not in notes, table
    assert ("  openaudiobench_sample_trivia_qa (synthetic sample): 2 item(s) got no readable verdict (judge_failures): "
            "a reply that came and could not be read counts as a wrong answer in judge_score") in notes, table
