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
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" # the demo's sessions are not kept in your store
# a scratch copy of the tracked files, so example commands can't touch the checkout; the demo's
# own files stay outside it, so that `git status` there shows only what the commands did
scratch="$tmp/repo"
mkdir "$scratch"
if git rev-parse --git-dir >/dev/null 2>&1; then
  git archive HEAD | tar -x -C "$scratch"
else
  cp -r README.md ARCHITECTURE.md Makefile include src grammar tests "$scratch"/
fi
# a repository of its own, so that git status and git log have something to show
git -C "$scratch" init -q && git -C "$scratch" add -A &&
  git -C "$scratch" -c user.name=demo -c user.email=demo@example.invalid commit -qm "demo" ||
  echo "demo: no git repository in the scratch copy" >&2

if [ -f examples/commands.txt ]; then
  echo "=== shcard explain: the card each example command gets (display only; nothing runs) ==="
  while IFS= read -r cmd; do
    case "$cmd" in '' | '#'*) continue ;; esac
    echo "\$ $cmd"
    ./shcard explain -- "$cmd" | sed 's/^/  /'
    # for a terminal card, the rule that decided (explain -v)
    case "$(./shcard explain -- "$cmd")" in
      terminal:*) ./shcard explain -v -- "$cmd" | grep -m1 '^  reason: ' | sed 's/^/  /' ;;
    esac
  done < examples/commands.txt
  echo
fi

cat > "$tmp/prompt" <<'P'
sed -n 1,6p Makefile
grep -rn "shc_bridge_run" src
ls src
for i in 1 2 3 4; do printf 'building step %s...\n' "$i"; sleep 0.4; done; echo done
P

echo "=== shcard acp, as Zed sees it (live terminal cards) ==="
node examples/client.mjs --cwd "$scratch" --prompt-file "$tmp/prompt" -- "$root/shcard" acp || exit 1

echo
echo "=== the same terminal command for a client without _meta.terminal_output (console fallback) ==="
node examples/client.mjs --cwd "$scratch" --no-terminal-output \
  --prompt "for i in 1 2; do printf '\\033[32mok\\033[0m %s\\n' \$i; done" -- "$root/shcard" acp || exit 1

if [ -f examples/commands.txt ]; then
  echo
  echo "=== examples/commands.txt (run in a scratch copy of the repository) ==="
  grep -v '^[[:space:]]*#' examples/commands.txt | grep -v '^[[:space:]]*$' > "$tmp/commands"
  node examples/client.mjs --cwd "$scratch" --prompt-file "$tmp/commands" -- "$root/shcard" acp --timeout 30 || exit 1
fi
