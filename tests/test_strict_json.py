"""Results written as strict JSON: no bare NaN or Infinity, each null with its reason beside it."""

from __future__ import annotations

import json

from lm_eval_audio.storage.strict_json import strict_results


def test_results_written_as_strict_json_keep_each_nulls_reason():
    results = {"results": {"g": {"score,none": float("nan"), "score_stderr,none": float("nan")},
                           "chat": {"score,none": float("nan"), "acc,none": 0.5},
                           "other": {"bleu,none": float("inf")}},
               "group_subtasks": {"g": ["chat"]}}
    clean = strict_results(results, {"chat": {"score": "the judge scored none of the 6 item(s)"}})
    text = json.dumps(clean, allow_nan=False)  # raises on a bare NaN or Infinity
    assert json.loads(text)["results"]["chat"] == {"score,none": None, "acc,none": 0.5}
    assert clean["lm_eval_audio_null_reasons"] == {
        "results.g.score,none": "from chat: the judge scored none of the 6 item(s)",
        "results.g.score_stderr,none": "no standard error could be taken of score",
        "results.chat.score,none": "the judge scored none of the 6 item(s)",
        "results.other.bleu,none": "not a number: nothing was scored for it (the run's log says why)",
    }
    assert results["results"]["chat"]["score,none"] != results["results"]["chat"]["score,none"]  # the run's own: NaN
