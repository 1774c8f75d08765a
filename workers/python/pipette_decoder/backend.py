"""What a runtime worker on this module provides: its backend, an object with

- `runtime`: the runtime's name, as messages say it ("onnxruntime");
- `folder_kind`: the folder it runs (model_folder.ONNX or model_folder.MNN);
- `load_options(f)`: reads its own load_model fields from `f` (a pipette_worker Fields), returns
  them as one value (kept for init_context's new session);
- `create_session(model_path, threads, options)`: the runtime's session of the graph (`threads`
  None: the runtime's default);
- `report(session, model_path, threads, options)`: the load reply's fields of the runtime's own
  (how it runs the graph: provider, precision, fall-back), made after the load's span;
- `graph(session)`: a Graph of the session, as decoder.Decoder runs it.
"""


class Graph:
    """The session as decoder.Decoder runs it: `inputs` ({name: numpy dtype}), `outputs`
    (names), `run(feeds)` ({name: array} -> {name: array}, each output a fresh array)."""

    def __init__(self, inputs, outputs, run):
        self.inputs = inputs
        self.outputs = outputs
        self.run = run
