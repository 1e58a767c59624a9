"""Text-only requests follow lm-eval's --apply_chat_template exactly as lm-eval's `hf` does (issue 19, item 6):
`cascade` (its LLM is hf-audio's) and `--model hf` on the same SmolLM2 give the same generations,
log-likelihoods and perplexities, with the flag and without it; audio requests keep the model's template,
and the results JSON says which requests were templated."""

from __future__ import annotations

import json

import pytest

from conftest import REPO, run_cli
from lm_eval_audio.storage import bundled_models

TASKS = "tiny_capitals,tiny_arc,tiny_wikitext"


def _run(tmp_path, model: str, model_args: str, template: bool) -> dict:
    out = tmp_path / f"{model}-{template}"
    args = ["lm_eval", "--model", model, "--model_args", model_args, "--tasks", TASKS,
            "--include_path", str(REPO / "tests" / "fixtures" / "text_tasks"), "--output_path", str(out),
            "--log_samples", "--batch_size", "1"]
    proc = run_cli(args + (["--apply_chat_template"] if template else []))
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(next(out.rglob("results_*.json")).read_text())
    samples = {}
    for path in out.rglob("samples_*.jsonl"):
        task = next(t for t in TASKS.split(",") if f"samples_{t}_" in path.name)
        samples[task] = [(s["doc_id"], s["resps"], s["arguments"]) for s in map(json.loads, path.read_text().splitlines())]
    return {"results": results, "samples": samples}


def _leaves(value) -> list:
    return [leaf for v in value for leaf in _leaves(v)] if isinstance(value, list) else [value]


def _number(value) -> bool:
    try:
        float(value)
        return not isinstance(value, bool) and value not in ("True", "False")
    except (TypeError, ValueError):
        return False


@pytest.fixture(scope="module")
def smollm2():
    return bundled_models.smollm2_folder()


@pytest.mark.slow  # SmolLM2 through lm_eval twice per case: 20-25 s each
@pytest.mark.parametrize("template", [False, True], ids=["plain", "apply_chat_template"])
def test_cascade_and_hf_agree_on_text_tasks(tmp_path, smollm2, template):
    hf = _run(tmp_path, "hf", f"pretrained={smollm2}", template)
    cascade = _run(tmp_path, "cascade", "", template)
    for task in TASKS.split(","):
        ours, theirs = sorted(cascade["samples"][task]), sorted(hf["samples"][task])
        if not template:  # the same prompts reached both (under the flag, ours keep the turns until the model renders)
            assert [a for _, _, a in ours] == [a for _, _, a in theirs], task
        for (doc, got, _), (_, want, _) in zip(ours, theirs):
            if task == "tiny_capitals":
                assert got == want, (task, doc)
            else:  # log-likelihoods (logged as strings): the same tokens, within the float noise of two code paths
                mine, theirs_values = _leaves(got), _leaves(want)
                assert len(mine) == len(theirs_values) and mine, (task, doc)
                for a, b in zip(mine, theirs_values):
                    assert (float(a) == pytest.approx(float(b), abs=1e-3)) if _number(b) else a == b, (task, doc, a, b)
    answers = [r[0][0] for _, r, _ in sorted(cascade["samples"]["tiny_capitals"])]
    assert any("Paris" in a for a in answers) == template  # the template is what makes SmolLM2 answer
    prompts = cascade["results"]["lm_eval_audio_model"]["prompts"]
    with_template, without = prompts["text_with_template"], prompts["text_without_template"]
    assert (with_template > 0, without > 0) == ((True, True) if template else (False, True))
    assert prompts["audio_with_template"] == prompts["audio_without_template"] == 0
    # perplexity is text without a template either way, as lm-eval's hf does it
    assert without >= 2
