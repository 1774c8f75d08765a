"""What ONNX Runtime did not run as asked (issue 11: the silent fall-back): the nodes each
execution provider was assigned, and the casts it inserted where the provider has no kernel for
a type (an fp16 graph on the CPU provider runs in fp32 between such casts)."""

import onnx

INSERTED_CAST_PREFIX = "InsertedPrecisionFreeCast_"
ASSIGNMENT_INFO_KEY = "session.record_ep_graph_assignment_info"


def nodes_by_provider(assignment_info):
    """{provider: number of nodes} from InferenceSession.get_provider_graph_assignment_info()."""
    counts = {}
    for subgraph in assignment_info:
        counts[subgraph.ep_name] = counts.get(subgraph.ep_name, 0) + len(subgraph.get_nodes())
    return dict(sorted(counts.items()))


def inserted_casts(optimized_graph):
    """(count, {op type: casts}) of the casts ONNX Runtime inserted into `optimized_graph` (the
    optimized model it wrote), each counted under the op type of the nodes that read it."""
    readers = {}
    for node in optimized_graph.node:
        for name in node.input:
            readers.setdefault(name, []).append(node.op_type)
    count = 0
    by_op = {}
    for node in optimized_graph.node:
        if node.op_type != "Cast" or not node.name.startswith(INSERTED_CAST_PREFIX):
            continue
        count += 1
        for op in sorted(set(t for out in node.output for t in readers.get(out, ["(output)"]))):
            by_op[op] = by_op.get(op, 0) + 1
    return count, dict(sorted(by_op.items()))


def ops_on_other_providers(assignment_info, asked_provider):
    """{op type: nodes} of the nodes assigned to another provider than `asked_provider`."""
    by_op = {}
    for subgraph in assignment_info:
        if subgraph.ep_name == asked_provider:
            continue
        for node in subgraph.get_nodes():
            by_op[node.op_type] = by_op.get(node.op_type, 0) + 1
    return dict(sorted(by_op.items()))


def fallback_report(asked_provider, assignment_info, optimized_model_path):
    """The load reply's report: nodes per provider, and the fall-back counts and op types."""
    by_provider = nodes_by_provider(assignment_info)
    graph = onnx.load_model(optimized_model_path, load_external_data=False).graph
    casts, cast_ops = inserted_casts(graph)
    return {
        "execution_provider": asked_provider,
        "nodes_by_provider": by_provider,
        "fallback": {
            "nodes_on_other_providers": sum(n for p, n in by_provider.items()
                                            if p != asked_provider),
            "other_provider_ops": ops_on_other_providers(assignment_info, asked_provider),
            "inserted_casts": casts,
            "inserted_cast_ops": cast_ops,
        },
    }
