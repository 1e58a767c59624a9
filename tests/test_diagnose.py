"""``lm-eval-audio diagnose``: the arithmetic on constructed per-document outcomes, and the
command itself, offline, on the bundled cascade and the AIR-Bench sample."""

from __future__ import annotations

import base64
import io
import json

import pytest
import soundfile as sf
from scripted_judge import SERVED_MODELS, ScriptedJudge, audio_parts

from conftest import readme_block, run_cli, run_readme_block
from lm_eval_audio.analysis.diagnose_render import table
from lm_eval_audio.analysis.diagnose_scores import diagnose_runs, diagnose_task, item_class, threshold_for
from lm_eval_audio.analysis.run_results import choose_metric, metrics_to_try


def test_each_class_follows_the_papers_definition():
    assert item_class(True, True, [False, False]) == "TS"
    assert item_class(True, False, [False, True]) == "FS"
    assert item_class(True, False, [False, False]) == "XS"
    assert item_class(False, True, [True, True]) == "AH"
    assert item_class(False, False, [True, False]) == "UN"


def test_measures_and_class_counts_on_constructed_outcomes():
    # 10 documents, 2 fragments: full right on 0-5, none right on 0-1 and 8, fragments as listed.
    full = {d: float(d < 6) for d in range(10)}
    none = {d: float(d in (0, 1, 8)) for d in range(10)}
    frag1 = {d: float(d in (2, 3)) for d in range(10)}
    frag2 = {d: float(d in (3, 9)) for d in range(10)}
    r = diagnose_task("t", "acc", {"full": full, "none": none, "fragment:2:1": frag1, "fragment:2:2": frag2}, 2, 0.5)
    assert (r.n, r.acc_full, r.acc_none) == (10, 0.6, 0.3)
    assert r.r_tp == pytest.approx(0.5)
    assert r.acc_fragments == {2: [0.2, 0.2]} and r.retention[2] == pytest.approx(0.2 / 0.6)
    # TS: 0,1   FS: 2,3   XS: 4,5   AH: 8   UN: 6,7,9
    assert r.classes == {"TS": 2, "FS": 2, "XS": 2, "AH": 1, "UN": 3} and r.unscored == 0
    assert r.xs_share == pytest.approx(0.5)


def test_fs_and_xs_over_all_fourteen_fragments_of_n_2_to_5():
    """The paper's definition: FS if right under any fragment of any N in {2, 3, 4, 5}, XS only if wrong under
    all 14. Twelve documents right with the clip and wrong without: doc d < 11 is right under exactly one
    fragment (a different one each), doc 11 under none. With N = 4 alone, the documents whose one
    right fragment is not among N = 4's would wrongly count as XS."""
    labels = [(n, k) for n in (2, 3, 4, 5) for k in range(1, n + 1)]
    docs = range(12)
    scores = {"full": dict.fromkeys(docs, 1.0), "none": dict.fromkeys(docs, 0.0)}
    right_under = {d: labels[d] for d in range(11)}  # doc 11: none
    for n, k in labels:
        scores[f"fragment:{n}:{k}"] = {d: float(right_under.get(d) == (n, k)) for d in docs}
    r = diagnose_task("t", "acc", scores, [2, 3, 4, 5], 0.5)
    assert r.classes == {"TS": 0, "FS": 11, "XS": 1, "AH": 0, "UN": 0} and r.xs_share == pytest.approx(1 / 12)
    # R_N per N: the N fragments' mean accuracy over Acc_full (1.0): N = 2 holds docs 0-1, 3 holds 2-4, ...
    assert r.retention == {n: pytest.approx(n / 12 / n) if n < 5 else pytest.approx(2 / 12 / 5) for n in (2, 3, 4, 5)}
    n_4 = {label: v for label, v in scores.items()
           if not label.startswith("fragment:") or label.startswith("fragment:4:")}
    only_4 = diagnose_task("t", "acc", n_4, 4, 0.5)
    assert only_4.classes["FS"] == 4 and only_4.classes["XS"] == 8  # one N counts more XS
    assert "N = 2, 3, 4, 5: 14 fragment runs" in table([r], [2, 3, 4, 5])
    assert "the paper's FS and XS use N = 2, 3, 4 and 5" in table([only_4], 4)


