"""What the tiny-model builders share: a byte-level BPE tokenizer trained on inline text with the ``tokenizers``
library, and saving a model with its processor."""

from __future__ import annotations

import functools

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

CORPUS = (
    "The quick brown fox jumps over the lazy dog. What is in this audio? Please transcribe the speech. "
    "You are a helpful assistant. The sound is a sine wave with some noise. Describe the audio clip in English. "
    "Yes, no, maybe. One two three four five six seven eight nine ten. Hello world, how are you today? "
)


def bpe_tokenizer(special_tokens: list[str], vocab_size: int = 384, **kwargs) -> PreTrainedTokenizerFast:
    """Byte-level BPE trained on the inline corpus; ``special_tokens`` get ids 0..n-1 and are never split."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=special_tokens,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator([CORPUS] * 4, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, padding_side="left", **kwargs)


def finish(model, tokenizer, processor, out_dir):
    gc = model.generation_config
    gc.pad_token_id, gc.eos_token_id = tokenizer.pad_token_id, tokenizer.eos_token_id
    gc.bos_token_id = getattr(tokenizer, "bos_token_id", None)
    model.eval().save_pretrained(out_dir)
    processor.save_pretrained(out_dir)
    return out_dir


# arch -> build(out_dir, seed=0) -> the folder: each family's module registers its builders where it defines them
# (``tiny_models.BUILDERS``; the tests' ``tiny_<arch>`` fixtures are made from it).
BUILDERS: dict = {}
# arch -> the packages its family needs at a release the installed transformers asks (peft, for a LoRA)
NEEDS: dict[str, tuple[str, ...]] = {}


def builds(arch: str, needs: tuple[str, ...] = (), **options):
    """A decorator: the function builds the tiny model ``arch`` (``options``: those of a variant of the family;
    ``needs``: the packages whose version hf-audio checks against transformers' own minimum, :data:`NEEDS`)."""

    def add(build):
        if arch in BUILDERS:
            raise ValueError(f"two tiny-model builders for {arch}")
        BUILDERS[arch] = functools.partial(build, **options) if options else build
        NEEDS[arch] = needs
        return build

    return add
