"""GTZAN (Tzanetakis and Cook, 2002; as UltraEval-Audio evaluates it, from TwinkStart/GTZAN): what shared code needs
to know of this folder."""

from lm_eval_audio.benchmarks.registry import Benchmark
from lm_eval_audio.benchmarks.speech_sets import data_check



def row_notes(task: str, values: dict) -> list[str]:
    """Where acc is below label_in_answer: answers that name their genre but do not begin with it (a small LLM's
    opening quotation mark, say), wrong in UltraEval-Audio's prefix reading."""
    acc, anywhere = values.get("acc"), values.get("label_in_answer")
    if acc is None or anywhere is None or anywhere <= acc:
        return []
    return [f"acc {acc:.4f} is UltraEval-Audio's reading, which needs the answer to begin with its genre: "
            f"{anywhere - acc:.0%} of the answers name their genre after something else (a quotation mark, other "
            f"words) and count wrong there; label_in_answer ({anywhere:.4f}) reads the genre anywhere in the answer"]


BENCHMARK = Benchmark(
    name="GTZAN",
    check_data=data_check("lm_eval_audio.tasks.gtzan.data"),
    headline_metrics=("acc",),
    row_notes=row_notes)