def test_judge_scores_are_thresholded_and_unscored_documents_counted_apart():
    # AIR-Bench chat scores (1-10), right from 7: document 3 has no score under "none".
    full = {0: 8.0, 1: 9.5, 2: 3.0, 3: 7.0}
    none = {0: 7.0, 1: 2.0, 2: 7.5, 3: None}
    frag = {0: 1.0, 1: 6.5, 2: 1.0, 3: 8.0}
    r = diagnose_task("chat", "score", {"full": full, "none": none, "fragment:1:1": frag}, 1,
                      threshold_for("score", full.values(), None, "airbench_chat_speech_qa"))
    assert r.threshold == 7.0
    assert r.acc_full == pytest.approx(6.875) and r.acc_none == pytest.approx(16.5 / 3)  # unscored left out
    assert r.classes == {"TS": 1, "FS": 0, "XS": 1, "AH": 1, "UN": 0} and r.unscored == 1
    assert threshold_for("acc", [0.0, 1.0], None) == 0.5
    with pytest.raises(ValueError, match="wer_like is a graded score .* pass --threshold"):
        threshold_for("wer_like", [0.3, 0.9], None)
    assert threshold_for("wer_like", [0.3], 0.25) == 0.25


def _sample(doc_id, **values):
    judged = {k: v for k, v in values.items() if k == "gpt_align"}
    return {"doc_id": doc_id, "filter": "none", **{k: v for k, v in values.items() if k not in judged},
            "item_scores": judged}


def test_the_task_score_is_the_first_metric_with_per_document_values():
    samples = [_sample(0, gpt_align=1.0, exact_match=0.0), _sample(1, gpt_align=0.0, exact_match=1.0)]
    assert choose_metric("t", {"gpt_align,none": 0.5, "exact_match,none": 0.5}, samples,
                         ["gpt_align", "exact_match"]) == ("gpt_align", None)
    metric, why = choose_metric("t", {"gpt_align,none": float("nan"), "exact_match,none": 0.5}, samples,
                                ["gpt_align", "exact_match"])
    assert metric == "exact_match"
    metric, why = choose_metric("t", {"score,none": float("nan")}, samples, ["score"])
    assert metric is None and why == "score is NaN (nothing was scored; see the run's log)"
    smoke = {"lm_eval_audio_judge": {"t": {"judge": {"smoke_test": True}}},
             "results": {"t": {"gpt_align,none": 0.5, "score,none": 7.0, "exact_match,none": 0.5}}}
    kept, note = metrics_to_try(smoke, "t", ["gpt_align", "glitters_acc", "score", "exact_match"],
                                chosen_by_user=False)
    # only the judge metrics the task reports are named
    assert kept == ["exact_match"] and note.startswith("gpt_align, score skipped: judged by the bundled smoke-test")
    assert metrics_to_try(smoke, "t", ["gpt_align"], chosen_by_user=True) == (["gpt_align"], None)
    assert metrics_to_try({}, "t", ["gpt_align"], chosen_by_user=False) == (["gpt_align"], None)
    runs = {label: {"results": {"t": {"exact_match,none": 0.5}},
                    "samples": {"t": [_sample(d, exact_match=v) for d, v in enumerate(values)]}}
            for label, values in {"full": [1, 1, 0], "none": [1, 0, 0], "fragment:1:1": [0, 1, 1]}.items()}
    (row,) = diagnose_runs(runs, 1, ["exact_match"])
    assert row.metric == "exact_match" and row.classes == {"TS": 1, "FS": 1, "XS": 0, "AH": 0, "UN": 1}
    text = table([row], 1)
    assert "| t | exact_match (>= 0.5) | 3 | 0.667 | 0.333 | 0.500 | 0.667 | 1.000 | 1 | 1 | 0 | 0 | 1 | 0 | 0.000 |" \
        in text


