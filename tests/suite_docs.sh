#!/usr/bin/env bash
# The documentation a newcomer reads: README.md and docs/*.md (tests/check_docs.py).  Every
# relative link and #anchor resolves (GitHub's heading anchors); no internal reference (issue
# numbers, working paths, branch names, finding ids); the README stays a short front door that
# starts with `make run` and `make test`; Zed's setup is shown as current Zed reads it, here and
# in man/ ("type": "custom", the config option ids a real `shcard acp` advertises, the log view
# `dev: open acp logs`).  The checker is first shown to catch each kind of mistake on a scratch
# tree, so that a pass on the real tree means something.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# a scratch tree with one mistake of each kind: each must be reported
mkdir -p "$t/bad/docs"
cat > "$t/bad/README.md" <<'MD'
# x

```sh
make run
make test
```

[ok](docs/a.md#the-first-heading) [dup](docs/a.md#same-1) [missing file](docs/nope.md)
[missing anchor](docs/a.md#no-such-heading) `[in code](docs/nope2.md)`
MD
cat > "$t/bad/docs/a.md" <<'MD'
# The first heading
## Same
## Same
See issue 16 and #16, fixed on branch `rtx`, red-team finding F2, in /work/redteam/x.
Another project's bug, cited: [ripgrep issue 2001](https://github.com/BurntSushi/ripgrep/issues/2001).

```
# not a heading
[not a link](missing.md)
```

The palette's "acp: open acp logs" shows the frames.

```json
{ "agent_servers": { "old": { "command": "shcard", "args": ["acp"] } } }
```

```json
{ "agent_servers": { "x": { "type": "custom", "command": "shcard", "args": ["acp"],
  "default_config_options": { "approval": "ask", "mode": "sometimes" } } } }
```
MD
out=$(python3 tests/check_docs.py --root "$t/bad" --shcard "$SHCARD" 2>&1)
for want in "link to a missing file: docs/nope.md" "no heading for the anchor #no-such-heading" \
            "an issue number" "an issue or pull-request number" "a branch" "a finding id" \
            "a working path" "the log view is \`dev: open acp logs\`" \
            "agent_servers.old has no \"type\": \"custom\"" \
            "shcard advertises no config option 'approval'" "default_config_options.mode='sometimes'"; do
  printf '%s\n' "$out" | grep -qF -- "$want" && ok || fail "checker missed: $want"
done
for wrong in "nope2.md" "#the-first-heading" "#same-1" "missing.md" "ripgrep issue 2001"; do
  printf '%s\n' "$out" | grep -qF -- "$wrong" && fail "checker flagged what is right: $wrong" || ok
done
# a README that does not start with the two commands, and one too long
mkdir -p "$t/long"
{ echo "# x"; echo; echo "make" ; for i in $(seq 400); do echo "line $i"; done; } > "$t/long/README.md"
out=$(python3 tests/check_docs.py --root "$t/long" 2>&1)
printf '%s\n' "$out" | grep -qF "does not start with \`make run\`" && ok || fail "checker missed a README without make run"
printf '%s\n' "$out" | grep -qF "the front door stays under" && ok || fail "checker missed a long README"

# the real tree
out=$(python3 tests/check_docs.py --shcard "$SHCARD" 2>&1); rc=$?
printf '%s\n' "$out" | grep '^FAIL' | sed 's/^FAIL: /FAIL: docs: /'
expect_eq "check_docs.py on the tree (exit status)" "$rc" 0
finish
