"""The prompts a model's authors published for a benchmark, asked with ``--model_args ...,prompts=authors``
(issue 42, item 6); ``prompts=benchmark``, the default, asks each benchmark's own.

lm-eval merges ``--model_args`` into every task's metadata, so a task's loader sees ``prompts`` and the model's
name: ``pretrained`` (hf-audio: a Hub id or a local folder, whose ``config.json`` ``model_type`` is read) or
``model`` (openai-audio: the served model's name). :func:`family` finds the model's family from them.

Shared code names no benchmark: each benchmark folder declares, per family, what its authors published for it
(``AUTHORS_PROMPTS`` in its ``data.py``, each entry citing the repository, path and line it comes from), as one
of three kinds:

* :class:`Published`: the authors' prompt, asked in place of the benchmark's;
* :class:`OwnFormat`: the authors state that they asked the benchmark's own prompt: it is asked, and that is said;
* :class:`NotUsed`: a published prompt whose answer the task's scoring cannot read (a letter where the scorer reads
  class names): the benchmark's own is asked, and why is said.

A family a folder declares nothing for gets the benchmark's own prompt, recorded as "no published prompt for
<family> on <benchmark>: the benchmark's own". A model whose family has no authors' prompts at all stops the load
in one line listing the families that have some. An explicit ``--metadata '{"prompt": "..."}'`` (the speech sets'
instruction override) still wins, and the record says so. What applied goes into the results under
``lm_eval_audio_data.prompt_source`` (family, model, what was asked, the citation, what else the authors' evaluation
did); the text asked under ``lm_eval_audio_data.prompts``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from lm_eval_audio.benchmarks.choice_layout import LayoutDataError
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.speech_sets import PROMPT_KEY as OVERRIDE_KEY  # the explicit instruction: it wins
from lm_eval_audio.benchmarks.task_settings import one_of
from lm_eval_audio.endpoints.model_args import PROMPT_SOURCES
from lm_eval_audio.model_wrappers import family_adapters
from lm_eval_audio.model_wrappers.families import Family
from lm_eval_audio.model_wrappers.family_adapters.audio_flamingo import AUDIO_FLAMINGO_3
from lm_eval_audio.model_wrappers.family_adapters.qwen2_5_omni import QWEN2_5_OMNI
from lm_eval_audio.model_wrappers.family_adapters.qwen2_audio import QWEN2_AUDIO
from lm_eval_audio.model_wrappers.family_adapters.qwen3_omni import QWEN3_OMNI

KEY = "prompts"
MODES = PROMPT_SOURCES
OWN = "the benchmark's own (the authors' stated setting)"


class AuthorPromptError(LayoutDataError):
    """``prompts=`` that cannot be followed: an unknown value, or a model whose family has no authors' prompts."""


@dataclass(frozen=True)
class Published:
    """The authors' prompt. ``text`` may hold ``{question}``, ``{options}`` (one ``(A) choice`` a line) and
    ``{options_inline}`` (the same on one line) where a folder fills it per item."""

    text: str
    source: str  # repository@commit, path:line
    notes: str = ""  # what else the authors' evaluation did: a system prompt, the base model, an answer framing


@dataclass(frozen=True)
class OwnFormat:
    """The authors state they asked the benchmark's own prompt."""

    source: str
    notes: str = ""


@dataclass(frozen=True)
class NotUsed:
    """A published prompt the task's scoring cannot read the answer of: the benchmark's own is asked."""

    text: str
    source: str
    reason: str


# --- what families published for a kind of task, whatever the benchmark (a folder adds its own) -------------------

# QwenLM/Qwen3-Omni@0309c201 README.md, "Setting for Evaluation", Default Prompts: "ASR, Chinese" and "ASR, other
# languages" (the Chinese one taken for Mandarin: the README names no other Chinese language), and "S2TT"
QWEN3_OMNI_ASR_CHINESE = "请将这段中文语音转换为纯文本。"
QWEN3_OMNI_ASR_OTHER = "Transcribe the {language} audio into text."
QWEN3_OMNI_S2TT = "Listen to the provided {source} speech and produce a translation in {target} text."
QWEN3_OMNI_SOURCE = "QwenLM/Qwen3-Omni@0309c201 README.md, 'Setting for Evaluation', Default Prompts ({task})"
# ... and, for a benchmark that comes with its own formatting: "they come with their own ChatML formatting"
QWEN3_OMNI_OWN_FORMAT_SOURCE = ("QwenLM/Qwen3-Omni@0309c201 README.md, 'Setting for Evaluation' (Benchmark-Specific "
                                "Formatting)")
