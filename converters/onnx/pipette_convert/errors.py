"""The converter's two failure kinds: bad input (exit 2) and everything else (exit 1)."""


class BadInput(Exception):
    """The input is wrong (missing file, not a GGUF, an architecture it does not convert...).

    The message names the file and the problem; the CLI exits 2.
    """
