"""What a model family is (:class:`Family`): one record per family, everything the plugin knows about it.

A proven family's record sits in its module of ``family_adapters`` beside the adapter that runs it; the families
``hf-audio`` does not run sit there too (``family_adapters.not_run``): those transformers builds wrong or not at all
(:attr:`Family.refused`), and those only their own server runs (:attr:`Family.served`). The adapter registry, the
refusals, the served recipes, the authors' prompts (``model_wrappers.author_prompts``) and the family proofs of the
tests all read these records, and docs/MODELS.md's family table is checked against them
(``family_adapters.all_families``), so a family is named in one place.

A family is run only where a tiny model of its real transformers classes shows the prompt tokens, batch
invariance and audio reaching the model (its :attr:`Family.tiny_models`, run by ``tests/test_model_families.py``).
A family that is known to go wrong through the generic path stops at load with one line that names it and what to
do instead, because its numbers would look fine and be wrong. An audio family we know nothing about stops too,
unless ``family=generic`` asks for the generic path explicitly; text-only causal LMs (the cascade's LLM) need no
family.
"""

from __future__ import annotations

from dataclasses import dataclass

GENERIC = "generic"
SERVE = "serve it with its own server (e.g. vLLM) and use --model openai-audio"


@dataclass(frozen=True)
class Served:
    """How a family transformers does not implement is evaluated here: the server that implements it (and from
    which version, as far as confirmed), its serve command ("" where no server is known) and the ``model=`` to
    pass (docs/SERVING.md holds each recipe's sources)."""

    server: str = ""
    serve: str = ""
    model: str = ""


@dataclass(frozen=True)
class Talker:
    """How a family speaks its answers (``spoken_answers=true``): its top-level class with the talker and the
    waveform decoder (``top_class``, a transformers name), the speakers its checkpoints ship and the model card's
    default, the rate of its waveforms, and the system prompt its speech needs where it needs one (None: the task's
    or none). Its talker's sampling settings are ``generate()``'s own defaults, which are the cards' (recorded)."""

    top_class: str
    speakers: tuple[str, ...]
    default_speaker: str
    sample_rate: int
    system_prompt: str | None = None
    source: str = ""  # where the facts come from


@dataclass(frozen=True)
class Family:
    """One model family. ``model_types``: config.json's ``model_type`` of its checkpoints; ``name_parts``: lower-case
    substrings of a Hub id, a folder's name, ``architectures`` or a served model's name that identify it where no
    ``model_type`` does (a served model, a checkpoint with custom code); ``example``: a checkpoint; ``extra``: the
    setup.cfg extra holding the packages its adapter checks for; ``tiny_models``: the
    ``testing.tiny_models.BUILDERS`` entries that prove it (its tests run on each); ``thinking_budget``: the new
    tokens its documentation gives a thinking variant for trace and answer together; ``authors_notes``: what its
    authors' evaluations did besides the prompt, for a family whose authors published prompts
    (``author_prompts``); ``refused``: why ``hf-audio`` does not run it; ``served``: how it is evaluated instead;
    ``talker``: how it speaks its answers, for a family that can (:class:`Talker`)."""

    name: str
    model_types: tuple[str, ...] = ()
    example: str = ""
    name_parts: tuple[str, ...] = ()
    extra: str | None = None
    tiny_models: tuple[str, ...] = ()
    thinking_budget: int | None = None
    authors_notes: str = ""
    refused: str = ""
    served: Served | None = None
    talker: Talker | None = None

    @property
    def runs(self) -> bool:
        """Whether ``hf-audio`` runs it."""
        return not self.refused and self.served is None

    def refusal(self, pretrained: str, model_type: str = "") -> str:
        """The one line ``hf-audio`` stops with on one of its checkpoints: the family, and how to evaluate it here."""
        if self.served is not None:
            start = (f"hf-audio: {pretrained!r} is a {self.name} checkpoint, a family transformers does not "
                     "implement; ")
            if not self.served.serve:
                return start + ("no OpenAI-compatible server implements it that we could confirm (no vLLM or SGLang "
                                "support; its authors ship their own demo code), so it cannot be evaluated here yet "
                                "(docs/SERVING.md)")
            return (start + f"serve it with {self.served.server}: {self.served.serve}, then --model openai-audio "
                    f"--model_args base_url=http://HOST:8000/v1,model={self.served.model} (docs/SERVING.md)")
        where = f", model_type {model_type}" if model_type else ""
        return (f"hf-audio: {self.name} ({pretrained!r}{where}) is not supported yet: {self.refused}; {SERVE}, or "
                "evaluate a supported family (see docs/MODELS.md, 'Model families')")


def checkpoint_name(pretrained: str) -> str:
    """A checkpoint's own name: a Hub id's last part, or a local folder's, not a parent folder's (which may be named
    after anything)."""
    return str(pretrained).rstrip("/").rsplit("/", 1)[-1]


TEXT_ONLY = Family("text-only causal LM", (), "HuggingFaceTB/SmolLM2-135M-Instruct")
GENERIC_PATH = Family("generic (family=generic)", (), "")


class UnsupportedFamily(ValueError):
    """A checkpoint whose family hf-audio does not run; the message is one line saying what to do."""
