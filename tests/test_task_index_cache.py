"""lm-eval's task index from kept YAML parses (harness/task_index_cache.py): the same configurations lm-eval's
parser makes, a changed file or included template parsed anew, a file changed moments ago not kept, an unreadable
cache ignored."""

from __future__ import annotations

import os
import pickle
import time

import pytest


@pytest.fixture()
def index(tmp_path, monkeypatch):
    """(build(folder) -> {file: cfg}, the cache file, the files YAML-parsed by the last build): each YAML file of
    the folder read as lm-eval's index reads it (``lm_eval.tasks._index.load_yaml``, patched as a run patches it;
    conftest keeps ``TaskIndex.build`` itself built once per session), its kept parses in a file of this test,
    read anew by each build as a new process would."""
    import lm_eval.tasks._index as task_index
    import yaml
    from lm_eval.tasks import TaskManager  # noqa: F401  (loading it patches the index module)

    from lm_eval_audio.harness import task_index_cache

    cache = tmp_path / "task_index.pickle"
    monkeypatch.setenv(task_index_cache.ENV, str(cache))
    parses = []
    original = yaml.load

    def counted(stream, Loader):
        parses.append(os.path.basename(stream.name))
        return original(stream, Loader=Loader)

    monkeypatch.setattr(yaml, "load", counted)  # lm-eval's loader parses each file with yaml.load

    def build(folder):
        monkeypatch.setattr(task_index_cache, "_kept", None)  # a new process: the file read again
        parses.clear()
        parsed = {p.name: task_index.load_yaml(p, resolve_func=False, recursive=True)
                  for p in sorted(folder.glob("*.yaml"))}
        task_index_cache.save()
        return parsed

    return build, cache, parses


def _write(path, text, age_seconds=60):
    path.write_text(text)
    then = time.time() - age_seconds
    os.utime(path, (then, then))


def test_a_second_index_reads_the_kept_parses_and_a_changed_template_is_read_again(index, tmp_path, monkeypatch):
    build, cache, parses = index
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    _write(tasks / "_template_yaml", "output_type: generate_until\nmetric_list:\n  - metric: exact_match\n")
    _write(tasks / "a.yaml", "include: _template_yaml\ntask: cached_a\ndoc_to_text: !function utils.text\n")
    _write(tasks / "b.yaml", "include: _template_yaml\ntask: cached_b\noutput_type: loglikelihood\n")

    monkeypatch.setenv("LM_EVAL_AUDIO_TASK_INDEX", "")  # off: lm-eval's own parses
    plain = build(tasks)
    monkeypatch.setenv("LM_EVAL_AUDIO_TASK_INDEX", str(cache))
    assert not cache.exists()

    first = build(tasks)
    assert first == plain and first["a.yaml"]["doc_to_text"].endswith("utils.text")
    assert sorted(parses) == ["_template_yaml", "_template_yaml", "a.yaml", "b.yaml"] and cache.is_file()
    second = build(tasks)
    assert second == plain and parses == []  # nothing parsed: both from the file
    second["a.yaml"]["metric_list"].append("changed by a caller")
    assert build(tasks) == plain  # each build its own copy

    # the template both include changes (same size, another time): both are parsed again
    _write(tasks / "_template_yaml", "output_type: generate_until\nmetric_list:\n  - metric: exact_matcH\n", 30)
    changed = build(tasks)
    assert sorted(parses) == ["_template_yaml", "_template_yaml", "a.yaml", "b.yaml"]
    assert changed["a.yaml"]["metric_list"] == [{"metric": "exact_matcH"}]
    assert changed["b.yaml"]["output_type"] == "loglikelihood"  # the file's own key still wins

    # a file written a moment ago is parsed, and not kept: the next build parses it again
    _write(tasks / "b.yaml", "include: _template_yaml\ntask: cached_b\n", age_seconds=0)
    build(tasks)
    assert build(tasks)["b.yaml"]["output_type"] == "generate_until" and parses == ["b.yaml", "_template_yaml"]

    # a removed file's kept parse goes when the file is next written
    (tasks / "a.yaml").unlink()
    _write(tasks / "c.yaml", "task: cached_c\noutput_type: generate_until\n")
    assert set(build(tasks)) == {"b.yaml", "c.yaml"}
    with open(cache, "rb") as f:
        assert str(tasks / "a.yaml") not in pickle.load(f)["entries"]


def test_an_unreadable_cache_file_is_parsed_past_and_written_again(index, tmp_path):
    build, cache, parses = index
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    _write(tasks / "a.yaml", "task: broken_cache_a\noutput_type: generate_until\n")
    cache.write_bytes(b"not a pickle")
    assert build(tasks) == {"a.yaml": {"task": "broken_cache_a", "output_type": "generate_until"}}
    assert parses == ["a.yaml"]
    assert build(tasks) and parses == []  # written again, read the next time
