"""tokenizer.json for the pinned `tokenizers` package, built from a GGUF's vocabulary.

Mirrors llama.cpp's byte-level BPE (src/llama-vocab.cpp): the GGUF's tokens and merges as a BPE
model, the pre-tokenizer regexes llama.cpp uses for the GGUF's tokenizer.ggml.pre, and the
control / unknown / user-defined tokens as added tokens, so text splits on them first (control
and unknown ones are "special": `encode_special_tokens` turns their parsing off, as llama.cpp's
parse_special=false does; user-defined ones are always parsed, as in llama.cpp).
"""

from .errors import BadInput

# llama.cpp's token types (tokenizer.ggml.token_type).
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6

# llama.cpp's GPT-2 regex (LLAMA_VOCAB_PRE_TYPE_GPT2); the ByteLevel pre-tokenizer applies it.
# For each supported tokenizer.ggml.pre: the regexes llama.cpp applies BEFORE it, each splitting
# every piece with matches kept as their own pieces.
_PRE_SPLITS = {
    "gpt-2": [],
    # LLAMA_VOCAB_PRE_TYPE_SMOLLM (and starcoder/refact): "\p{N}" then the GPT-2 regex.
    "smollm": [r"\p{N}"],
    "starcoder": [r"\p{N}"],
    "refact": [r"\p{N}"],
}
SUPPORTED_PRE = tuple(_PRE_SPLITS)

# Token texts llama.cpp (llama-vocab.cpp, "maintain a list of tokens that cause end-of-generation")
# marks as end-of-generation, besides the eos/eot/eom/fim ids the metadata names.
_EOG_TEXTS = frozenset([
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
    "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
    "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
    "<｜end▁of▁sentence｜>", "[e~[",
])


class Vocab:
    """The GGUF's tokenizer facts: tokens, types, merges, special ids, add_bos/add_eos."""

    def __init__(self, model):
        path = model.path
        kind = model.field("tokenizer.ggml.model")
        if kind != "gpt2":
            raise BadInput(f"{path}: tokenizer.ggml.model {kind!r} is not converted; pipette-convert "
                           "builds byte-level BPE tokenizers (\"gpt2\") only")
        self.pre = model.field("tokenizer.ggml.pre", "default")
        if self.pre not in _PRE_SPLITS:
            raise BadInput(f"{path}: pre-tokenizer tokenizer.ggml.pre {self.pre!r} is not converted; "
                           f"supported: {', '.join(SUPPORTED_PRE)}")
        self.tokens = list(model.field("tokenizer.ggml.tokens") or [])
        if not self.tokens:
            raise BadInput(f"{path}: no tokenizer.ggml.tokens")
        self.types = list(model.field("tokenizer.ggml.token_type") or [NORMAL] * len(self.tokens))
        if len(self.types) != len(self.tokens):
            raise BadInput(f"{path}: {len(self.types)} token types for {len(self.tokens)} tokens")
        self.merges = list(model.field("tokenizer.ggml.merges") or [])
        if not self.merges:
            raise BadInput(f"{path}: no tokenizer.ggml.merges")
        n = len(self.tokens)

        def token_id(key):
            v = model.field(f"tokenizer.ggml.{key}")
            return int(v) if v is not None and 0 <= int(v) < n else None

        self.bos = token_id("bos_token_id")
        self.eos = token_id("eos_token_id")
        # llama.cpp's defaults for a BPE vocab: add_bos false, add_eos false, unless the GGUF says.
        self.add_bos = bool(model.field("tokenizer.ggml.add_bos_token", False))
        self.add_eos = bool(model.field("tokenizer.ggml.add_eos_token", False))
        eog = {token_id(k) for k in ("eos_token_id", "eot_token_id", "eom_token_id", "fim_pad_token_id",
                                     "fim_rep_token_id", "fim_sep_token_id")}
        eog |= {i for i, t in enumerate(self.tokens) if t in _EOG_TEXTS}
        eog.discard(None)
        self.eog = sorted(eog)

    def text(self, token_id):
        return None if token_id is None else self.tokens[token_id]


def build_tokenizer(vocab):
    """A tokenizers.Tokenizer equivalent to llama.cpp's tokenizer for this vocab."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers, processors

    ids = {}
    for i, t in enumerate(vocab.tokens):
        ids[t] = i  # a repeated text maps to its last id, as llama.cpp's token_to_id does
    merges = []
    for m in vocab.merges:
        cut = m.find(" ", 1)  # llama.cpp splits a merge at the first space after its first byte
        if cut < 0:
            raise BadInput(f"merge {m!r} has no space")
        merges.append((m[:cut], m[cut + 1:]))
    tok = Tokenizer(models.BPE(vocab=ids, merges=merges, fuse_unk=False, byte_fallback=False,
                               ignore_merges=False))
    splits = [pre_tokenizers.Split(Regex(r), behavior="isolated") for r in _PRE_SPLITS[vocab.pre]]
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=True)
    tok.pre_tokenizer = pre_tokenizers.Sequence(splits + [byte_level]) if splits else byte_level
    tok.decoder = decoders.ByteLevel()
    special, user = [], []
    for t, ty in zip(vocab.tokens, vocab.types):
        if ty in (CONTROL, UNKNOWN):
            special.append(AddedToken(t, special=True, normalized=False, lstrip=False, rstrip=False))
        elif ty == USER_DEFINED:
            user.append(AddedToken(t, special=False, normalized=False, lstrip=False, rstrip=False))
    if special:
        tok.add_special_tokens(special)
    if user:
        tok.add_tokens(user)
    single, pairs = ["$A"], []
    if vocab.add_bos and vocab.bos is not None:
        single = [vocab.text(vocab.bos)] + single
        pairs.append((vocab.text(vocab.bos), vocab.bos))
    if vocab.add_eos and vocab.eos is not None:
        single = single + [vocab.text(vocab.eos)]
        pairs.append((vocab.text(vocab.eos), vocab.eos))
    if pairs:
        tok.post_processor = processors.TemplateProcessing(single=" ".join(single), special_tokens=pairs)
    return tok
