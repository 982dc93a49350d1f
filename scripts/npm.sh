#!/usr/bin/env bash
# Run npm with the project's Node 22 (fetched by setup.sh where the machine's Node is older):
#   bash scripts/npm.sh run twin -- --protocol mqtt --boxes 20
#   bash scripts/npm.sh run bench:smoke
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$ROOT"
exec npm "$@"