def test_failed_requests_and_missing_audio_are_unscored_in_the_classes_not_wrong():
    """An empty answer given for a request that failed for good (or a document without audio)
    says nothing of the model: such documents are unscored in the classes, and said so; the
    accuracies stay the ones each run reported."""
    outcomes = {"full": [1, 1, 0, 1], "none": [1, 0, 0, 0], "fragment:1:1": [0, 1, 1, 0]}
    runs = {label: {"results": {"t": {"exact_match,none": sum(values) / 4}},
                    "samples": {"t": [_sample(d, exact_match=v, audio_missing=float(d == 2))
                                      for d, v in enumerate(values)]}}
            for label, values in outcomes.items()}
    # doc 3's request failed under none (answered empty, scored 0): it would be XS, a document
    # that needs the whole clip, on the strength of an HTTP error
    runs["none"]["lm_eval_audio_data"] = {"failed_requests": {"t/doc 3": ["openai-audio: HTTP 500"]},
                                          "failed_request_counts": {"t": 1}}
    (row,) = diagnose_runs(runs, 1, ["exact_match"])
    assert (row.acc_full, row.acc_none, row.acc_fragments) == (0.75, 0.25, {1: [0.5]})
    assert row.classes == {"TS": 1, "FS": 1, "XS": 0, "AH": 0, "UN": 0} and row.unscored == 2
    assert "requests that failed for good: 1 under audio=none" in row.note
    assert "1 document(s) without audio (audio_missing): unscored in the classes" in row.note
    # without the failure record, the same outcomes make doc 3 XS and doc 2 UN
    del runs["none"]["lm_eval_audio_data"]
    for label in runs:
        for s in runs[label]["samples"]["t"]:
            s["audio_missing"] = 0.0
    (row,) = diagnose_runs(runs, 1, ["exact_match"])
    assert row.classes == {"TS": 1, "FS": 1, "XS": 1, "AH": 0, "UN": 1} and row.unscored == 0 and row.note is None


@pytest.mark.slow(seconds=250)
def test_cli_diagnose_cascade_on_the_sample_offline(tmp_path):
    """docs/DIAGNOSTICS.md's command: the paper's three benchmarks (their synthetic samples) with the offline cascade,
    in a scratch folder with no endpoint; the per-benchmark table in the paper's layout, its numbers the conditions'
    own results."""
    command = readme_block("diagnose").split()
    assert command == [".venv/bin/lm-eval-audio", "diagnose", "--model", "cascade", "--tasks",
                       "mmau_sample,mmar_sample,mmau_pro_sample_closed", "--fragments", "2", "--batch_size", "8"]
    first = run_readme_block("diagnose", tmp_path)
    assert first.returncode == 0, first.stderr[-4000:]
    assert "| task | metric (right if >=) | n | Acc_full | Acc_none | R_TP | frag 1/2 | frag 2/2 | R_2 |" in first.stdout
    header = "| benchmark | metric | n | Full | None | R_TP | R_2 | TS % | FS % | XS % | AH % | UN % | XS/(FS+XS) % |"
    assert header in first.stdout
    paper = {line.split("|")[1].strip(): [c.strip() for c in line.strip("|").split("|")]
             for line in first.stdout.split(header)[1].splitlines() if line.startswith("| ") and "---" not in line}
    # no judge endpoint: no judge asked (the smoke-test judge's verdicts are no score), MMAU and MMAR read by the
    # official rule, MMAU-Pro's closed questions (whose official score needs NV-Embed-v2) by the pattern reading
    assert {name: (cells[1], cells[2]) for name, cells in paper.items()} == {
        "mmau_sample": ("official_acc", "12"), "mmar_sample": ("official_acc", "14"),
        "mmau_pro_sample_closed": ("pattern_acc", "8")}
    assert "diagnose: no judge endpoint configured, so no judge is asked" in first.stderr
    # expected situations said once, none as an ERROR, though each of the four conditions is a run of its own
    assert " ERROR " not in first.stderr and "Custom kwargs can be passed" not in first.stderr
    assert first.stderr.count("needs the embedding model nvidia/NV-Embed-v2") == 1
    assert first.stderr.count("no LLM judge configured") == 1
    out = tmp_path / "diagnose"  # a folder of its own, apart from lm_eval's results/
    assert not (tmp_path / "results").exists()
    base = "cascade__whisper-tiny.en__SmolLM2-135M-Instruct"
    folders = {p.name for p in out.iterdir() if p.is_dir()}
    assert folders == {base, f"{base}__audio-none", *(f"{base}__audio-fragment-2-{k}" for k in (1, 2))}

    def reported(folder, group):
        (results,) = [json.loads(p.read_text()) for p in (out / folder).glob("results_*.json")]
        assert not results.get("lm_eval_audio_judge")  # no judge ran
        return results["results"][group]["official_acc,none"]

    for group in ("mmau_sample", "mmar_sample"):  # the pooled accuracy is the group's micro average, as reported
        cells = paper[group]
        acc_full, acc_none = reported(base, group), reported(f"{base}__audio-none", group)
        assert cells[3] == f"{100 * acc_full:.1f}" and cells[4] == f"{100 * acc_none:.1f}"
        assert cells[5] == (f"{acc_none / acc_full:.2f}" if acc_full else "n/a")
        shares = [float(c) for c in cells[7:12]]
        assert sum(shares) == pytest.approx(100.0, abs=0.3)
    (summary,) = (out / base).glob("diagnose_*.json")
    data = json.loads(summary.read_text())
    assert data["conditions"] == ["full", "none", "fragment:2:1", "fragment:2:2"]
    groups = {t["task"]: t for t in data["tasks"] if t["group"]}
    assert sorted(groups["mmar_sample"]["tasks"]) == sorted(f"mmar_sample_{m}" for m in (
        "sound", "music", "speech", "mix_sound_music", "mix_sound_speech", "mix_music_speech", "mix_sound_music_speech"))
    assert (out / base / summary.name.replace(".json", ".png")).read_bytes()[:4] == b"\x89PNG"
    # under none the cascade's LLM answered: the prompt kept its chat template (an empty answer everywhere
    # was the symptom of the plain-text prompt)
    none_folder = out / f"{base}__audio-none"
    answers = [json.loads(line)["resps"][0][0] for f in none_folder.glob("samples_mmau_sample_*.jsonl")
               for line in f.read_text().splitlines()]
    assert len(answers) == 12 and sum(bool(a.strip()) for a in answers) >= 10
    # report over the folder: the model once, its conditions named under the tables, not three more "models"
    report = run_cli(["lm-eval-audio", "report", str(out), "--output", str(tmp_path / "report")])
    assert report.returncode == 0, report.stderr[-3000:]
    summary = json.loads((tmp_path / "report" / "report.json").read_text())
    assert summary["models"] == [base]
    assert summary["conditions"] == {base: ["audio=fragment:2:1", "audio=fragment:2:2", "audio=none"]}
    assert f"- {base}: audio=fragment:2:1, audio=fragment:2:2, audio=none" in report.stdout


