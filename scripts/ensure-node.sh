# Sourced by run.sh and .ci/run: puts a Node.js >= 22.19 first on PATH. When the machine's node
# is older, Node 24 LTS is installed from the npm registry into ~/.cache/node24 (once).
node_is_recent() {
  node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 19) ? 0 : 1)' 2>/dev/null
}
if ! node_is_recent; then
  faultline_node_prefix="${FAULTLINE_NODE_PREFIX:-$HOME/.cache/node24}"
  if [ ! -x "$faultline_node_prefix/node_modules/.bin/node" ]; then
    command -v npm >/dev/null 2>&1 || { echo "npm is needed to fetch Node.js 24; install Node.js and npm first" >&2; return 1; }
    echo "Node.js $(node --version 2>/dev/null || echo 'missing') is older than 22.19; fetching Node.js 24 into $faultline_node_prefix" >&2
    npm install --prefix "$faultline_node_prefix" --no-save --no-audit --no-fund node@24 >&2 || return 1
  fi
  export PATH="$faultline_node_prefix/node_modules/.bin:$PATH"
  node_is_recent || { echo "Could not put Node.js 22.19 or newer on PATH" >&2; return 1; }
fi
