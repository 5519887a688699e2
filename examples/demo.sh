#!/usr/bin/env bash
# make run: the scripted demo.  `shcard acp` in shell mode, driven by the bundled example client
# (examples/client.mjs), shows a read, a search, a list and a streaming command as cards, the way
# an editor (Zed) shows them; then the same commands under a client without the terminal flag
# (console fallback); then examples/commands.txt, if present, in a scratch copy of the repository.
# It starts with `shcard explain` over examples/commands.txt (the classifier alone).
set -u
cd "$(dirname "$0")/.."
root=$PWD
command -v node >/dev/null || { echo "demo: node is required" >&2; exit 1; }
[ -x ./shcard ] || { echo "demo: build ./shcard first (make)" >&2; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export XDG_STATE_HOME="$scratch/.state" # the demo's sessions are not kept in your store
# a scratch copy of the tracked files, so example commands can't touch the checkout
if git rev-parse --git-dir >/dev/null 2>&1; then
  git archive HEAD | tar -x -C "$scratch"
else
  cp -r README.md Makefile src "$scratch"/
fi

if [ -f examples/commands.txt ]; then
  echo "=== shcard explain: the card each example command gets (display only; nothing runs) ==="
  while IFS= read -r cmd; do
    case "$cmd" in '' | '#'*) continue ;; esac
    echo "\$ $cmd"
    ./shcard explain -- "$cmd" | sed 's/^/  /'
  done < examples/commands.txt
  echo
fi

cat > "$scratch/.demo-prompt" <<'P'
sed -n 1,6p Makefile
grep -rn "shc_bridge_run" src
ls src
for i in 1 2 3 4; do printf 'building step %s...\n' "$i"; sleep 0.4; done; echo done
P

echo "=== shcard acp, as Zed sees it (live terminal cards) ==="
node examples/client.mjs --cwd "$scratch" --prompt-file "$scratch/.demo-prompt" -- "$root/shcard" acp || exit 1

echo
echo "=== the same terminal command for a client without _meta.terminal_output (console fallback) ==="
node examples/client.mjs --cwd "$scratch" --no-terminal-output \
  --prompt "for i in 1 2; do printf '\\033[32mok\\033[0m %s\\n' \$i; done" -- "$root/shcard" acp || exit 1

if [ -f examples/commands.txt ]; then
  echo
  echo "=== examples/commands.txt (run in a scratch copy of the repository) ==="
  grep -v '^[[:space:]]*#' examples/commands.txt | grep -v '^[[:space:]]*$' > "$scratch/.demo-commands"
  node examples/client.mjs --cwd "$scratch" --prompt-file "$scratch/.demo-commands" -- "$root/shcard" acp --timeout 10 || exit 1
fi
