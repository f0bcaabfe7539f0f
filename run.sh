#!/usr/bin/env bash
# Quick start. `./run.sh` sets up (Node.js 24 when needed, dependencies) and runs the bot;
# `./run.sh test` sets up and runs the tests; `./run.sh sim` runs the platform simulator.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/ensure-node.sh
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
command="${1:-start}"
[ $# -gt 0 ] && shift
case "$command" in
  start) exec npm start -- "$@" ;;
  test) exec npm test -- "$@" ;;
  *) exec npm run "$command" -- "$@" ;;
esac
