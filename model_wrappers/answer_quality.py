"""The quality of a run's spoken answers: the raters that the quality metrics a task names need
(``metrics.speech_quality``), their settings from the task's metadata, checked before the model loads, loaded once
per run as it starts (``harness.spoken_preflight``), and a task's answers rated in batches before it is scored.

Read from a spoken task's metadata (its YAML, ``--metadata``):

* ``speaker_model``: the ``WavLMForXVector`` checkpoint of ``speaker_similarity`` (a local folder or a Hub id in the
  cache; ``microsoft/wavlm-base-plus-sv`` by default);
* ``utmos_checkpoint``: SpeechMOS's ``utmos22_strong_step7459_v1.pt`` (by default where torch hub keeps it, fetched
  there on first use where the internet is reachable);
* ``emotion_model``: emotion2vec+ large's folder (``config.yaml``, ``model.pt``, ``tokens.txt``) or Hub id
  (``emotion2vec/emotion2vec_plus_large`` by default, fetched into the Hub cache on first use);
* ``quality_batch_size``: clips (for DNSMOS, 9-second windows) rated together, 8 by default; a score does not
  depend on it.

A rater that fails on the answers after the model answered does not stop the run: the task's answers stay unrated,
counted in ``speech_unrated``, and one warning names the rater and the error.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from lm_eval_audio.metrics.speech_quality import QUALITY
from lm_eval_audio.model_wrappers.quality_raters import (
    METRIC_RATER,
    SAMPLE_RATE,
    DnsMos,
    Emotion,
    SpeakerSimilarity,
    Utmos,
)
from lm_eval_audio.storage import run_state

log = logging.getLogger("lm_eval.audio.spoken")
WHO = "speech quality"
_EXTRA = "pip install 'lm-eval-audio[speech-quality]' (scripts/setup.sh installs it)"


@dataclass(frozen=True)
class QualitySpec:
    """The quality metrics one task names, and its raters' settings."""

    metrics: tuple[str, ...]
    speaker_model: str = SpeakerSimilarity.DEFAULT
    batch_size: int = 8
    utmos_checkpoint: str | None = None
    emotion_model: str | None = None
    not_rated: tuple[tuple[str, str], ...] = ()  # (metric, why) the task names and the run cannot rate

    @classmethod
    def of(cls, task: str, metrics: list[str], metadata: dict) -> QualitySpec:
        batch = metadata.get("quality_batch_size", 8)
        if not str(batch).isdigit() or int(batch) < 1:
            raise ValueError(f"{task}: quality_batch_size={batch!r} is not a whole number of clips (8 by default)")
        return cls(tuple(metrics), str(metadata.get("speaker_model") or SpeakerSimilarity.DEFAULT), int(batch),
                   str(metadata["utmos_checkpoint"]) if metadata.get("utmos_checkpoint") else None,
                   str(metadata["emotion_model"]) if metadata.get("emotion_model") else None)

    def without(self, metric: str, why: str) -> QualitySpec:
        """This spec, ``metric`` left unrated for ``why`` (said in the results)."""
        import dataclasses

        return dataclasses.replace(self, metrics=tuple(m for m in self.metrics if m != metric),
                                   not_rated=(*self.not_rated, (metric, why)))

    def raters(self) -> list[tuple]:
        """Each rater it needs, as the key it is loaded under."""
        settings = {SpeakerSimilarity.name: (self.speaker_model,), Utmos.name: (self.utmos_checkpoint,),
                    Emotion.name: (self.emotion_model,)}
        return [(name, *settings.get(name, ())) for name in sorted({METRIC_RATER[m] for m in self.metrics})]

    def check(self) -> None:
        """Each rater can be loaded: checked before the model loads."""
        for key in self.raters():
            if key[0] == DnsMos.name:
                for module in ("librosa", "onnxruntime"):
                    try:
                        __import__(module)
                    except ImportError:
                        raise ValueError(f"{WHO}: DNSMOS needs {module}, which is not installed: {_EXTRA}") from None
                from lm_eval_audio.storage import dnsmos_data

                try:
                    dnsmos_data.model_paths()
                except RuntimeError as e:
                    raise ValueError(f"{WHO}: {e}") from None
            elif key[0] == Utmos.name:
                from pathlib import Path

                from lm_eval_audio.model_wrappers import utmos22

                if key[1] and not Path(key[1]).is_file():
                    raise ValueError(f"{WHO}: utmos_checkpoint={key[1]} is no file; give the path of SpeechMOS's "
                                     f"{utmos22.FILE} ({utmos22.URL})")
                if not key[1] and not utmos22.default_checkpoint().is_file():
                    try:
                        utmos22.fetch(utmos22.default_checkpoint())
                    except ValueError as e:
                        raise ValueError(f"{WHO}: {e}") from None
            elif key[0] == Emotion.name:
                from lm_eval_audio.model_wrappers import emotion2vec

                emotion2vec.check_installed()
                emotion2vec.folder(key[1] or emotion2vec.REPO)  # fetched into the Hub cache now, or one line
            else:
                from lm_eval_audio.model_wrappers import checkpoints

                checkpoints.config_json(WHO, key[1], argument="speaker_model")


