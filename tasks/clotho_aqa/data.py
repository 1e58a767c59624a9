"""Clotho-AQA's test set (Lipping et al., EUSIPCO 2022) as the peer toolkits read it from the Hub:
``lmms-lab-audio/ClothoAQA`` (lmms-eval's ``tasks/clotho_aqa``, EvolvingLMMs-Lab/lmms-eval@75571cf
``_default_template_yaml:1``: configuration ``clotho_aqa``, split ``clotho_aqa_test_filtered``; the repository was
``lmms-lab/ClothoAQA`` before lmms-eval@4be7ee0), files ``clotho_aqa/clotho_aqa_test_filtered-0000k-of-00006.parquet``
with ``audio`` (an ``Audio`` cell), ``question`` and ``answer`` (one answer a question): 1,442 rows (its dataset
card, ``num_examples``).

The official test set (zenodo 6473207 ``clotho_aqa_test.csv``, as GeWu-Lab/MWAFM@a3ec4c5
``metadata/metadata_orig/clotho_aqa_test.csv`` holds it) has 8,514 rows: 2,838 questions on 473 clips, each asked of
three annotators (``answer``, ``confidence``). The Hub copy keeps one answer for 1,442 of them; its card does not say
how they were chosen (neither all three answers equal, 1,312 questions, nor two of three, 2,476 as MWAFM's
``clotho_aqa_test_clean.csv`` keeps them): the README says so.

The instruction is lmms-eval's (``clotho_aqa_test.yaml:11``): the question, then ``"\\nAnswer the question using a
single word only. "`` (its trailing space included).
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_audio.audio import table_checks
from lm_eval_audio.benchmarks import speech_sets
from lm_eval_audio.model_wrappers import author_prompts
from lm_eval_audio.model_wrappers.author_prompts import Published
from lm_eval_audio.benchmarks.choice_layout import LeftOut
from lm_eval_audio.benchmarks.data_notes import DataNotes
from lm_eval_audio.benchmarks.data_spec import DataSpec
from lm_eval_audio.model_wrappers.family_adapters.not_run import QWEN_AUDIO

SHARDS = "clotho_aqa/clotho_aqa_test_filtered-*.parquet"
SPEC = DataSpec(
    name="Clotho-AQA", variable="CLOTHO_AQA_DATA_DIR", metadata_key="clotho_aqa_data_dir",
    hub="lmms-lab-audio/ClothoAQA", holds=f"{SHARDS} (columns audio, question, answer)",
    sample=Path(__file__).resolve().parent / "sample_data", error=speech_sets.SpeechDataError)
QUESTION = "{question}"  # where a prompt template takes the item's question
# EvolvingLMMs-Lab/lmms-eval@75571cf lmms_eval/tasks/clotho_aqa/clotho_aqa_test.yaml:10-11 (pre_prompt "",
# post_prompt) and utils.py:15-19 (pre_prompt + question + post_prompt)
PROMPT = QUESTION + "\nAnswer the question using a single word only. "
AUTHORS_PROMPTS = {
    # QwenLM/Qwen-Audio@b50fb95 eval_audio/evaluate_aqa.py:108: the question alone after the base model's
    # <|startofanalysis|><|en|><|question|> task tags (the model's own template, not text of the benchmark)
    QWEN_AUDIO: Published(QUESTION, "QwenLM/Qwen-Audio@b50fb95 eval_audio/evaluate_aqa.py:108 (the question "
                            "after the base model's task tags)"),
}


def filled(template: str, question: str) -> str:
    """The instruction of one item: ``template`` with its question (a template without ``{question}`` is refused:
    the model would not be asked the question)."""
    if QUESTION not in template:
        raise speech_sets.SpeechDataError(
            f"the Clotho-AQA prompt {template!r} has no {QUESTION}: give a template holding it, e.g. "
            f"--metadata '{{\"prompt\": \"{QUESTION} Answer in one word.\"}}'")
    return template.replace(QUESTION, question)


def is_yes_no(answer: str) -> bool:
    """Qwen-Audio's binary subset (``evaluate_aqa.py:214``: ``gt.lower() in ["yes", "no"]``)."""
    return answer.lower() in ("yes", "no")


def load_docs(metadata: dict, sample: bool, *, notes: DataNotes) -> list[dict]:
    label = "Clotho-AQA test" + (" sample" if sample else "")
    shards = speech_sets.table_shards(SPEC, metadata, sample, SHARDS, label, notes)
    default = author_prompts.instruction(notes, label, metadata, AUTHORS_PROMPTS, "Clotho-AQA", PROMPT)
    template = speech_sets.asked(notes, label, metadata, default)
    filled(template, "")  # refused before any row is read
    docs, invalid, index = [], LeftOut(label, "row", notes), 0
    for path in shards:
        rows, clips = table_checks.parquet_rows(path, ["question", "answer"], "audio", speech_sets.SpeechDataError,
                                                SPEC.repo)
        for audio_row, (row, (_, problem)) in enumerate(zip(rows, clips)):
            row_index, index = index, index + 1
            question, answer = row.get("question"), row.get("answer")
            bad = [c for c, v in (("question", question), ("answer", answer)) if not isinstance(v, str) or not v.strip()]
            if bad:
                invalid.add(row_index, f"{path.name}/{audio_row}", f"no {' and no '.join(bad)} text")
                continue
            docs.append(speech_sets.document(
                len(docs), f"{path.name}/{audio_row}", answer, "", filled(template, question),
                audio_table=str(path), audio_row=audio_row, audio_problem=problem or "", question=question,
                yes_no=is_yes_no(answer)))
    invalid.warn(label)
    return speech_sets.checked(docs, label, notes, missing_are="scored wrong")
