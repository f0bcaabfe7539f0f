#!/usr/bin/env bash
# Quick start. `./run.sh` sets up (Node.js 24 when needed, dependencies) and runs the bot: with
# Slack credentials in .env (or the environment) against Slack, otherwise the local demo (the
# platform simulator and a page standing in for Slack). `./run.sh test` sets up and runs the
# tests, the bot's and every package's under packages/; `./run.sh <script>` runs any npm script
# (sim, demo, bench). Options (`./run.sh --fresh`) go to the bot or the demo.
set -euo pipefail
cd "$(dirname "$0")"
case "${1:-}" in
  -h | --help | help)
    cat <<'USAGE'
Usage: ./run.sh [command] [arguments]

  ./run.sh             the bot against Slack when .env (or SLACK_BOT_TOKEN) has its credentials,
                       otherwise the local demo: the platform simulator and a page standing in for Slack;
                       the demo carries on where it stopped
  ./run.sh --fresh     the local demo from its seed, forgetting what earlier runs did
  ./run.sh test        the tests, the bot's and every package's
  ./run.sh <script>    any npm script of package.json: sim, demo, bench, typecheck, lint

Each sets up first when needed: Node.js 24, then the dependencies.
USAGE
    exit 0 ;;
esac
source scripts/ensure-node.sh
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing dependencies (about a minute)…" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
command=start
if [ $# -gt 0 ] && [[ "$1" != -* ]]; then
  command="$1"
  shift
fi
case "$command" in
  start)
    if [ ! -f .env ] && [ -z "${SLACK_BOT_TOKEN:-}" ]; then
      # No Slack credentials: the local demo, whose banner says so and how to connect to Slack.
      exec npm run --silent demo -- "$@"
    fi
    exec npm start -- "$@" ;;
  test) exec npm test -- "$@" ;;
  *) exec npm run "$command" -- "$@" ;;
esac
