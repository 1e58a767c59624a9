"""What a metric needs installed besides its Python packages, checked before the model loads: WordNet for METEOR's
synonym stage, nltk's ``punkt_tab`` for IFEval's sentence and word counts. ``scripts/setup.sh`` installs both; an
environment made otherwise hears at once what is missing and how to install it, not after the model has answered."""

from __future__ import annotations

# lm-eval's IFEval checks (VoiceBench's ifeval set scores with them) count sentences and words with nltk's punkt_tab
IFEVAL_METRICS = frozenset({"prompt_level_strict_acc", "inst_level_strict_acc", "prompt_level_loose_acc",
                            "inst_level_loose_acc", "ifeval_final"})


class MetricDataMissing(RuntimeError):
    """A metric's data is not installed (said before the model loads)."""


def check(metrics_by_task: dict[str, set[str]]) -> None:
    """``metrics_by_task``: task -> the metrics its YAML names; raises naming the tasks and the fix."""
    meteor = sorted(t for t, metrics in metrics_by_task.items() if "meteor" in metrics)
    if meteor:
        from lm_eval_audio.storage import wordnet_data

        try:
            wordnet_data.reader()
        except wordnet_data.WordNetMissing as e:
            raise MetricDataMissing(f"{', '.join(meteor)}: {e}") from None
    ifeval = sorted(t for t, metrics in metrics_by_task.items() if metrics & IFEVAL_METRICS)
    if ifeval:
        import nltk

        try:
            nltk.data.find("tokenizers/punkt_tab/english/")
        except LookupError:
            raise MetricDataMissing(
                f"{', '.join(ifeval)}: IFEval's checks count sentences with nltk's punkt_tab, which nltk does not "
                "find: run scripts/setup.sh (it installs it into the .venv), or python -m nltk.downloader punkt_tab "
                "where the network allows") from None
