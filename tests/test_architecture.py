"""docs/ARCHITECTURE.md names every module of the package, so a newcomer finds each one's job there."""

from __future__ import annotations

from pathlib import Path

from test_layout import modules

DOC = (Path(__file__).resolve().parent.parent / "docs" / "ARCHITECTURE.md").read_text()


def _named(module: str) -> bool:
    short = module.removeprefix("lm_eval_audio.")
    leaf = short.rpartition(".")[2]
    # a package's own __init__ needs no row; a module is named by its dotted short name or, in its
    # package's row, by its leaf name in backticks
    return short in ("lm_eval_audio", "") or f"`{short}`" in DOC or f"`{leaf}`" in DOC


def test_every_module_is_named():
    packages = {m.rpartition(".")[0] for m in modules()}
    missing = [m for m in sorted(modules()) if m not in packages and not _named(m)]
    assert not missing, "docs/ARCHITECTURE.md does not name: " + ", ".join(missing)


def test_the_check_fails_on_a_module_it_does_not_name():
    assert not _named("lm_eval_audio.harness.a_module_nobody_wrote")
