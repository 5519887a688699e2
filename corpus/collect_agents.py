#!/usr/bin/env python3
"""Collects the shell commands real coding agents ran, from public agent transcripts, into
corpus/agents/agents.jsonl (one {"cmd", "source": {repo, path, commit}, "agent", "model"} per line,
deduplicated on cmd, the first transcript that ran it named as its source).  From each source
at most --per-source commands are kept (1500), a fixed sample: those whose SHA-1 is smallest,
whatever their shape or length.

This is how corpus/agents/agents.jsonl was made; the transcripts themselves are not in this repository.
It reads git snapshots of the public repositories below (bare git directories, one per repository,
given as REPO=GITDIR arguments) at the commits named here, and extracts:

  mini-swe-agent 1.x  (*.traj.json, "trajectory_format" mini-swe-agent-1): the single ```bash
                      block of each assistant message (the only thing that agent runs);
  mini-swe-agent 1.1  (tool calls): each action of an assistant message (extra.actions[].command,
                      else the tool call's "command" argument);
  OpenHands CodeAct   (Claude 3.5 Sonnet, SWE-bench Verified logs): each
                      <function=execute_bash><parameter=command>...</parameter> call that is not
                      input to a running process (is_input true, C-c, empty).

Usage: collect_agents.py [--out corpus/agents/agents.jsonl] REPO=GITDIR...
"""
import argparse
import hashlib
import json
import re
import subprocess
import sys

# (repository, commit, path prefix, agent, model)
SOURCES = [
    ("gruckion/mini-swe-agent", "d12a71affd95403b036b2bdbd827349b77bfffb9",
     "swebench_results/20251118_gemini-3-pro-74pct/trajs/", "mini-swe-agent 1.15",
     "gemini-3-pro-preview"),
    ("SWE-agent/mini-swe-agent", "ec0e8e849fea5b1619deb1753007201000904672", "output/",
     "mini-swe-agent", "deepseek"),
    ("RussellRyanH/CSCI-635-LiveSWE-Agent", None, "results/", "mini-swe-agent (live-swe-agent)",
     "gpt-5-mini"),
    ("gsmoon97/swe-agent-eval", "2b8d930540ddaf0ae1290e718f1bd0741c70005e",
     "evaluation/python/verified/20250329_OpenHands_Claude-3.5-Sonnet(Oct)/trajs/",
     "OpenHands CodeAct", "claude-3.5-sonnet"),
]

BASH_BLOCK = re.compile(r"```bash\s*\n(.*?)\n```", re.S)
OH_CALL = re.compile(r"<function=execute_bash>(.*?)</function>", re.S)
OH_PARAM = re.compile(r"<parameter=(\w+)>(.*?)</parameter>", re.S)


def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir] + list(args), capture_output=True,
                          check=True).stdout


def files_at(gitdir, commit, prefix):
    """(commit, path) of every transcript under prefix: at commit, or (None) the first commit of
    any branch that holds each path."""
    seen = {}
    commits = [commit] if commit else git(gitdir, "rev-list", "--all", "--reverse").decode().split()
    for c in commits:
        for p in git(gitdir, "ls-tree", "-r", "--name-only", c, "--", prefix).decode().splitlines():
            if p.endswith(".traj.json") or ("/trajs/" in p and p.endswith(".json")):
                seen.setdefault(p, c)
    return sorted((c, p) for p, c in seen.items())


def mini_commands(d):
    out = []
    for m in d.get("messages") or []:
        if m.get("role") != "assistant":
            continue
        extra = m.get("extra") if isinstance(m.get("extra"), dict) else {}
        acts = [a.get("command") for a in extra.get("actions") or [] if isinstance(a, dict)]
        if not acts:
            for tc in m.get("tool_calls") or []:
                try:
                    args = json.loads(tc["function"]["arguments"])
                    acts.append(args.get("command"))
                except (KeyError, TypeError, ValueError):
                    pass
        if not acts and isinstance(m.get("content"), str):
            blocks = BASH_BLOCK.findall(m["content"])
            if len(blocks) == 1:  # the agent runs a message with exactly one block
                acts = blocks
        out += [a for a in acts if isinstance(a, str)]
    return out


def openhands_commands(d):
    out = []
    for m in d.get("messages") or []:
        if m.get("role") != "assistant" or not isinstance(m.get("content"), str):
            continue
        for call in OH_CALL.findall(m["content"]):
            params = dict(OH_PARAM.findall(call))
            cmd = params.get("command", "")
            if params.get("is_input", "false").strip() == "true" or re.fullmatch(r"C-\w", cmd.strip()):
                continue
            out.append(cmd)
    # the response of the logged call itself
    resp = d.get("response") or {}
    for ch in resp.get("choices") or []:
        content = (ch.get("message") or {}).get("content")
        if isinstance(content, str):
            for call in OH_CALL.findall(content):
                params = dict(OH_PARAM.findall(call))
                if params.get("is_input", "false").strip() != "true":
                    out.append(params.get("command", ""))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="corpus/agents/agents.jsonl")
    ap.add_argument("--per-source", type=int, default=1500)
    ap.add_argument("repos", nargs="+", help="REPO=GITDIR")
    a = ap.parse_args()
    gitdirs = dict(r.split("=", 1) for r in a.repos)
    rows, seen = [], set()
    for repo, commit, prefix, agent, model in SOURCES:
        if repo not in gitdirs:
            sys.exit("collect_agents: no git directory for " + repo)
        mine = []
        for c, path in files_at(gitdirs[repo], commit, prefix):
            try:
                d = json.loads(git(gitdirs[repo], "show", "%s:%s" % (c, path)))
            except (ValueError, subprocess.CalledProcessError):
                continue
            if not isinstance(d, dict):
                continue
            cmds = openhands_commands(d) if agent.startswith("OpenHands") else mini_commands(d)
            for cmd in cmds:
                cmd = cmd.strip()
                if not cmd or cmd in seen:
                    continue
                seen.add(cmd)
                mine.append({"cmd": cmd, "source": {"repo": repo, "path": path, "commit": c},
                             "agent": agent, "model": model})
        key = lambda r: hashlib.sha1(r["cmd"].encode()).hexdigest()
        keep = set(map(id, sorted(mine, key=key)[:a.per_source]))
        rows += [r for r in mine if id(r) in keep]
        print("%s: %d distinct commands, %d kept" % (repo, len(mine), min(len(mine), a.per_source)),
              file=sys.stderr)
    with open(a.out, "w") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print("collect_agents: %d commands" % len(rows), file=sys.stderr)


if __name__ == "__main__":
    main()