def _load(key: tuple):
    loaders = {DnsMos.name: lambda: DnsMos(), Utmos.name: lambda: Utmos(key[1]),
               Emotion.name: lambda: Emotion(key[1]), SpeakerSimilarity.name: lambda: SpeakerSimilarity(key[1])}
    return loaders[key[0]]()


def raters_for(task: str) -> list:
    """The raters of ``task``'s quality metrics, each loaded once per run."""
    run = run_state.current()
    spec = run.quality.get(task)
    if spec is None:
        return []
    for key in spec.raters():
        if key not in run.raters:
            run.raters[key] = _load(key)
    return [run.raters[key] for key in spec.raters()]


def record(task: str) -> dict:
    """What the results say of ``task``'s raters: each one's model, its revision or file digests, its rate."""
    spec = run_state.current().quality.get(task)
    if spec is None:
        return {}
    out = {"metrics": list(spec.metrics), "batch_size": spec.batch_size,
           "raters": {rater.name: rater.record() for rater in raters_for(task)}}
    return {**out, "not_rated": dict(spec.not_rated)} if spec.not_rated else out


def unless_the_model_clones(quality: dict, lm, model: str, say: bool = True) -> dict:
    """``quality`` with ``speaker_similarity`` left unrated, and said so (``say``: a warning; always in the results),
    where the model (``lm``: it, or its wrapper class) speaks in voices of its own (no wrapper here clones the
    prompt's voice: ``CLONES_VOICE``): a similarity to the prompt would measure nothing the model tried to do."""
    if getattr(lm, "CLONES_VOICE", False):
        return quality
    why = (f"{model} speaks in voices of its own and cannot take the prompt speaker's: its speaker similarity to "
           "the prompt is not rated, and the task reports its error rate only")
    out = {}
    for task, spec in quality.items():
        if SpeakerSimilarity.name in spec.metrics:
            if say:
                log.warning("%s: %s", task, why)
            spec = spec.without(SpeakerSimilarity.name, why)
        out[task] = spec
    return out


def _reference(task, doc):
    """The document's own clip at the raters' rate (the voice a speaker-similarity score compares with), or None
    where it has none or it cannot be read."""
    from lm_eval_audio.audio import decoding

    refs = task.doc_to_audio(doc) or []
    if not refs:
        return None
    try:
        return decoding.load(refs[0], SAMPLE_RATE)
    except Exception as e:  # counted unrated; the clip was read once already when the model was asked
        log.warning("%s: %s: the reference clip of a document could not be read (%s)", WHO, task.task_name, e)
        return None


def _clip_key(instance, answer, by_document: bool) -> tuple:
    """What one rating is for: the answer's clip, and for a rater that compares with the document's own clip, the
    document (repeats of a document share their reference)."""
    return answer.audio["sha256"], instance.doc_id if by_document else None


def rate_task(task) -> None:
    """Rate the spoken answers of ``task``'s instances (the raw answers, before its filters; what a filter makes
    of an answer shares its scores), each distinct clip once per rater. An answer with no samples (an empty text
    read aloud) is given to no rater: it stays unrated, and counted."""
    from lm_eval_audio.metrics.spoken_answer import spoken_of

    raters = raters_for(task.task_name)
    if not raters:
        return
    spec = run_state.current().quality[task.task_name]
    said = [(instance, answer) for instance in task.instances for answer in spoken_of(instance.resps)
            if answer.audio["seconds"] > 0]
    for rater in raters:
        docs = {instance.doc_id: instance.doc for instance, _ in said} if rater.needs_reference else {}
        references = {doc_id: _reference(task, doc) for doc_id, doc in docs.items()}
        paths = {_clip_key(i, a, rater.needs_reference): a.audio["path"] for i, a in said}
        try:
            scores = rater.rate(list(paths.values()), [references.get(doc_id) for _, doc_id in paths],
                                spec.batch_size)
        except Exception as e:  # the model has answered: its answers stay unrated, counted, not a dead run
            log.warning("%s: %s could not rate the answers of %s (%s: %s); they are counted in speech_unrated",
                        WHO, rater.name, task.task_name, type(e).__name__, e)
            continue
        by_key = dict(zip(paths, scores))
        for instance, answer in said:
            rated = by_key[_clip_key(instance, answer, rater.needs_reference)]
            answer.quality.update({m: rated[m] for m in rater.metrics if m in spec.metrics} if rated else {})


def refuse_on_text(task: str, metrics: list[str]) -> None:
    """A quality metric named on a task answered in text: one line."""
    raise ValueError(f"{task} names {', '.join(metrics)}, which rate{'s' if len(metrics) == 1 else ''} spoken "
                     f"answers, and it is answered in text: give it spoken_answers: true (docs/SPOKEN.md) or leave "
                     f"{'it' if len(metrics) == 1 else 'them'} out ({'; '.join(QUALITY[m] for m in metrics)})")
