"""GPTQ (Frantar et al., 2022) in numpy, written as MatMulNBits weights: `--method int4-gptq`.

Per linear layer: the Hessian H = X^T X / n of its calibration inputs X (captured by running the
fp32 graph in ONNX Runtime with those activations as extra outputs), then the published
algorithm: H damped by `damp` x mean(diag H), Hinv = the upper Cholesky factor of H^-1, the input
channels quantized one by one in lazy batches of `blocksize` with the error fed back to the
channels not yet quantized. The 4-bit grid of each block of `block_size` input channels is
round-to-nearest's (onnxruntime's quant_tensor: symmetric scale 2*max|w|/15 and zero point 8, or
asymmetric (max-min)/15), fixed when the block's first channel is reached, as in the reference
implementation, so with H = I the result is exactly int4-rtn's. Packing into MatMulNBits is
onnxruntime's own (make_matmul_weight_only_node). (onnxruntime's numpy `gptq()` in
quantization/neural_compressor/weight_only.py feeds the error back along a COLUMN of the upper
Cholesky factor, which is zero below the diagonal, so it returns round-to-nearest; this one uses
the row, as the published algorithm does.) Calibration inputs come from the fp32 model,
not from the already-quantized earlier layers ("sequential": false).
"""

import os

import numpy as np

from .errors import BadInput

BLOCKSIZE = 128  # GPTQ's lazy-batch width (channels updated together); not the quantization block


def group_params(w, sym):
    """Scale and zero point per column of a block of rows w [block_size, N] (RTN's grid)."""
    if sym:
        max_range = np.maximum(np.abs(w.min(axis=0)), np.abs(w.max(axis=0)))
        scale = np.where(max_range > 0, max_range * 2.0 / 15, 1.0)
        return scale, np.full(scale.shape, 8.0)
    rmin, rmax = w.min(axis=0), w.max(axis=0)
    scale = np.where(rmin != rmax, (rmax - rmin) / 15, 1.0)
    zero = np.clip(np.round(-rmin / scale), 0, 15)
    return scale, zero


