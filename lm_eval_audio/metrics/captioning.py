"""Corpus-level captioning metrics as the DCASE audio-captioning baseline's caption-evaluation-tools computes them
(audio-captioning/caption-evaluation-tools, a Python 3 copy of tylin/coco-caption): CIDEr-D, SPICE, SPIDEr (their
mean) and METEOR 1.5 (``meteor_dcase``), each over the WHOLE set with every reference of each clip.

The code that scores is coco-caption's own, as PyPI's ``pycocoevalcap`` 1.2 ships it (the captioning extra,
``pip install -e '.[captioning]'``, which scripts/setup.sh installs): candidates and references first go through its
``PTBTokenizer`` (Stanford CoreNLP 3.4.1's PTB tokenizer, lower-cased, punctuation dropped), then ``Cider`` (which
is CIDEr-D: n-grams 1-4, clipped counts, a Gaussian length penalty with sigma 6, times 10, its IDF from the
evaluated set's references), ``Meteor`` (meteor-1.5.jar, ``-l en -norm``, with its English paraphrase table) and
``Spice`` (spice-1.0.jar). These need Java (Debian's default-jre-headless); SPICE also needs Stanford CoreNLP 3.6.0
(``stanford-corenlp-3.6.0.jar`` and ``stanford-corenlp-3.6.0-models.jar``), which no PyPI or Debian package
carries: without them SPICE and SPIDEr are NaN with that reason, never a number.

``meteor_dcase`` is METEOR 1.5 (the Java jar): not ``lm_eval_audio.metrics.meteor`` (nltk's METEOR over one
reference, as AudioBench scores), a different computation with different numbers.

The scores are computed once per set (``scores`` caches them by the set's content), whichever metric asks first.
"""

from __future__ import annotations

import functools
import math
import re
import shutil
from pathlib import Path

METRICS = ("cider_d", "spice", "spider", "meteor_dcase")
CORENLP_JARS = ("stanford-corenlp-3.6.0.jar", "stanford-corenlp-3.6.0-models.jar")
INSTALL = "pip install -e '.[captioning]' (scripts/setup.sh does)"


class CaptioningUnavailable(RuntimeError):
    """The metric cannot be computed here: what is missing and how to install it."""


def _package() -> Path:
    try:
        import pycocoevalcap
    except ImportError:
        raise CaptioningUnavailable(f"the captioning metrics need pycocoevalcap 1.2 (coco-caption's code with its "
                                    f"jars): {INSTALL}") from None
    return Path(list(pycocoevalcap.__path__)[0]).resolve()  # a namespace package: no __init__.py


def java_problem() -> str:
    """Why the Java metrics (all of them: the PTB tokenizer is Java) cannot run, or ""."""
    if shutil.which("java") is None:
        return "no java on PATH: apt-get install default-jre-headless (scripts/setup.sh does)"
    return ""


def spice_problem() -> str:
    """Why SPICE cannot run here, or "" (pycocoevalcap would otherwise download CoreNLP itself, and fail offline)."""
    lib = _package() / "spice" / "lib"
    missing = [jar for jar in CORENLP_JARS if not (lib / jar).is_file()]
    if missing:
        return (f"SPICE needs Stanford CoreNLP 3.6.0 ({', '.join(missing)} in {lib}), which no PyPI or Debian "
                "package carries: copy both jars there from stanford-corenlp-full-2015-12-09.zip")
    return ""


# The PTB tokenizer (Java) reads one caption a line and starts a new line at each of these, while coco-caption's
# wrapper replaces only "\n": one answer holding "\r" would shift every later caption onto the wrong clip, with
# nothing to show it (the reference tools share the flaw). As spaces, the text tokenizes as it reads.
_LINE_BREAKS = re.compile("[\r\v\f\u2028\u2029]")


def _tokenized(candidates: list[str], references: list[list[str]]) -> tuple[dict, dict]:
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    tokenizer = PTBTokenizer()
    res = tokenizer.tokenize({i: [{"caption": _LINE_BREAKS.sub(" ", c)}] for i, c in enumerate(candidates)})
    gts = tokenizer.tokenize({i: [{"caption": _LINE_BREAKS.sub(" ", r)} for r in refs]
                              for i, refs in enumerate(references)})
    return res, gts


@functools.lru_cache(maxsize=1)
def meteor_scorer():
    """One METEOR 1.5 process for the whole run: starting the jar (its paraphrase table loaded) takes about 6 s, a
    set scored by a running one milliseconds; each ``compute_score`` is a set of its own (the jar's aggregate is over
    the segments of that call only)."""
    from pycocoevalcap.meteor.meteor import Meteor

    return Meteor()  # its process ends with this one (the jar stops at the end of its input)


