"""``openai-audio`` against a local OpenAI-compatible server (tests/scripted_judge.py):
what the requests carry, concurrency, retries, failures, round robin, and the CLI with
``--use_cache``."""

from __future__ import annotations

import base64
import io
import json

import numpy as np
import pytest
import soundfile as sf
from lm_eval.api.instance import Instance
from scripted_judge import SERVED_MODELS, ScriptedJudge, audio_parts, prompt_text

from conftest import REPO, results_json, run_cli, tone
from lm_eval_audio.endpoints import chat_api
from lm_eval_audio.model_wrappers.failed_requests import EveryRequestFailed, FailedResponse
from lm_eval_audio.model_wrappers.openai_audio import OpenAIAudioLM

SAMPLE = REPO / "tasks" / "airbench" / "sample_data" / "Foundation"
MODELS = SERVED_MODELS + ("served-audio-lm",)
GREEDY = {"until": [], "max_gen_toks": 16, "do_sample": False}


def _lm(server, **kwargs) -> OpenAIAudioLM:
    args = {"model": "served-audio-lm", "base_url": server.base_url, "retry_base_seconds": 0.01, **kwargs}
    return OpenAIAudioLM(**args)


def _request(context, refs=None, gen=GREEDY, doc_id=0, task="t"):
    args = (context, gen, {"audio": refs}) if refs is not None else (context, gen)
    return Instance("generate_until", {}, args, idx=0, metadata=(task, doc_id, 1))


def _decoded(part: dict) -> tuple[np.ndarray, int]:
    if part["type"] == "input_audio":
        data = part["input_audio"]["data"]
    else:
        data = part["audio_url"]["url"].split(",", 1)[1]
    return sf.read(io.BytesIO(base64.b64decode(data, validate=True)), dtype="float32")


@pytest.fixture
def wav_file(tmp_path):
    path = tmp_path / "clip.wav"
    sf.write(path, tone(1.0, seed=1), 16000, subtype="PCM_16")
    return path


def test_audio_reaches_the_request_as_valid_base64_wav(tmp_path, wav_file):
    flac = tmp_path / "clip.flac"
    sf.write(flac, tone(0.5, freq=300, sr=22050, seed=2), 22050)
    with ScriptedJudge(models=MODELS, reply=lambda prompt: "B") as server:
        lm = _lm(server, system_prompt="Be brief.")
        answers = lm.generate_until([
            _request("<audio>Which option?", [str(wav_file)]),
            _request("Compare <audio> with <audio>.", [str(flac), {"path": str(wav_file), "start": 0.25, "end": 0.75}]),
            _request("No audio here."),
        ])
    assert answers == ["B", "B", "B"]
    by_text = {json.dumps(b["messages"])[-60:]: b for b in server.requests}
    assert len(by_text) == 3
    plain = next(b for b in server.requests if b["messages"][-1]["content"] == "No audio here.")
    assert audio_parts(plain) == [] and plain["messages"][0] == {"role": "system", "content": "Be brief."}

    one = next(b for b in server.requests if len(audio_parts(b)) == 1)
    part = audio_parts(one)[0]
    assert part["type"] == "input_audio" and part["input_audio"]["format"] == "wav"
    # A 16-bit PCM wav file is sent byte for byte.
    assert base64.b64decode(part["input_audio"]["data"]) == wav_file.read_bytes()
    assert one["messages"][1]["content"][0] is part and one["messages"][1]["content"][1] == {"type": "text", "text": "Which option?"}
    assert one["model"] == "served-audio-lm" and one["temperature"] == 0.0 and one["max_tokens"] == 16

    two = next(b for b in server.requests if len(audio_parts(b)) == 2)
    (flac_samples, flac_sr), (cut, cut_sr) = map(_decoded, audio_parts(two))
    # FLAC is transcoded to wav at its own rate; the slice is cut out.
    assert flac_sr == 22050 and len(flac_samples) == int(0.5 * 22050)
    assert np.abs(flac_samples - sf.read(flac, dtype="float32")[0]).max() < 1e-3
    assert cut_sr == 16000 and len(cut) == 8000
    kinds = [p.get("type") for p in two["messages"][-1]["content"]]
    assert kinds == ["text", "input_audio", "text", "input_audio", "text"]