# Qwen2-Audio's ASR prompt, from the OSS jsonl files eval_audio/EVALUATION.md lists (QwenLM/Qwen2-Audio@595360e,
# eval_audio/evaluate_asr.py:61 prepends the audio to it), as MoonshotAI/Kimi-Audio-Evalkit@4080c49
# almeval/models/qwen_audio.py:32 reproduces it; the language tags of the sets Qwen2-Audio evaluated (librispeech,
# aishell2, cv15_{en,zh,yue,fr}, fleurs_zh)
QWEN2_AUDIO_ASR = "Detect the language and recognize the speech: <|{tag}|>"
QWEN2_AUDIO_ASR_TAGS = ("en", "zh", "yue", "fr")
QWEN2_AUDIO_ASR_SOURCE = ("QwenLM/Qwen2-Audio@595360e eval_audio/evaluate_asr.py:61 (the prompt from its jsonl), as "
                          "MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/qwen_audio.py:32 reproduces it")
# Qwen2.5-Omni's ASR prompts and their system prompt: MoonshotAI/Kimi-Audio-Evalkit@4080c49
# almeval/models/qwen_omni.py:27-66 (citing the Qwen2.5-Omni cookbooks)
QWEN2_5_OMNI_ASR = {"zh": "请将这段中文语音转换为纯文本，去掉标点符号。",
                    "en": "Transcribe the English audio into text without any punctuation marks."}
QWEN2_5_OMNI_SOURCE = ("MoonshotAI/Kimi-Audio-Evalkit@4080c49 almeval/models/qwen_omni.py:27-66 (from the "
                       "Qwen2.5-Omni cookbooks)")
QWEN2_5_OMNI_ASR_NOTES = "with the system prompt 'You are a speech recognition model.' (system_prompt= in --model_args)"
# Audio Flamingo 3's transcription request (English speech): huggingface/transformers
# src/transformers/models/audioflamingo3/processing_audioflamingo3.py, default_transcription_prompt
AF3_ASR = "Transcribe the input speech."
AF3_ASR_SOURCE = ("huggingface/transformers src/transformers/models/audioflamingo3/processing_audioflamingo3.py, "
                  "default_transcription_prompt (apply_transcription_request)")
AF3_ASR_NOTES = ("answer extraction: the model answers with a framing sentence ('The spoken content of the audio is "
                 "...'), which its processor strips (batch_decode(strip_prefix=True): the prefixes 'The spoken "
                 "content of the audio is', 'The transcription of the audio is', 'The content of the input audio "
                 "is', a trailing '.', surrounding quotes); this task scores the answer as given, so those words "
                 "count as errors")


def speech_recognition(language: str, name: str) -> dict[Family, Published]:
    """The families' published speech recognition prompts for speech in ``language`` (ISO 639: ``en``, ``zh`` for
    Mandarin, ``yue``, ...), whose English name is ``name``: Qwen3-Omni's for every language, the others' for the
    languages their authors evaluated."""
    out = {QWEN3_OMNI: Published(QWEN3_OMNI_ASR_CHINESE if language == "zh" else
                                   QWEN3_OMNI_ASR_OTHER.format(language=name), QWEN3_OMNI_SOURCE.format(task="ASR"))}
    if language in QWEN2_AUDIO_ASR_TAGS:
        out[QWEN2_AUDIO] = Published(QWEN2_AUDIO_ASR.format(tag=language), QWEN2_AUDIO_ASR_SOURCE)
    if language in QWEN2_5_OMNI_ASR:
        out[QWEN2_5_OMNI] = Published(QWEN2_5_OMNI_ASR[language], QWEN2_5_OMNI_SOURCE, QWEN2_5_OMNI_ASR_NOTES)
    if language == "en":
        out[AUDIO_FLAMINGO_3] = Published(AF3_ASR, AF3_ASR_SOURCE, AF3_ASR_NOTES)
    return out


def speech_translation(source: str, target: str) -> dict[Family, Published]:
    """The families' published speech translation prompts from ``source`` into ``target`` (English names)."""
    return {QWEN3_OMNI: Published(QWEN3_OMNI_S2TT.format(source=source, target=target),
                                    QWEN3_OMNI_SOURCE.format(task="S2TT"))}


# --- the setting, the family, the record ---------------------------------------------------------------------------

def mode(metadata: dict) -> str:
    return one_of(metadata, KEY, "benchmark", MODES, AuthorPromptError,
                  "give benchmark (each benchmark's own prompt, the default) or authors (the prompts the model's "
                  "authors published for the benchmark, where known)")


def model_name(metadata: dict) -> str:
    """The model's name as the run gives it: hf-audio's ``pretrained``, else openai-audio's ``model``."""
    for key in ("pretrained", "model"):
        value = metadata.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def _model_type(name: str) -> str:
    """A local checkpoint folder's ``config.json`` ``model_type``; "" for a Hub id or a served name."""
    try:
        config = Path(name).expanduser() / "config.json"
        if config.is_file():
            value = json.loads(config.read_text(encoding="utf-8")).get("model_type")
            return value if isinstance(value, str) else ""
    except (OSError, ValueError, AttributeError):
        return ""
    return ""


