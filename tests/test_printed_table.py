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
        first = line.split("|")[1].strip(" -") if line.startswith("|") and line.count("|") > 2 else ""
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
    assert any(re.search(r"\|gpt_align *\|↑ *\|0\.1714 \(smoke-test judge\) *\|± *\|0\.0646", r) for r in foundation), table
    assert any(re.search(r"\|exact_match *\|↑ *\|0\.1429 *\|", r) for r in foundation), table  # a rule: no mark
    assert any("|score " in r and "NaN (smoke-test judge)" in r for r in _rows(table, "airbench_sample_chat")), table
    assert any("0.1714 (smoke-test judge)" in r for r in _rows(table, "airbench_sample")), table  # the group's copy
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



def test_each_number_says_its_scale_where_it_is_no_fraction_of_one():
    results = {"results": {
        "fleurs_asr_sample_en_us": {"alias": "fleurs_asr_sample_en_us", "wer,none": 12.8889, "wer_stderr,none": "N/A"},
        "covost2_sample_en_ja": {"alias": "covost2_sample_en_ja", "bleu,none": 25.0},
        "voicebench_sample_advbench": {"alias": "voicebench_sample_advbench", "leaderboard_score,none": 50.0,
                                       "refusal_rate,none": 0.5},
        "airbench_sample_chat": {"alias": "airbench_sample_chat", "score,none": 6.5},
    }, "versions": {}, "n-shot": {}, "higher_is_better": {}}
    table = lm_eval.utils.make_table(results)
    assert re.search(r"\|wer *\|[^|]*\|12\.8889 \(fraction; 1288\.89 %\) *\|", table), table
    assert "|25.0000 (0-100)" in table and "|50.0000 (0-100)" in table and "|6.5000 (1-10)" in table, table
    assert re.search(r"\|refusal_rate *\|[^|]*\|0\.5000 *\|", table), table  # a fraction of 1: as lm-eval prints it


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
