"""Seed-TTS-eval (ByteDance, arXiv 2406.02430; BytedanceSpeech/seed-tts-eval): what shared code needs to know of this
folder."""

from lm_eval_audio.benchmarks.registry import Benchmark


def check_data(tasks: list[str], metadata: dict) -> None:
    """Each set's list is there: the local folder's, or the Hub's (fetched now; the prompt clips come as the tasks
    load)."""
    from lm_eval_audio.benchmarks.data_spec import is_sample_task

    chosen = [t for t in tasks if not is_sample_task(t)]
    if chosen:
        from lm_eval_audio.tasks.seedtts import data

        wanted = [s for s in data.SETS if any(s.replace("-", "_") in t for t in chosen)] or list(data.SETS)
        for test_set in wanted:
            data.data_source(test_set, metadata, sample=False)


BENCHMARK = Benchmark(
    name="Seed-TTS-eval",
    check_data=check_data,
    scales={"seedtts_wer": "fraction"},
    headline_metrics=("seedtts_wer",),
    table_note=("Seed-TTS-eval: seedtts_wer is the mean of the utterances' error rates, the transcript of what the "
                "model said against the text it was asked to say (Whisper large-v3 for test-en, Paraformer-zh for "
                "test-zh and test-hard, as there; docs/SPOKEN.md)"))
