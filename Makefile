# The README's two commands: `make demo` and `make test`. Everything else is a step of those.
.PHONY: demo test setup setup-demo build models format clean

# Everything the tests need; `setup-demo`: only what the quickstart needs (scripts/setup.sh).
setup:
	scripts/setup.sh

setup-demo:
	scripts/setup.sh demo

build: setup

models:
	scripts/fetch-models.sh

demo: setup-demo
	build/pipette run examples/quickstart.yaml --export-md results/quickstart.md --export-json results/quickstart.json --export html=results/quickstart.html

# The tests measure an emulated aarch64 board too: the worker cross-built for it first; boot a
# kernel with cgroup v2 alone in QEMU for the tiers' v2 path; and open the HTML report in headless
# Chromium.
test: setup
	scripts/build-worker.sh aarch64
	scripts/fetch-test-vm.sh
	scripts/fetch-browser.sh
	scripts/fuzz-smoke.sh
	scripts/run-tests.sh

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

clean:
	rm -rf build