def with_authors_prompts() -> tuple[Family, ...]:
    """The families whose authors published prompts (their records carry ``authors_notes``)."""
    return tuple(f for f in family_adapters.all_families() if f.authors_notes)


def family(metadata: dict) -> Family:
    """The model's family: a local folder's ``model_type``, else a family's name part in the model's name (case
    aside); one line naming the model and the families that have authors' prompts where neither tells, or where the
    family has none."""
    name = model_name(metadata)
    known = ", ".join(f.name for f in with_authors_prompts())
    if not name:
        raise AuthorPromptError(f"{KEY}=authors needs the model's name to find its family: pretrained= (hf-audio) "
                                f"or model= (openai-audio) in --model_args. Families with authors' prompts: {known}")
    model_type = _model_type(name)
    of_type = family_adapters.of_model_type(model_type)
    if of_type is not None and of_type.authors_notes:
        return of_type
    by_name = family_adapters.named_in(name.replace("_", "-"), with_authors_prompts())
    if by_name is not None:
        return by_name
    found = of_type
    what = f" (config.json model_type {model_type!r})" if model_type else ""
    of = f"of the family {found.name}, which has no authors' prompts" if found else "of no family with authors' prompts"
    raise AuthorPromptError(f"{KEY}=authors: the model {name!r}{what} is {of}; families with authors' prompts: "
                            f"{known}. Use {KEY}=benchmark (the default) for it")


def check(metadata: dict) -> None:
    """Before the model loads: ``prompts`` is a known value and, for ``authors``, the model's family is known."""
    if mode(metadata) == "authors":
        family(metadata)


def lettered(choices: list[str], separator: str) -> str:
    return separator.join(f"({chr(65 + i)}) {choice}" for i, choice in enumerate(choices))


def fill(template: str, question: str, choices: list[str]) -> str:
    """A multiple-choice prompt template filled in for one item."""
    return template.format(question=question, options=lettered(choices, "\n"),
                           options_inline=lettered(choices, " "))


def authors_text(notes: DataNotes, label: str, metadata: dict, declared: dict, benchmark: str,
                 overridable: bool = True) -> str | None:
    """Under ``prompts=authors``, the authors' prompt (a :class:`Published` ``text``) for the task ``label`` of
    ``benchmark``, or None where the benchmark's own is asked; what applied, and why, recorded under
    ``prompt_source``. ``declared``: the folder's entries by family record. ``overridable``: the task reads the
    ``prompt`` override (which then wins). None under ``prompts=benchmark``, with nothing recorded."""
    if mode(metadata) != "authors":
        return None
    fam = family(metadata)
    entry = declared.get(fam)
    record = {"family": fam.name, "model": model_name(metadata), "prompts": "authors",
              "family_notes": fam.authors_notes}
    text = None
    if isinstance(entry, Published):
        text = entry.text
        record.update(asked="the authors' prompt", authors_prompt=entry.text, citation=entry.source)
        if entry.notes:
            record["notes"] = entry.notes
    elif isinstance(entry, OwnFormat):
        record.update(asked=OWN, citation=entry.source)
        if entry.notes:
            record["notes"] = entry.notes
    elif isinstance(entry, NotUsed):
        record.update(asked="the benchmark's own", authors_prompt=entry.text, citation=entry.source,
                      not_used=entry.reason)
    else:
        record["asked"] = f"no published prompt for {fam.name} on {benchmark}: the benchmark's own"
    if overridable and metadata.get(OVERRIDE_KEY) is not None:
        record["override"] = f"--metadata {OVERRIDE_KEY} given: it is asked, in place of the above"
        record["asked"] = f"the {OVERRIDE_KEY}= override (it wins over {KEY}=authors)"
        text = None
    notes.note("prompt_source", label, record)
    return text


def instruction(notes: DataNotes, label: str, metadata: dict, declared: dict, benchmark: str, default: str) -> str:
    """The default instruction a speech set passes on to ``speech_sets.asked`` (which applies the ``prompt``
    override and records the text): the authors' where ``prompts=authors`` finds one, else ``default``."""
    text = authors_text(notes, label, metadata, declared, benchmark)
    return default if text is None else text


def choice_prompts(docs: list[dict], notes: DataNotes, label: str, metadata: dict, declared: dict,
                   benchmark: str) -> list[dict]:
    """A multiple-choice task's documents, each given ``prompt`` (the authors' template filled in with its question
    and choices) where ``prompts=authors`` finds one; unchanged otherwise (the task's own prompt is asked)."""
    template = authors_text(notes, label, metadata, declared, benchmark, overridable=False)
    if template is None:
        return docs
    notes.note("prompts", label, template)
    return [{**doc, "prompt": fill(template, doc["question"], doc["choices"])} for doc in docs]