def test_audio_url_form_mp3_and_table_cells(tmp_path, wav_file):
    from conftest import write_audiobench

    folder = write_audiobench(tmp_path, "cells", [{"audio": tone(0.8, seed=3), "instruction": "q", "answer": "a"}])
    table = next(folder.rglob("*.parquet"))
    with ScriptedJudge(models=MODELS) as server:
        _lm(server, audio_part="audio_url").generate_until([_request("<audio>q", [{"table": str(table), "row": 0}])])
        _lm(server, audio_format="mp3").generate_until([_request("<audio>q", [str(wav_file)])])
    url_part, mp3_part = (audio_parts(b)[0] for b in server.requests)
    assert url_part["type"] == "audio_url" and url_part["audio_url"]["url"].startswith("data:audio/wav;base64,")
    samples, sr = _decoded(url_part)
    assert sr == 16000 and len(samples) == int(0.8 * 16000)
    assert mp3_part["input_audio"]["format"] == "mp3"
    from lm_eval_audio.audio import decoding

    mp3 = decoding.load({"bytes": base64.b64decode(mp3_part["input_audio"]["data"])}, 16000)
    assert abs(len(mp3) - 16000) < 2000  # MP3 frames pad the ends


def test_requests_run_concurrently_and_answers_keep_their_order(clips):
    with ScriptedJudge(models=MODELS, latency=0.2, reply=lambda prompt: prompt.upper()) as server:
        answers = _lm(server, num_concurrent=4).generate_until(
            [_request(f"q{i}", [clips[i]]) for i in range(12)], disable_tqdm=True)
    assert answers == [f"Q{i}" for i in range(12)]
    assert server.max_in_flight == 4


def test_429_5xx_timeouts_and_200s_that_are_not_completions_are_retried(clips):
    # Status 200 with a proxy's error page ("html"), JSON without choices, and JSON cut off mid-object.
    faults = [(429, {"Retry-After": "0"}), (500, {}), (503, {"retry-after-ms": "10"}), ("sleep", 3), ("html",),
              ("no_choices",), ("cut_off",)]
    with ScriptedJudge(models=MODELS, faults=faults, reply=lambda prompt: "ok") as server:
        lm = _lm(server, num_concurrent=1, timeout=0.5, max_retries=7)
        answers = lm.generate_until([_request("a", [clips[0]]), _request("b", [clips[1]])])
    assert answers == ["ok", "ok"]
    assert lm._last_stats["retries"] == 7 and lm._last_stats["calls"] == 9


def test_a_request_that_fails_for_good_is_recorded_and_the_run_goes_on(clips):
    poison = lambda body: (500, {}) if "poison" in prompt_text(body) else None  # noqa: E731
    with ScriptedJudge(models=MODELS, fault_for=poison, reply=lambda prompt: "fine") as server:
        lm = _lm(server, max_retries=2)
        answers = lm.generate_until([_request("ok 1", [clips[0]], doc_id=0),
                                     _request("poison", [clips[1]], doc_id=7, task="airbench_x"),
                                     _request("ok 2", [clips[2]], doc_id=2)])
        assert answers[0] == answers[2] == "fine"
        assert isinstance(answers[1], FailedResponse) and answers[1] == "" and "HTTP 500" in answers[1].error
        assert len([b for b in server.requests if "poison" in json.dumps(b)]) == 3  # 1 call + 2 retries
        notes = lm.notes.data_notes
        assert list(notes["failed_requests"]) == ["airbench_x/doc 7"]
        # Nothing answered at all is an error, not a run of empty answers.
        with pytest.raises(EveryRequestFailed, match="every request failed"):
            lm.generate_until([_request("poison", [clips[1]])])


