"""A model family is one module of model_wrappers/family_adapters/ (its Family and its adapter, registered where they
are defined) plus its tiny-model builder (registered in lm_eval_audio/testing/tiny_models/); docs/MODELS.md's family
table is checked against what is registered."""

from __future__ import annotations

import re

import pytest

import family_proofs
from conftest import REPO
from lm_eval_audio.model_wrappers import families, family_adapters
from lm_eval_audio.model_wrappers.families import Family
from lm_eval_audio.testing.tiny_models import BUILDERS

DOC = (REPO / "docs" / "MODELS.md").read_text()
TABLE = DOC[DOC.index("| family | example checkpoint |"):]
ROWS = [row for row in TABLE[:TABLE.index("\n\n")].splitlines()[2:]]


def _row(name: str) -> str | None:
    return next((row for row in ROWS if re.match(rf"\| {re.escape(name)}\b", row)), None)


@pytest.mark.parametrize("family", family_adapters.proven_families(), ids=lambda f: f.name)
def test_a_familys_row_says_what_its_record_says(family):
    """The family table is checked against the records: a row names the record's example checkpoint and says it runs.
    (A new family is its module, its tiny builder and its extra: its row follows as it is described, and a family
    without one is reported as a skip here, not a failure.)"""
    row = _row(family.name)
    if row is None:
        pytest.skip(f"docs/MODELS.md has no row for {family.name} yet")
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert f"`{family.example}`" in cells[1] and cells[2].startswith("runs"), row[:200]


def test_every_row_that_says_runs_is_a_registered_family():
    registered = {f.name for f in family_adapters.proven_families()} | {families.TEXT_ONLY.name}
    running = [row.split("|")[1].strip() for row in ROWS if row.split("|")[3].strip().startswith("runs")]
    assert running and all(any(name.startswith(r) or r.startswith(name) for r in registered) for name in running), running


def test_every_family_that_is_not_run_is_in_the_table_with_its_reason():
    for family in family_adapters.all_families():
        if not family.runs:
            assert family.name in TABLE or any(t in TABLE for t in family.model_types), (
                f"{family.name} is refused but not in docs/MODELS.md's family table")


def test_each_family_names_tiny_models_that_exist_and_every_tiny_model_proves_a_family():
    proving = [name for family in family_adapters.proven_families() for name in family.tiny_models]
    assert len(proving) == len(set(proving))
    assert set(proving) <= set(BUILDERS), set(proving) - set(BUILDERS)
    assert set(BUILDERS) - set(proving) == {"gemma_text"}  # the text-only LM of the BOS and log-likelihood tests


@pytest.mark.parametrize("proof", sorted(family_proofs.PROOFS))
def test_every_proof_covers_every_family_it_applies_to(proof):
    """A proof's tiny models come from the records (tests/family_proofs.py): each proven family is in the proof of
    its batching kind, and in the spoken-digits run of every family but the default one (run end to end elsewhere)."""
    covered = set(family_proofs.PROOFS[proof]())
    for family in family_adapters.proven_families():
        encoded_alone = family_adapters.adapter_class(family).audio_method is not None
        applies = {"every_family": family.tiny_models[0] != family_proofs.DEFAULT_FAMILY,
                   "encoded_alone": encoded_alone, "batched_clips": not encoded_alone}[proof]
        if applies:
            assert covered & {f"tiny_{t}" for t in family.tiny_models}, f"{family.name} is left out of {proof}"


def test_a_family_left_out_of_a_proof_fails_the_check(monkeypatch):
    """What the check above catches: a proof that skips a family (here Gemma 3n dropped from the encoded-alone list)."""
    dropped = [f for f in family_proofs.encoded_alone() if f != "tiny_gemma3n"]
    monkeypatch.setitem(family_proofs.PROOFS, "encoded_alone", lambda: dropped)
    with pytest.raises(AssertionError, match="Gemma 3n is left out of encoded_alone"):
        test_every_proof_covers_every_family_it_applies_to("encoded_alone")


def test_a_family_or_a_model_type_registered_twice_or_without_a_tiny_model_is_refused():
    with pytest.raises(ValueError, match="registered twice"):
        family_adapters._register(Family("Qwen2-Audio copy", ("qwen2_audio",), "x", tiny_models=("qwen2_audio",)))
    with pytest.raises(ValueError, match="names no tiny model"):
        family_adapters._register(Family("Unproven", ("unproven_audio",), "x"))
