#!/usr/bin/env bash
# Set up what the tests need (Node 22, dependencies, the native snap7 addon, Toxiproxy), then run
# the whole test suite on Node's own test runner.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
# Debian packages the tests drive for real (chromium, redis-server), where missing.
bash "$ROOT/scripts/system-deps.sh"
cd "$ROOT"
# The benchmark smoke test emulates a WAN with Toxiproxy: build it once from the Go module proxy.
bash scripts/toxiproxy.sh >/dev/null
npm test