def test_refusals_of_one_request_do_not_trip_the_breaker(clips):
    too_long = lambda body: (400, {}, "audio too long") if "long" in prompt_text(body) else None  # noqa: E731
    with ScriptedJudge(models=MODELS, fault_for=too_long) as server:
        lm = _lm(server, num_concurrent=1, max_retries=0)
        answers = lm.generate_until(
            [_request(f"long {i}", [clips[0]], doc_id=i) for i in range(12)] + [_request("short", [clips[1]])],
            disable_tqdm=True)
    assert len(server.requests) == 13 and answers[-1] == "A"  # every request was sent
    assert all("HTTP 400" in a.error for a in answers[:12])
    assert lm.notes.data_notes["failed_request_counts"] == {"t": 12}


def test_several_servers_share_the_requests_round_robin(clips):
    with ScriptedJudge(models=MODELS) as one, ScriptedJudge(models=MODELS) as two:
        lm = OpenAIAudioLM(model="served-audio-lm", base_url=f"{one.base_url}|{two.base_url}")
        lm.generate_until([_request(f"q{i}", [clips[i]]) for i in range(10)], disable_tqdm=True)
    assert len(one.requests) == len(two.requests) == 5


def test_stop_strings_are_sent_and_cut(clips):
    with ScriptedJudge(models=MODELS, reply=lambda prompt: "A.\nMore text") as server:
        answers = _lm(server).generate_until([_request("q", [clips[0]], gen={"until": ["\n"], "do_sample": False})])
    assert answers == ["A."] and server.requests[0]["stop"] == ["\n"] and server.requests[0]["max_tokens"] == 256


def test_bad_arguments_and_endpoints_are_clear_errors(monkeypatch):
    monkeypatch.delenv("MY_AUDIO_KEY", raising=False)
    with ScriptedJudge(models=MODELS) as server:
        with pytest.raises(ValueError, match="environment only"):
            _lm(server, api_key="sk-secret")
        with pytest.raises(ValueError, match="model="):
            OpenAIAudioLM(base_url=server.base_url)
        with pytest.raises(chat_api.EndpointError, match="does not serve model 'nope'.*served-audio-lm"):
            _lm(server, model="nope")
        with pytest.raises(chat_api.EndpointError, match="MY_AUDIO_KEY is not set"):
            _lm(server, api_key_env="MY_AUDIO_KEY")
        with pytest.raises(ValueError, match="unknown model_args temprature \\(did you mean temperature\\?\\)"):
            _lm(server, temprature=0.5)
        with pytest.raises(ValueError, match="audio_part"):
            _lm(server, audio_part="file")
        with pytest.raises(ValueError, match="check_model must be true or false, got 'flase'"):
            _lm(server, check_model="flase")
        with pytest.raises(ValueError, match="temperature must be a number, got 'warm'"):
            _lm(server, temperature="warm")
        with pytest.raises(ValueError, match="num_concurrent must be at least 1"):
            _lm(server, num_concurrent=0)
        with pytest.raises(NotImplementedError, match="hf-audio"):
            _lm(server).loglikelihood([])
        dead = server.base_url
    with pytest.raises(chat_api.EndpointError, match="does not answer"):
        OpenAIAudioLM(model="m", base_url=dead)


def test_the_key_is_sent_from_the_environment_and_never_logged(monkeypatch, clips, caplog):
    key = "tok-ABCDEFGH12345"  # not shaped like an OpenAI key: masked because it is the named variable's
    monkeypatch.setenv("MY_AUDIO_KEY", key)
    poison = lambda body: (500, {}, f"bad key {key}") if "poison" in prompt_text(body) else None  # noqa: E731
    with ScriptedJudge(models=MODELS, fault_for=poison) as server:
        lm = _lm(server, api_key_env="MY_AUDIO_KEY", max_retries=0)
        answers = lm.generate_until([_request("ok", [clips[0]]), _request("poison", [clips[1]])])
    assert server.authorization == {f"Bearer {key}"}
    assert key not in answers[1].error and "bad key ***" in answers[1].error
    assert key not in json.dumps(lm.notes.data_notes) and key not in caplog.text
    with pytest.raises(chat_api.EndpointError, match="carries credentials") as refused:
        OpenAIAudioLM(model="m", base_url="http://user:s3cret@127.0.0.1:1/v1")
    assert "s3cret" not in str(refused.value)