def inverse_hessian(hessian, block_size=32, damp=0.01):
    """(Hinv, dead): the upper Cholesky factor of the damped, padded H^-1, and the channels
    no calibration input reached (their weights are dropped, as the reference does)."""
    k = hessian.shape[0]
    kp = -(-k // block_size) * block_size
    h = np.zeros((kp, kp))
    h[:k, :k] = hessian
    dead = np.diag(h) == 0
    h[dead, dead] = 1.0
    h[np.diag_indices(kp)] += damp * np.mean(np.diag(h))
    return np.linalg.cholesky(np.linalg.inv(h)).T, dead


def gptq_weight(weight, hessian, block_size=32, sym=True, damp=0.01, blocksize=BLOCKSIZE, prepared=None):
    """4-bit GPTQ of a MatMul weight [K, N] given the Hessian [K, K] of its inputs (or `prepared`,
    inverse_hessian's result, shared by the weights that read the same input).

    Returns (q uint8 [N * k_blocks, block_size], scale float64 [N * k_blocks, 1],
    zero uint8 [N * k_blocks, 1]) in the layout onnxruntime's quant_tensor(weight.T) returns
    (rows padded with zeros to k_blocks * block_size).
    """
    k, n = weight.shape
    hinv, dead = prepared if prepared is not None else inverse_hessian(hessian, block_size, damp)
    kp = hinv.shape[0]
    kb = kp // block_size
    w = np.zeros((kp, n))
    w[:k] = weight
    w[dead, :] = 0.0
    q = np.zeros((kp, n), dtype=np.uint8)
    scales = np.zeros((kb, n))
    zeros = np.zeros((kb, n))
    for i1 in range(0, kp, blocksize):
        i2 = min(i1 + blocksize, kp)
        w1 = w[i1:i2].copy()
        err1 = np.zeros_like(w1)
        h1 = hinv[i1:i2, i1:i2]
        for i in range(i2 - i1):
            row = i1 + i
            if row % block_size == 0:
                g = row // block_size
                scales[g], zeros[g] = group_params(w[row:row + block_size], sym)
            s, z = scales[row // block_size], zeros[row // block_size]
            col = w1[i]
            qi = np.clip(np.round(col / s) + z, 0, 15)
            q[row] = qi
            e = (col - (qi - z) * s) / h1[i, i]
            w1[i:] -= np.outer(h1[i, i:], e)  # row i of the upper factor (the reference's Hinv1[i, i:])
            err1[i] = e
        w[i2:] -= hinv[i1:i2, i2:].T @ err1
    q_t = q.T.reshape(-1, block_size)  # [N, kp] -> [N * kb, block_size]
    return q_t, scales.T.reshape(-1, 1), zeros.T.reshape(-1, 1).astype(np.uint8)


def calibration_windows(tokenizer_path, text_path, add_bos, bos, tokens, samples):
    """`samples` consecutive windows of `tokens` token ids, BOS first if add_bos, that end with the
    text's last token: a perplexity over that text reads its chunks from the start, so one of
    fewer chunks than the text holds never scores the tokens GPTQ was calibrated on."""
    from tokenizers import Tokenizer

    if not os.path.isfile(text_path):
        raise BadInput(f"{text_path}: no such calibration file")
    try:
        with open(text_path, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError as e:
        raise BadInput(f"{text_path}: not UTF-8 text: {e}") from e
    tok = Tokenizer.from_file(tokenizer_path)
    tok.encode_special_tokens = True  # calibration text is text
    ids = tok.encode(text, add_special_tokens=False).ids
    per = tokens - (1 if add_bos else 0)
    if per < 1 or len(ids) < per * samples:
        raise BadInput(f"{text_path}: {len(ids)} tokens, fewer than {samples} samples of {tokens}")
    start = len(ids) - per * samples
    out = []
    for i in range(samples):
        w = ids[start + i * per:start + (i + 1) * per]
        out.append(([bos] if add_bos else []) + w)
    return out


def weight_matmuls(model):
    """{activation name: [MatMul nodes with a constant weight reading it]}."""
    inits = {t.name for t in model.graph.initializer}
    groups = {}
    for node in model.graph.node:
        if node.op_type == "MatMul" and node.input[1] in inits:
            groups.setdefault(node.input[0], []).append(node)
    return groups


def hessians(src_folder, meta, windows, names, ort, progress):
    """{activation name: X^T X / n} over the calibration windows, from the fp32 graph."""
    import onnx
    from onnx import helper

    model = onnx.load(os.path.join(src_folder, "model.onnx"), load_external_data=False)
    for name in names:
        model.graph.output.append(helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
    so = ort.SessionOptions()
    so.add_session_config_entry("session.model_external_initializers_file_folder_path", src_folder)
    session = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    empty = np.zeros((1, meta["n_head_kv"], 0, meta["head_dim"]), dtype=np.float32)
    past = {f"past_{kind}_{i}": empty for i in range(meta["n_layer"]) for kind in ("key", "value")}
    acc = {name: 0.0 for name in names}
    count = 0
    for j, ids in enumerate(windows):
        feed = {"input_ids": np.asarray([ids], dtype=np.int64),
                "position_ids": np.arange(len(ids), dtype=np.int64)[None, :],
                "last_n": np.asarray([len(ids)], dtype=np.int64), **past}
        outs = session.run(names, feed)
        for name, x in zip(names, outs):
            x = x.reshape(-1, x.shape[-1]).astype(np.float64)
            acc[name] = acc[name] + x.T @ x
        count += len(ids)
        progress(f"quantizing: calibration sample {j + 1}/{len(windows)}")
    return {name: a / count for name, a in acc.items()}


def quantize_gptq(src_folder, dst, meta, args, ort, progress):
    """Writes dst (model.onnx + model.onnx.data) with GPTQ MatMulNBits weights; returns options."""
    import onnx
    from onnx import numpy_helper
    from onnxruntime.quantization.neural_compressor.weight_only import make_matmul_weight_only_node

    calib_tokens = args.calibration_tokens or 128
    calib_samples = args.calibration_samples or 8
    windows = calibration_windows(os.path.join(src_folder, "tokenizer.json"), args.calibration,
                                  meta["add_bos"], meta["bos"], calib_tokens, calib_samples)
    model = onnx.load(os.path.join(src_folder, "model.onnx"))
    groups = weight_matmuls(model)
    names = sorted(groups)
    hs = hessians(src_folder, meta, windows, names, ort, progress)
    inits = {t.name: t for t in model.graph.initializer}
    replaced = {}
    new_inits = []
    for i, name in enumerate(names):
        prepared = inverse_hessian(hs[name], args.block_size, args.damp)
        for node in groups[name]:
            w = numpy_helper.to_array(inits[node.input[1]]).astype(np.float64)
            q, scale, zero = gptq_weight(w, None, args.block_size, args.symmetric, prepared=prepared)
            kb = -(-w.shape[0] // args.block_size)
            qnode, made = make_matmul_weight_only_node(
                node=node, weight_shape=w.shape, num_bits=4, group_size=args.block_size, k_blocks=kb,
                q_weight=q, scale=scale.astype(np.float32), zero_point=None if args.symmetric else zero,
                accuracy_level=0)
            replaced[node.name] = qnode
            new_inits += made
        progress(f"quantizing: GPTQ {i + 1}/{len(names)} ({name})")
    nodes = [replaced.get(n.name, n) for n in model.graph.node]
    used = {x for n in nodes for x in n.input}
    kept = [t for t in model.graph.initializer if t.name in used]
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept + new_inits)
    model.opset_import.append(onnx.helper.make_opsetid("com.microsoft", 1))
    onnx.save_model(model, dst, save_as_external_data=True, all_tensors_to_one_file=True,
                    location="model.onnx.data", size_threshold=1024)
    return {"algorithm": "GPTQ", "implementation": "pipette-convert numpy (gptq.py)", "bits": 4,
            "block_size": args.block_size, "symmetric": bool(args.symmetric), "damp": args.damp,
            "gptq_blocksize": BLOCKSIZE, "act_order": False, "sequential": False,
            "hessian": "X^T X / n over the calibration tokens, inputs from the fp32 graph",
            "op_types_to_quantize": ["MatMul"], "packing": "onnxruntime make_matmul_weight_only_node"}
