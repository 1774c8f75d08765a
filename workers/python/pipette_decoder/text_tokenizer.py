"""Tokenizing and detokenizing with the `tokenizers` package, with llama.cpp's meanings of the
protocol's flags (docs/protocol.md `tokenize`, `detokenize`)."""

from tokenizers import Tokenizer


class TextTokenizer:
    """The converted model's tokenizer.json, with the model's BOS/EOS rules from its meta.

    - add_special: BOS first where the GGUF's add_bos says (EOS last where add_eos says), as
      llama_tokenize does; the tokenizer's own post-processor is not used.
    - parse_special: special (control) tokens written in the text are parsed as those tokens;
      without it they are tokenized as text. Added tokens that are not special are always
      parsed, as llama.cpp always parses user-defined tokens.
    - remove_special: a leading BOS (where add_bos) and a trailing EOS (where add_eos) are
      dropped; unparse_special: special tokens are written out as their text, else left out.
    """

    def __init__(self, path, bos, eos, add_bos, add_eos):
        self._tok = Tokenizer.from_file(path)
        self.bos = bos
        self.eos = eos
        self.add_bos = add_bos
        self.add_eos = add_eos

    def tokenize(self, text, add_special, parse_special):
        self._tok.encode_special_tokens = not parse_special
        ids = self._tok.encode(text, add_special_tokens=False).ids
        if add_special:
            if self.add_bos:
                ids = [self.bos] + ids
            if self.add_eos:
                ids = ids + [self.eos]
        return ids

    def detokenize(self, ids, remove_special, unparse_special):
        ids = list(ids)
        if remove_special:
            if self.add_bos and ids and ids[0] == self.bos:
                ids = ids[1:]
            if self.add_eos and ids and ids[-1] == self.eos:
                ids = ids[:-1]
        return self._tok.decode(ids, skip_special_tokens=not unparse_special)