def test_a_dead_server_costs_retries_not_answers(clips):
    """Round robin: a retry goes to the next server, so requests first sent to a dead one are still answered."""
    with ScriptedJudge(models=MODELS) as dead:
        dead_url = dead.base_url  # nothing listens there once the block ends
    with ScriptedJudge(models=MODELS) as alive:
        lm = OpenAIAudioLM(model="served-audio-lm", base_url=f"{alive.base_url}|{dead_url}", check_model=False,
                           max_retries=1, retry_base_seconds=0.01)
        answers = lm.generate_until([_request(f"q{i}", [clips[i]]) for i in range(6)], disable_tqdm=True)
        assert len(alive.requests) == 6
    assert answers == ["A"] * 6 and lm._last_stats["retries"] == 3  # requests 1, 3, 5 went to the dead one first


def test_the_breaker_stops_sending_after_failures_in_a_row(clips):
    always = lambda body: (500, {})  # noqa: E731
    with ScriptedJudge(models=MODELS, fault_for=always) as server:
        lm = _lm(server, num_concurrent=1, max_retries=0)
        with pytest.raises(EveryRequestFailed, match="every request failed") as failed:
            lm.generate_until([_request(f"q{i}", [clips[0]]) for i in range(15)], disable_tqdm=True)
    assert len(server.requests) == 10  # then "not sent"
    assert "HTTP 500" in str(failed.value)
    notes = lm.notes.data_notes
    (errors,) = notes["failed_requests"].values()  # all of doc 0
    assert len(errors) == 15 and sum("not sent: the endpoint failed 10 requests in a row" in e for e in errors) == 5
    assert notes["failed_request_counts"] == {"t": 15}


def _cli(server, tmp_path, *extra):
    tmp_path.mkdir(parents=True, exist_ok=True)
    return run_cli(
        ["lm_eval", "--model", "openai-audio", "--model_args",
         f"base_url={server.base_url},model=served-audio-lm,num_concurrent=16,max_retries=1,retry_base_seconds=0.01",
         "--tasks", "airbench_sample", "--output_path", str(tmp_path / "out"), "--log_samples", *extra],
        env_extra={"OPENAI_BASE_URL": server.base_url, "LM_EVAL_AUDIO_JUDGE_CACHE": str(tmp_path / "judge.sqlite")},
    )


def test_cli_airbench_sample_with_use_cache_and_a_failed_request(tmp_path):
    """The issue's command against a local server, which also plays the judge. One item's
    request fails for good: the run finishes, lists it in the results, and a re-run with
    --use_cache asks the server for that item only."""
    meta = json.loads((SAMPLE / "Foundation_meta.json").read_text())
    item = next(i for i in meta if i["path"].endswith(".wav"))
    clip = SAMPLE / f"{item['task_name']}_{item['dataset_name']}" / item["path"]
    target = base64.b64encode(clip.read_bytes()).decode()  # a PCM wav file is sent as it is

    def sends_target(body):
        return any(p.get("input_audio", {}).get("data") == target for p in audio_parts(body))

    def poison(body):
        return (500, {}) if sends_target(body) else None

    cache = ["--use_cache", str(tmp_path / "cache" / "db")]
    with ScriptedJudge(models=MODELS, fault_for=poison) as server:
        first = _cli(server, tmp_path / "first", *cache)
        assert first.returncode == 0, first.stderr[-4000:]
        assert "Cached requests: 0, Requests remaining: 41" in first.stderr
        assert "1 item(s) failed for good (1 of 41 request(s)" in first.stderr
        model_calls = [b for b in server.requests if b["model"] == "served-audio-lm"]
        assert len({json.dumps(b) for b in model_calls}) == 41 and server.max_in_flight > 1
    res = results_json(tmp_path / "first" / "out")
    assert res["config"]["model"] == "openai-audio"
    assert res["n-samples"]["airbench_sample_foundation"]["effective"] == 35
    assert res["n-samples"]["airbench_sample_chat"]["effective"] == 6
    (failed,) = res["lm_eval_audio_data"]["failed_requests"]
    assert failed.startswith("airbench_sample_foundation/doc ")
    assert res["results"]["airbench_sample_chat"]["judge_failures,none"] == 0
    assert "gpt_align,none" in res["results"]["airbench_sample_foundation"]
    assert list((tmp_path / "first" / "out").glob("served-audio-lm/results_*.json"))

    with ScriptedJudge(models=MODELS) as server:
        second = _cli(server, tmp_path / "second", *cache)
        assert second.returncode == 0, second.stderr[-4000:]
        assert "Cached requests: 40, Requests remaining: 1" in second.stderr
        (asked,) = [b for b in server.requests if b["model"] == "served-audio-lm"]
        assert sends_target(asked)
    assert "lm_eval_audio_data" not in results_json(tmp_path / "second" / "out") or \
        "failed_requests" not in results_json(tmp_path / "second" / "out")["lm_eval_audio_data"]


