"""For the tests: the worker made with its handlers, on a fake model (fake_model_fixture.py)."""

import worker as worker_main
from pipette_decoder.fake_model_fixture import WorkerCalls, fake_model_for


def ready_worker(test, n_ctx=32, n_batch=4, **model_options):
    """(calls, folder) after load_model and init_context on a fresh fake model."""
    calls = WorkerCalls(worker_main.make_worker())
    folder = fake_model_for(test, **model_options)
    calls.ok("load_model", path=folder, fallback_report=False)  # fallback_test.py makes it
    calls.ok("init_context", n_ctx=n_ctx, n_batch=n_batch)
    return calls, folder
