"""A failed item is never scored right: a multiple-choice document whose clip cannot be decoded is wrong in every
metric, wherever its right answer stands, and the printed count line says how it was scored."""

from __future__ import annotations

import json
import shutil
import warnings

import numpy as np
import pytest
from conftest import REPO, results_json, run_cli

from lm_eval_audio.harness.failed_scoring import wrong_choice_scores
from lm_eval_audio.model_wrappers.failed_requests import FailedScore


def test_the_readme_multiple_choice_example_scores_a_failed_item_wrong_at_any_position(tiny_qwen2_audio, tmp_path):
    folder = tmp_path / "examples" / "spoken_qa"
    shutil.copytree(REPO / "examples" / "spoken_qa", folder)
    (folder / "audio" / "clip_03.wav").write_bytes(b"RIFF" + bytes(range(256)) * 8)  # corrupt: cannot be decoded
    rows = [json.loads(line) for line in (folder / "spoken_qa_mc.jsonl").read_text().splitlines()]
    corrupt = rows[3]
    # The failed clip three more times, its right answer first, second and last.
    for gold in (0, 1, 3):
        choices = ["coffee", "milk", "juice"]
        choices.insert(gold, "tea")
        rows.append({**corrupt, "choices": choices, "label": gold})
    (folder / "spoken_qa_mc.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        proc = run_cli(["lm_eval", "--model", "hf-audio", "--model_args", f"pretrained={tiny_qwen2_audio}",
                        "--tasks", "spoken_qa_mc", "--include_path", "examples/spoken_qa", "--batch_size", "4",
                        "--output_path", "out", "--log_samples"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)], [str(w.message) for w in caught]
    assert "invalid value encountered" not in proc.stderr
    samples = [json.loads(x) for x in next((tmp_path / "out").rglob("samples_spoken_qa_mc_*.jsonl")).read_text()
               .splitlines()]
    by_doc = {s["doc_id"]: s for s in samples}
    for doc_id in (3, 6, 7, 8):  # the corrupt clip, its right answer at positions 0, 0, 1 and 3
        assert by_doc[doc_id]["acc"] == 0.0 and by_doc[doc_id]["acc_norm"] == 0.0, by_doc[doc_id]
    res = results_json(tmp_path / "out")
    answered = [by_doc[d]["acc"] for d in (0, 1, 2, 4, 5)]
    assert res["results"]["spoken_qa_mc"]["acc,none"] == pytest.approx(sum(answered) / 9)
    assert sorted(res["lm_eval_audio_data"]["failed_requests"]) == [f"spoken_qa_mc/doc {d}" for d in (3, 6, 7, 8)]
    assert "|spoken_qa_mc|4|" in proc.stdout, proc.stdout
    assert "failed_items: 4 item(s) in spoken_qa_mc whose request failed for good were scored wrong" in proc.stdout


@pytest.mark.parametrize("model", ["hf-audio", "cascade"])
def test_a_missing_clip_fails_its_requests_alone_in_generation_and_multiple_choice(model, tiny_qwen2_audio, tmp_path):
    """A clip the JSONL names and the disk lacks is a failed request, counted, as a corrupt one is, in either
    request type, with --use_cache too (its key is the clip's content); the other documents are answered."""
    shutil.copytree(REPO / "examples" / "spoken_qa", tmp_path / "examples" / "spoken_qa")
    (tmp_path / "examples" / "spoken_qa" / "audio" / "clip_03.wav").unlink()
    model_args = ["--model_args", f"pretrained={tiny_qwen2_audio},max_new_tokens=4"] if model == "hf-audio" else []
    proc = run_cli(["lm_eval", "--model", model, *model_args, "--tasks", "spoken_qa,spoken_qa_mc", "--include_path",
                    "examples/spoken_qa", "--limit", "4", "--batch_size", "4", "--use_cache", "cache/answers",
                    "--output_path", "out"], cwd=tmp_path,
                   env_extra={"LM_EVAL_AUDIO_TRANSCRIPT_CACHE": str(tmp_path / "t.sqlite")})
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = results_json(tmp_path / "out")
    assert sorted(res["lm_eval_audio_data"]["failed_requests"]) == ["spoken_qa/doc 3", "spoken_qa_mc/doc 3"]
    reasons = {str(v) for v in res["lm_eval_audio_data"]["failed_requests"].values()}
    assert any("audio file not found" in r and "clip_03.wav" in r for r in reasons), reasons
    assert res["n-samples"]["spoken_qa_mc"]["effective"] == 4
    assert "|spoken_qa|1|" in proc.stdout and "|spoken_qa_mc|1|" in proc.stdout
    assert "failed_items: 2 item(s) in spoken_qa, spoken_qa_mc whose request failed for good were scored wrong" in \
        proc.stdout


