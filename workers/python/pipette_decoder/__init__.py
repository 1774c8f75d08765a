"""The parts of a Python runtime worker that run a converted model folder and are not the
runtime's own (issue 11's design): the folder (model_folder), the tokenizer (text_tokenizer),
the decode loop and KV cache (decoder, state), and the ops (model_ops, speed_ops, quality_ops).
A worker is its backend (backend.py) and `make_worker` (worker.py)."""
