#!/usr/bin/env python3
"""Turns a reference-CLI run (cc-harness run-peer.mjs: scenario.json + summary.json) into one entry
of test/fixtures/reference-probes.json: the scenario's files, and each call with the reference's
exact result text and is_error. The work dir becomes $DIR; the throwaway home becomes $HOME.

Usage: python3 scripts/probe-from-peer.py SCENARIO.json OUT_DIR >> entries.jsonl
"""
import json, re, sys

scenario = json.load(open(sys.argv[1]))
summary = json.load(open(sys.argv[2] + "/summary.json"))
cwd = summary["cwd"]


def norm(text):
    text = text.replace(cwd, "$DIR")
    return re.sub(r"/tmp/cc-peer-home-[A-Za-z0-9]+", "$HOME", text)


calls = []
for turn in summary["turns"]:
    for t in turn["tools"]:
        content = t["content"]
        if not isinstance(content, str):
            content = json.loads(norm(json.dumps(content)))
        else:
            content = norm(content)
        calls.append({"name": t["name"], "input": json.loads(json.dumps(t["input"]).replace(cwd, "$DIR")),
                      "content": content, "isError": bool(t["is_error"])})
print(json.dumps({"name": scenario["name"], "files": scenario.get("setup", {}).get("files", {}), "calls": calls}))
