"""The scale of a number where it is printed: lm-eval prints every metric as a bare number, so an error rate of
12.8889 (a fraction: 1,289 %) stands beside a 0-100 BLEU and a 0-1 accuracy with nothing to tell them apart. A
metric's scale is said beside it in the printed table (``harness.printed_table``) and in ``report``."""

from __future__ import annotations

# An error rate is kept as lm-eval and the official scorers compute it, a fraction; model cards print it x100 as %.
FRACTION = "fraction"
# What a metric of ours is on where nothing declares another scale: accuracies, rates, mAP, METEOR, SPICE.
FRACTION_OF_ONE = "0-1"
# The shared metrics' scales (a benchmark declares its own in its ``Benchmark.scales``). CIDEr-D is x10 as
# coco-caption computes it (its maximum 10); SPIDEr the mean of CIDEr-D and SPICE.
SHARED_SCALES = {"wer": FRACTION, "cer": FRACTION, "bleu": "0-100", "cider_d": "0-10", "spider": "0-5.5",
                 "speech_text_wer": FRACTION, "speech_text_cer": FRACTION,
                 # how spoken answers sound (speech_quality): mean opinion scores, and a cosine
                 "utmos": "1-5", "dnsmos_sig": "1-5", "dnsmos_bak": "1-5", "dnsmos_ovrl": "1-5", "dnsmos_p808": "1-5",
                 "speaker_similarity": "cosine, -1 to 1"}


def scale_of(metric: str, scales: dict[str, str]) -> str | None:
    """``metric``'s scale: its own, or that of the metric it is a variant of (``wer_template_mean``: ``wer``'s)."""
    if metric.endswith("_stderr"):
        return None
    if metric in scales:
        return scales[metric]
    return next((scale for name, scale in scales.items() if metric.startswith(f"{name}_")), None)


def with_scale(value: float, scale: str, note: str = "") -> str:
    """``value`` as the printed table shows it with its scale (a fraction also as the percentage cards print), and
    ``note`` after it in the same brackets."""
    said = f"fraction; {100 * value:.2f} %" if scale == FRACTION else scale
    return f"{value:.4f} ({said}{'; ' + note if note else ''})"