def test_a_thinking_servers_trace_stays_out_of_the_answer(wav_file):
    """A server with a reasoning parser hands the trace over apart (vLLM: reasoning, SGLang: reasoning_content);
    with thinking_budget= the model is known to think: its requests carry no stop strings (they cut the answer,
    after the trace) and at least the budget in max_tokens."""
    replies = iter([{"content": "\n\nDog\nmore", "reasoning_content": "It barks."},
                    {"content": None, "reasoning": "It barks, so", "finish_reason": "length"}])
    with ScriptedJudge(models=MODELS, reply=lambda prompt: next(replies)) as server:
        lm = _lm(server, thinking_budget=64, num_concurrent=1)
        answers = lm.generate_until([_request("<audio>Which animal?", [str(wav_file)], {"until": ["\n"],
                                                                                        "max_gen_toks": 8}, doc_id=i)
                                     for i in range(2)])
    assert [str(a) for a in answers] == ["Dog", ""]
    assert answers[0].reasoning == "It barks." and not answers[1].finished
    assert all("stop" not in body and body["max_tokens"] == 64 for body in server.requests)
    assert lm.notes.data_notes["reasoning_traces"]["t"]["unfinished"] == 1
    assert lm.run_record["reasoning_trace"]["budget_from"].startswith("thinking_budget= in --model_args")


def test_the_bundled_text_only_judge_server_says_it_takes_no_audio_and_audio_none_runs_through_it(tmp_path):
    """openai-audio pointed at ``lm-eval-audio serve-judge`` (SmolLM2, text only): every request's refusal says why
    and what to do, and with audio=none the served path runs end to end offline."""
    import threading

    from lm_eval_audio.judges import local_server
    from lm_eval_audio.storage import bundled_models

    with pytest.raises(local_server.BadRequest, match="a text-only server: it takes no audio .*audio=none"):
        local_server.parse_request(json.dumps({"messages": [{"role": "user", "content": [
            {"type": "text", "text": "q"}, {"type": "input_audio", "input_audio": {"data": "", "format": "wav"}}]}]})
            .encode(), 8)
    server, url, engine = local_server.start(bundled_models.SMOLLM2, port=0, max_new_tokens=4, served_name="smollm2")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = ["lm_eval", "--model", "openai-audio", "--tasks", "spoken_digits_gen", "--limit", "2"]
        refused = run_cli([*base, "--model_args", f"model=smollm2,base_url={url}"])
        assert refused.returncode == 2, refused.stderr[-3000:]
        assert "HTTP 400" in refused.stderr and "a text-only server: it takes no audio" in refused.stderr
        ran = run_cli([*base, "--model_args", f"model=smollm2,base_url={url},audio=none",
                       "--output_path", str(tmp_path / "out")])
        assert ran.returncode == 0, ran.stderr[-3000:]
        assert results_json(tmp_path / "out")["lm_eval_audio_condition"] == "none"
    finally:
        server.shutdown()
        local_server.stop(server, engine)