def _heard_seconds(body) -> float | None:
    parts = audio_parts(body)
    if not parts:
        return None
    samples, sr = sf.read(io.BytesIO(base64.b64decode(parts[0]["input_audio"]["data"])))
    return len(samples) / sr


def _listener(seconds: float | None) -> str:
    """The served model: B without audio, A for at least 0.8 s of audio, C for less."""
    return "B" if seconds is None else "A" if seconds >= 0.8 else "C"


def test_cli_diagnose_counts_follow_a_known_listener(tmp_path):
    """openai-audio against a served model whose answer depends only on how much audio it
    hears: the classes diagnose reports are the ones this rule gives on the sample's clips.
    Foundation by exact match (per document), chat by the scripted judge's score (7 of 10
    in every condition, so all TS at the threshold 7)."""
    from lm_eval_audio.tasks.airbench import data as airbench
    from lm_eval_audio.audio.conditions import fragment_bounds

    root = airbench.sample_root()
    expected = dict.fromkeys(("TS", "FS", "XS", "AH", "UN"), 0)
    for item in json.loads((root / "Foundation" / "Foundation_meta.json").read_text()):
        info = sf.info(airbench.audio_file(root, "Foundation", item))
        gold = airbench.answer_letter(item)
        fragments = [(b - a) / info.samplerate for a, b in (fragment_bounds(info.frames, 2, k) for k in (1, 2))]
        expected[item_class(_listener(info.frames / info.samplerate) == gold, _listener(None) == gold,
                            [_listener(s) == gold for s in fragments])] += 1
    assert sum(v > 0 for v in expected.values()) >= 3, expected  # the rule separates the documents

    def reply_for(body):
        return _listener(_heard_seconds(body)) if body["model"] == "served-audio-lm" else None

    with ScriptedJudge(models=SERVED_MODELS + ("served-audio-lm",), reply_for=reply_for) as server:
        # base_url comes from the environment, so that the re-run below against a new server is the same run
        command = ["lm-eval-audio", "diagnose", "--model", "openai-audio", "--model_args", "model=served-audio-lm",
                   "--tasks", "airbench_sample", "--fragments", "2", "--metric", "exact_match,score",
                   "--output_path", str(tmp_path / "out")]
        proc = run_cli(command, env_extra={"OPENAI_BASE_URL": server.base_url,
                                           "LM_EVAL_AUDIO_JUDGE_CACHE": str(tmp_path / "judge.sqlite")})
    assert proc.returncode == 0, proc.stderr[-4000:]
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.strip("|").split("|")]
            for line in proc.stdout.splitlines() if line.startswith("| airbench_sample_")}
    foundation, chat = rows["airbench_sample_foundation"], rows["airbench_sample_chat"]
    assert foundation[1] == "exact_match (>= 0.5)" and foundation[2] == "35"
    assert [int(c) for c in foundation[9:14]] == list(expected.values()) and foundation[14] == "0"
    assert chat[1] == "score (>= 7)" and chat[3:6] == ["7.000", "7.000", "1.000"]
    assert [int(c) for c in chat[9:15]] == [6, 0, 0, 0, 0, 0]
    # A re-run asks the served model nothing: each condition's 41 answers come from the one request cache.
    with ScriptedJudge(models=SERVED_MODELS + ("served-audio-lm",), reply_for=reply_for) as server:
        again = run_cli(command, env_extra={"OPENAI_BASE_URL": server.base_url,
                                            "LM_EVAL_AUDIO_JUDGE_CACHE": str(tmp_path / "judge.sqlite")})
        assert again.returncode == 0, again.stderr[-4000:]
        assert again.stderr.count("Cached requests: 41, Requests remaining: 0") == 4
        assert not [b for b in server.requests if b["model"] == "served-audio-lm"]
    assert next(line for line in again.stdout.splitlines() if line.startswith("| airbench_sample_foundation |")) == \
        next(line for line in proc.stdout.splitlines() if line.startswith("| airbench_sample_foundation |"))


