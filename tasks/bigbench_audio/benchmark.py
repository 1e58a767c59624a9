"""Big Bench Audio (Artificial Analysis, 2024; ArtificialAnalysis/big_bench_audio): what shared code needs to know
of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark


def check_data(tasks: list[str], metadata: dict) -> None:
    """The metadata is there: the local folder's, or the Hub's (fetched now; the clips come as the tasks load)."""
    from lm_eval_audio.benchmarks.data_spec import real_tasks

    if real_tasks(tasks):
        from lm_eval_audio.tasks.bigbench_audio import data

        data.data_source(metadata, sample=False)


def check_judge(metadata: dict) -> None:
    """The judge reads each question's transcript (``judges.question_transcripts``): the recognizer is there."""
    import importlib.util

    from lm_eval_audio.judges.judge_config import JudgeConfigError

    fix = ("Big Bench Audio's judge reads each question through a recognizer: install the demo extra (pip install "
           "'lm-eval-audio[demo]', as scripts/setup.sh does), or run with --predict_only --log_samples and judge later")
    if importlib.util.find_spec("faster_whisper") is None:
        raise JudgeConfigError(f"faster-whisper is not installed; {fix}")
    if not metadata.get("bigbench_audio_question_asr"):
        from lm_eval_audio.storage import bundled_models

        try:
            bundled_models.whisper_tiny_en()
        except FileNotFoundError as e:
            raise JudgeConfigError(f"{e}; {fix}") from None
    from lm_eval_audio.model_wrappers.transcription import transcript_store

    try:  # the transcripts' cache, opened as the judge will open it (it raises naming its setting)
        transcript_store().close()
    except OSError as e:
        raise JudgeConfigError(f"Big Bench Audio's judge: {e}") from None


BENCHMARK = Benchmark(
    name="Big Bench Audio",
    check_data=check_data,
    check_judge=check_judge,
    count_metrics=("judge_failures",),
    without_judge="Big Bench Audio: nothing (every score is the judge's); the answers are logged",
    judge_metrics=("judge_acc",),
    headline_metrics=("judge_acc",),
)
