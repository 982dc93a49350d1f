#!/usr/bin/env bash
# Set up what the tests need (Node 22, dependencies, the native snap7 addon, Toxiproxy, Podman and
# the project's container image), lint the repository, then run the whole test suite on Node's own
# test runner.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
# Lint first (ESLint, eslint.config.js): a few seconds, so a finding fails the run before the long
# set-up and the suite.
(cd "$ROOT" && npm run lint)
# Debian packages the tests drive for real (chromium, redis-server, podman, ...), where missing.
bash "$ROOT/scripts/system-deps.sh"
# The real brokers the broker tests start (RabbitMQ and Mosquitto from Debian, Kafka's jars from Maven Central), where missing.
bash "$ROOT/scripts/broker-deps.sh"
# The protocol study's companion stacks (ROS 1, Cyclone DDS, Fast DDS, the capture and load tools), where missing: its CI test runs each once.
bash "$ROOT/scripts/study-deps.sh"
cd "$ROOT"
# The container tests run the project's image with Podman: make the base image once (cached in
# .tools/containers) and build the image (layers cached across runs), before the test runner's
# per-file time limit applies.
bash scripts/containers.sh --image >/dev/null
# The benchmark smoke test emulates a WAN with Toxiproxy: build it once from the Go module proxy.
bash scripts/toxiproxy.sh >/dev/null
npm test