def corpus_scores(candidates: list[str], references: list[list[str]]) -> dict:
    """``{"cider_d", "spice", "spider", "meteor_dcase": corpus score or None, "cider_d_items": per-clip CIDEr-D,
    "refused": {metric: reason}}`` of ``candidates[i]`` against all of ``references[i]``. Raises
    ``CaptioningUnavailable`` where nothing can be computed (no pycocoevalcap, no Java)."""
    if len(candidates) != len(references):
        raise ValueError(f"{len(candidates)} candidates for {len(references)} reference lists")
    if any(not refs for refs in references):
        raise ValueError("every clip needs at least one reference caption")
    _package()
    problem = java_problem()
    if problem:
        raise CaptioningUnavailable(f"the captioning metrics (coco-caption's PTB tokenizer, METEOR, SPICE) need "
                                    f"Java: {problem}")
    from pycocoevalcap.cider.cider import Cider

    import subprocess

    res, gts = _tokenized(list(candidates), [list(r) for r in references])
    cider, cider_items = Cider().compute_score(gts, res)
    out = {"cider_d": float(cider), "cider_d_items": [float(x) for x in cider_items], "meteor_dcase": None,
           "spice": None, "spider": None, "refused": {}}
    # METEOR and SPICE are Java processes of their own: one that fails (out of memory, killed) leaves the others'
    # numbers, and its own is NaN with why (a dead METEOR process is not kept for the next set)
    try:
        out["meteor_dcase"] = float(meteor_scorer().compute_score(gts, res)[0])
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        meteor_scorer.cache_clear()
        out["refused"]["meteor_dcase"] = f"coco-caption's METEOR (Java) failed: {type(e).__name__}: {e}"
    problem = spice_problem()
    if not problem:
        from pycocoevalcap.spice.spice import Spice

        try:
            spice, _ = Spice().compute_score(gts, res)
            out["spice"], out["spider"] = float(spice), (float(cider) + float(spice)) / 2
            return out
        except (OSError, subprocess.CalledProcessError) as e:  # its jar asks Java for 8 GB
            problem = f"coco-caption's SPICE (Java) failed: {type(e).__name__}: {e}"
    out["refused"].update({"spice": problem, "spider": f"SPIDEr is the mean of CIDEr-D and SPICE: {problem}"})
    return out


@functools.lru_cache(maxsize=4)
def _cached(pairs: tuple[tuple[str, tuple[str, ...]], ...]) -> dict:
    return corpus_scores([c for c, _ in pairs], [list(r) for _, r in pairs])


def scores(items: list[dict]) -> dict:
    """``corpus_scores`` of logged items (``{"doc_id", "candidate", "references"}``, as ``item`` makes them), in
    document order, computed once for the set: each metric's aggregation calls this with the same items."""
    ordered = sorted(items, key=lambda i: i["doc_id"])
    return _cached(tuple((i["candidate"], tuple(i["references"])) for i in ordered))


def item(doc_id: int, candidate, references: list[str]) -> dict:
    """One clip's entry for the aggregations (a non-text answer scored as the empty caption)."""
    return {"doc_id": doc_id, "candidate": candidate if isinstance(candidate, str) else "",
            "references": list(references)}


def aggregate(metric: str, items: list[dict], task) -> float:
    """``metric`` (one of ``METRICS``) of the set, NaN with its reason (in the results) where it cannot be computed;
    the per-clip CIDEr-D goes into the logged samples."""
    if not items:
        return task.not_a_number(metric, "the task has no item to score")
    import subprocess

    try:
        result = scores(items)
    except CaptioningUnavailable as e:
        return task.not_a_number(metric, str(e))
    except (OSError, subprocess.CalledProcessError) as e:
        # coco-caption writes its temporary files into its own package folder (read-only on a shared install), and
        # SPICE's Java asks for 8 GB: the metric is NaN with why, never an error after the model has answered
        return task.not_a_number(metric, f"coco-caption's scorer failed: {e}")
    if metric == "cider_d":
        ordered = sorted(i["doc_id"] for i in items)
        task.report_item_scores("cider_d", zip(ordered, result["cider_d_items"]))
    if result[metric] is None:
        return task.not_a_number(metric, result["refused"][metric])
    if not math.isfinite(result[metric]):  # pycocoevalcap makes a clip's unparsable SPICE score NaN
        return task.not_a_number(metric, f"{metric} came out {result[metric]}: a clip's score was undefined")
    return result[metric]


def process_results(doc: dict, results: list) -> dict:
    """One clip's entries for the four corpus metrics; a missing or unplayable clip is scored as the empty caption
    (it stays in the corpus, whose CIDEr-D IDF counts its references) and counted in ``audio_missing``."""
    missing = bool(doc["audio_problem"])
    entry = item(doc["doc_id"], "" if missing else results[0], doc["references"])
    return {**{metric: entry for metric in METRICS}, "audio_missing": float(missing)}


def cider_d(items, task):
    return aggregate("cider_d", items, task)


def spice(items, task):
    return aggregate("spice", items, task)


def spider(items, task):
    return aggregate("spider", items, task)


def meteor_dcase(items, task):
    return aggregate("meteor_dcase", items, task)
