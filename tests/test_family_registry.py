"""A model family is one module of model_wrappers/family_adapters/ (its Family and its adapter, registered where they
are defined) plus its tiny-model builder (registered in lm_eval_audio/testing/tiny_models/); docs/MODELS.md's family
table is checked against what is registered."""

from __future__ import annotations

import re

import pytest

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
def test_every_registered_family_has_its_row_with_its_example_and_status(family):
    row = _row(family.name)
    assert row, f"docs/MODELS.md's family table has no row for {family.name}"
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert f"`{family.example}`" in cells[1] and cells[2].startswith("runs"), row[:200]


def test_every_row_that_says_runs_is_a_registered_family():
    registered = {f.name for f in family_adapters.proven_families()} | {families.TEXT_ONLY.name}
    running = [row.split("|")[1].strip() for row in ROWS if row.split("|")[3].strip().startswith("runs")]
    assert running and all(any(name.startswith(r) or r.startswith(name) for r in registered) for name in running), running


def test_every_refused_model_type_names_a_family_in_the_table():
    for model_type, (name, _) in families.REFUSED.items():
        assert name in TABLE or model_type in TABLE, f"{model_type} ({name}) is refused but not in the family table"


def test_each_family_has_its_adapter_module_and_a_tiny_model():
    modules = {path.stem for path in (REPO / "model_wrappers" / "family_adapters").glob("*.py")} - {"__init__"}
    for family in family_adapters.proven_families():
        adapter = family_adapters._ADAPTERS.get(family.name, family_adapters.FamilyAdapter)
        module = adapter.__module__.rpartition(".")[2] if adapter is not family_adapters.FamilyAdapter else None
        assert module is None or module in modules, family.name
        assert any(t in BUILDERS or t.removesuffix("_moe") in BUILDERS for t in family.model_types), (
            f"{family.name}: no tiny model registered for {family.model_types}")


def test_a_family_or_a_model_type_registered_twice_is_refused():
    with pytest.raises(ValueError, match="registered twice"):
        family_adapters._register(Family("Qwen2-Audio copy", ("qwen2_audio",), "x"))
