#!/usr/bin/env bash
# Sourced by the scripts that build a Go tool from the Go module proxy into .tools/bin, once
# (scripts/toxiproxy.sh, scripts/k6.sh): one home for finding Go, the version stamp and the build.
#
#   go_tool_built NAME VERSION BINARY   exit status 0 when BINARY exists and was built at VERSION
#   go_tool_install NAME VERSION WHAT MODULE@VERSION...
#                                        go install each module into $GO_TOOL_BIN and stamp VERSION;
#                                        WHAT is said while building ("k6 v1.8.1, a few minutes")
GO_TOOL_BIN="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.tools/bin"

go_tool_built() {
  local name="$1" version="$2" binary="$3"
  [ -x "$binary" ] && [ -f "$GO_TOOL_BIN/.$name-version" ] && [ "$(cat "$GO_TOOL_BIN/.$name-version")" = "$version" ]
}

go_tool_install() {
  local name="$1" version="$2" what="$3"
  shift 3
  local go
  go="$(command -v go || true)"
  if [ -z "$go" ] && [ -x /usr/local/go/bin/go ]; then go=/usr/local/go/bin/go; fi
  if [ -z "$go" ]; then
    echo "$name: no Go toolchain found (need a recent go on PATH or at /usr/local/go/bin/go)" >&2
    exit 2
  fi
  mkdir -p "$GO_TOOL_BIN"
  echo "$name: building $what with $("$go" version | cut -d' ' -f3)" >&2
  local module
  for module in "$@"; do
    GOBIN="$GO_TOOL_BIN" GOFLAGS="${GOFLAGS:--buildvcs=false}" "$go" install "$module" >&2
  done
  echo "$version" > "$GO_TOOL_BIN/.$name-version"
}