class _Task:
    """What ``wrong_choice_scores`` reads of a task, as lm-eval's ``ConfigurableTask`` has it."""

    OUTPUT_TYPE = "multiple_choice"

    def __init__(self, choices, target, multiple_input=0):
        self.choices, self.target, self.multiple_input = choices, target, multiple_input

    def doc_to_choice(self, doc):
        return self.choices

    def doc_to_target(self, doc):
        return self.target

    def doc_to_text(self, doc):
        return self.target


@pytest.mark.parametrize("target", [0, 2, "c", [1, 3]])
def test_every_reading_of_the_scores_lands_on_a_wrong_choice(target):
    choices = ["a", "bb", "c", "dddd"]
    failed = [FailedScore("clip cannot be decoded")] * len(choices)
    scores = wrong_choice_scores(_Task(choices, target), {}, failed)
    right = {choices.index(t) if isinstance(t, str) else t for t in (target if isinstance(target, list) else [target])}
    lls = np.array([ll for ll, _ in scores])
    with np.errstate(all="raise"):  # no -inf minus -inf on the way
        for normalized in (lls, lls / np.array([len(c) for c in choices]),
                           lls - np.logaddexp.reduce(lls)):
            assert int(np.argmax(normalized)) not in right
    assert not any(greedy for _, greedy in scores)


def test_acc_mutual_info_halves_and_all_right_choices():
    task = _Task(["x", "y"], 1)
    scores = wrong_choice_scores(task, {}, [FailedScore("e")] * 4)  # conditional and unconditional halves
    assert [ll for ll, _ in scores][2:] == [0.0, 0.0] and np.argmax([ll for ll, _ in scores][:2]) == 0
    everything_right = wrong_choice_scores(_Task(["x"], [0]), {}, [FailedScore("e")])
    assert np.isfinite(everything_right[0][0])  # no -inf alone, which would make the softmax NaN


@pytest.mark.parametrize("name", ["spoken_qa", "spoken_qa_mc"])
def test_the_readme_shows_each_example_yaml_as_the_file_holds_it(name):
    import re

    guide = (REPO / "docs" / "TASKS.md").read_text()  # "Add a task as one YAML file", moved out of the README
    blocks = re.findall(r"```yaml\n(.*?)```", guide, re.S)
    shipped = "".join(line + "\n" for line in (REPO / "examples" / "spoken_qa" / f"{name}.yaml").read_text()
                      .splitlines() if not line.startswith("#"))
    assert shipped in blocks, name


def test_empty_wrong_choices_still_lose_to_no_right_one():
    """lm-eval divides by each choice's length: an empty wrong choice gives NaN there (0/0), which argmax takes
    before the right choice's -inf."""
    choices = ["tea", "", ""]
    lls = np.array([ll for ll, _ in wrong_choice_scores(_Task(choices, 0), {}, [FailedScore("e")] * 3)])
    with np.errstate(divide="ignore", invalid="ignore"):  # lm-eval's own division by an empty choice's length
        assert int(np.argmax(lls / np.array([float(len(c)) for c in choices]))) != 0
    assert int(np.argmax(lls)) != 0


def test_the_wrapping_is_undone_as_it_was_found():
    from lm_eval_audio.harness.failed_scoring import failed_items_scored_wrong

    class Task(_Task):
        def process_results(self, doc, results):
            return {"acc": 1.0}

    plain, own = Task(["a"], 0), Task(["a"], 0)
    own.process_results = lambda doc, results: {"acc": 0.5}  # a task object's own, as lm-eval's override sets
    with failed_items_scored_wrong({"plain": plain, "own": own}):
        with failed_items_scored_wrong({"plain": plain}):  # nested: the outer wrapping is kept
            pass
        assert getattr(plain.process_results, "lm_eval_audio_failed_scoring", False)
    assert "process_results" not in vars(plain) and own.process_results({}, []) == {"acc": 0.5}


def test_only_multiple_choice_tasks_that_do_not_guard_themselves_are_wrapped():
    """A generation task scores a failed answer (the empty string) as it scores any answer, and our tasks read their
    results through scored_as_failed in their own class: neither has its process_results swapped."""
    from lm_eval_audio.harness.failed_scoring import failed_items_scored_wrong

    class Generation(_Task):
        OUTPUT_TYPE = "generate_until"

        def process_results(self, doc, results):
            return {"exact_match": 0.0}

    class Ours(Generation):
        OUTPUT_TYPE = "multiple_choice"
        scores_failed_items_wrong = True

    generation, ours = Generation(["a"], 0), Ours(["a"], 0)
    with failed_items_scored_wrong({"gen": generation, "ours": ours}) as wrapping:
        assert wrapping.tasks == [] and "process_results" not in vars(generation) and "process_results" not in vars(ours)