def test_cli_diagnose_multiple_choice_accuracy_with_hf_audio(tiny_qwen2_audio, tmp_path):
    """Log-likelihood multiple choice (acc) on a tiny random Qwen2-Audio: every condition runs,
    and the one cache file answers a re-run entirely."""
    command = ["lm-eval-audio", "diagnose", "--model", "hf-audio", "--model_args",
               f"pretrained={tiny_qwen2_audio},dtype=float32", "--device", "cpu", "--tasks", "spoken_digits_mc",
               "--fragments", "2", "--limit", "4", "--batch_size", "8", "--output_path", str(tmp_path / "out")]
    first = run_cli(command)
    assert first.returncode == 0, first.stderr[-4000:]
    row = next(line for line in first.stdout.splitlines() if line.startswith("| spoken_digits_mc |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "acc (>= 0.5)" and cells[2] == "4" and sum(int(c) for c in cells[9:15]) == 4
    second = run_cli(command)
    assert second.stderr.count("Cached requests: 40, Requests remaining: 0") == 4  # 4 digits x 10 choices
    assert row in second.stdout


def test_a_fragment_without_score_leaves_unscored_only_the_documents_whose_class_needs_it():
    # fragment 2 has no score for any document; fragment 1 decides FS for doc 0, nothing decides doc 1
    full = {0: 1.0, 1: 1.0, 2: 1.0, 3: 0.0}
    none = {0: 0.0, 1: 0.0, 2: 1.0, 3: 1.0}
    frag1 = {0: 1.0, 1: 0.0, 2: 0.0, 3: 0.0}
    frag2 = {0: None, 1: None, 2: None, 3: None}
    r = diagnose_task("t", "acc", {"full": full, "none": none, "fragment:2:1": frag1, "fragment:2:2": frag2}, 2, 0.5)
    assert r.classes == {"TS": 1, "FS": 1, "XS": 0, "AH": 1, "UN": 0} and r.unscored == 1
    assert r.acc_fragments == {2: [0.25, None]} and r.retention == {2: None}


def test_the_text_backbone_gets_each_request_without_its_audio():
    from lm_eval.api.instance import Instance
    from lm_eval.api.model import LM

    from lm_eval_audio.analysis.text_backbone import TextPromptsOnly

    class Recorder(LM):
        def __init__(self):
            super().__init__()
            self.seen = []

        def generate_until(self, requests, disable_tqdm=False):
            self.seen += [r.args for r in requests]
            return ["B"] * len(requests)

        def loglikelihood(self, requests, disable_tqdm=False):
            self.seen += [r.args for r in requests]
            return [(-1.0, True)] * len(requests)

        def loglikelihood_rolling(self, requests, disable_tqdm=False):
            raise AssertionError("not used")

        def apply_chat_template(self, chat_history, add_generation_prompt=True):
            return "<user>" + chat_history[-1]["content"] + "</user>"

    inner = Recorder()
    gen = {"until": ["\n"], "max_gen_toks": 8}
    requests = [Instance("generate_until", {}, ("<audio>\nWhich sound is it?\nA. dog", gen, {"audio": ["a.wav"]}), 0),
                Instance("loglikelihood", {}, ("Question <audio> here?", " yes", {"audio": ["b.wav"]}), 1)]
    backbone = TextPromptsOnly(inner)
    assert backbone.generate_until(requests[:1]) == ["B"] and backbone.loglikelihood(requests[1:]) == [(-1.0, True)]
    # an audio task's prompt goes in the backbone's chat template, as the audio model's goes in its own
    assert inner.seen == [("<user>Which sound is it?\nA. dog</user>", gen), ("<user>Question here?</user>", " yes")]
    assert requests[0].args[2] == {"audio": ["a.wav"]}  # the task's own instance is left as it was
    # where lm-eval rendered the prompts (--apply_chat_template), they are not rendered again; text tasks never are
    backbone.apply_chat_template([{"role": "user", "content": "x"}])
    inner.seen.clear()
    backbone.generate_until([Instance("generate_until", {}, ("<user>Q <audio></user>", gen, {"audio": ["a.wav"]}), 0),
                             Instance("generate_until", {}, ("Plain text", gen), 1)])
    assert inner.seen == [("<user>Q </user>", gen), ("Plain text", gen)]


def test_cli_diagnose_with_the_text_backbone(tiny_gemma_text, tmp_path):
    """openai-audio as the audio model (the known listener), a tiny hf text model as its backbone: the backbone
    runs on the same documents, saved as its own run, and its score is the Acc_TB column."""
    with ScriptedJudge(models=SERVED_MODELS + ("served-audio-lm",),
                       reply_for=lambda body: _listener(_heard_seconds(body))) as server:
        proc = run_cli(["lm-eval-audio", "diagnose", "--model", "openai-audio", "--model_args", "model=served-audio-lm",
                        "--tasks", "airbench_sample_foundation", "--fragments", "1", "--metric", "exact_match",
                        "--limit", "6", "--gen_kwargs", "max_gen_toks=4",
                        "--text_backbone", f"pretrained={tiny_gemma_text},dtype=float32", "--device", "cpu",
                        "--output_path", str(tmp_path / "out")],
                       env_extra={"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": ""})
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "| task | metric (right if >=) | n | Acc_full | Acc_none | Acc_TB | R_TP |" in proc.stdout
    row = next(line for line in proc.stdout.splitlines() if line.startswith("| airbench_sample_foundation |"))
    acc_tb = row.strip("|").split("|")[5].strip()
    (folder,) = [p for p in (tmp_path / "out").iterdir() if p.name.endswith("__text-backbone")]
    (results,) = [json.loads(p.read_text()) for p in folder.glob("results_*.json")]
    assert acc_tb == f"{results['results']['airbench_sample_foundation']['exact_match,none']:.3f}"
    assert results["n-samples"]["airbench_sample_foundation"]["effective"] == 6


def test_a_groups_row_pools_its_tasks_documents():
    """A benchmark's row, as the paper reports one: the documents of its tasks together (micro averages, classes
    summed), only the tasks read by the group's metric, and a group with the same pooled tasks said once."""
    from lm_eval_audio.analysis.diagnose_render import paper_tables
    from lm_eval_audio.analysis.diagnose_scores import _TaskScores, pooled

    def task(full, none, frag1, frag2, metric="official_acc"):
        scores = {"full": dict(enumerate(full)), "none": dict(enumerate(none)),
                  "fragment:2:1": dict(enumerate(frag1)), "fragment:2:2": dict(enumerate(frag2))}
        return _TaskScores(metric, 0.5, scores, {label: set() for label in scores})

    pieces = {"a": task([1, 1, 0], [1, 0, 0], [0, 1, 0], [0, 0, 0]),  # TS, FS, UN
              "b": task([1, 0], [0, 1], [0, 0], [0, 0]),  # XS, AH
              "open": task([0.9], [0.8], [0.1], [0.2], metric="performance_score")}
    subtasks = {"bench": ["bench_closed", "open"], "bench_closed": ["a", "b"]}
    (row,) = pooled(subtasks, pieces, [2])
    assert row.task == "bench_closed" and row.group and row.tasks == ["a", "b"] and row.n == 5
    assert row.acc_full == pytest.approx(3 / 5) and row.acc_none == pytest.approx(2 / 5)
    assert row.classes == {"TS": 1, "FS": 1, "XS": 1, "AH": 1, "UN": 1} and row.xs_share == 0.5
    # the larger group pools the same two tasks (open is read by another metric): not repeated
    subtasks["bench"] = ["a", "b", "open"]
    rows = pooled(subtasks, pieces, [2])
    assert [r.task for r in rows] == ["bench_closed"]
    del subtasks["bench_closed"]
    (row,) = pooled(subtasks, pieces, [2])
    assert row.task == "bench" and row.note == "pools 2 of its 3 tasks; not pooled: open"
    text = paper_tables([row], [2])
    assert "| benchmark | metric | n | Full | None | R_TP | R_2 | TS % | FS % | XS % | AH % | UN % | XS/(FS+XS) % |" in text
    assert "| bench | official_acc | 5 | 60.0 | 40.0 | 0.67 | 16.7 | 20.0 | 20.0 | 20.0 | 20.0 | 20.0 | 50.0 |" in text


@pytest.mark.parametrize("command", ["diagnose", "judge", "download"])
def test_our_commands_read_metadata_as_lm_eval_does_and_refuse_bad_json_in_one_line(command, capsys):
    from lm_eval_audio.analysis import diagnose, rejudge
    from lm_eval_audio.harness import data_download

    main, first = {"diagnose": (diagnose.main, ["--model", "cascade", "--tasks", "t"]),
                   "judge": (rejudge.main, ["samples.jsonl"]),
                   "download": (data_download.main, ["--tasks", "t"])}[command]
    for bad, said in (("{x", "argument --metadata: not JSON"), ("[1]", "argument --metadata: must be a JSON object")):
        with pytest.raises(SystemExit) as stop:
            main([*first, "--metadata", bad])
        assert stop.value.code == 2 and said in capsys.readouterr().err


def test_the_plot_legend_names_every_class_and_fits_in_the_image(tmp_path, monkeypatch):
    """Every class (UN, often the largest, too) in the legend, and the saved image holds the whole legend."""
    import matplotlib.pyplot as plt

    from lm_eval_audio.analysis import diagnose_render
    from lm_eval_audio.analysis.diagnose_scores import CLASSES

    full, none = {0: 1.0, 1: 0.0, 2: 0.0}, {0: 1.0, 1: 0.0, 2: 1.0}
    frags = {"fragment:2:1": {0: 1.0, 1: 0.0, 2: 0.0}, "fragment:2:2": {0: 0.0, 1: 0.0, 2: 0.0}}
    rows = [diagnose_task(f"a_task_with_a_long_name_{k}", "acc", {"full": full, "none": none, **frags}, 2, 0.5)
            for k in range(3)]
    figures = []
    monkeypatch.setattr(plt, "close", lambda fig: figures.append(fig))
    path = tmp_path / "plot.png"
    diagnose_render.plot(rows, 2, str(path))
    (fig,) = figures
    legends = [ax.get_legend() for ax in fig.axes]
    assert [t.get_text() for t in legends[1].get_texts()] == list(CLASSES)
    from matplotlib.image import imread

    height, width = imread(path).shape[:2]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = fig.get_tightbbox(renderer)  # inches: what bbox_inches="tight" saved
    for legend in legends:
        edge = legend.get_window_extent(renderer).transformed(fig.dpi_scale_trans.inverted())
        assert box.x0 <= edge.x0 and edge.x1 <= box.x1 and box.y0 <= edge.y0 and edge.y1 <= box.y1
    pad = 2 * plt.rcParams["savefig.pad_inches"]  # bbox_inches="tight" pads each side
    assert abs(width - (box.width + pad) * 120) <= 6 and abs(height - (box.height + pad) * 120) <= 6
