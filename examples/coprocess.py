#!/usr/bin/env python3
"""Drive `armature exec` as a co-process from Python (standard library only).

This is the shape of an agent loop in another language: start one `armature exec` process,
write an assistant turn (one JSON line of tool_use blocks), read the line of tool_result blocks
it answers with, decide the next turn from it, and so on. Here a scripted "model" explores
examples/project: it lists the TypeScript files, reads the first one, follows its import to the
next file, and counts lines with the shell.

    python3 examples/coprocess.py                # from the repository root, after `npm ci`
    ARMATURE="armature" python3 examples/coprocess.py   # with an installed armature

Exit status 0 when every step got the answer it expected.
"""

import json
import os
import queue
import re
import shlex
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.join(HERE, "project")
REPLY_TIMEOUT_S = 120  # a loaded CI machine can be slow; a hang fails instead of blocking for ever


class Armature:
    """One `armature exec` process; `turn()` sends calls and returns their tool_result blocks."""

    def __init__(self, *args):
        default = ["node", os.path.join(HERE, "..", "bin", "armature.js")]
        command = shlex.split(os.environ["ARMATURE"]) if os.environ.get("ARMATURE") else default
        self.proc = subprocess.Popen(
            command + ["exec", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,  # line buffered: each turn goes out when its line is written
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.next_id = 0

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def turn(self, *calls):
        """calls: (tool name, input) pairs. Returns {tool_use_id: tool_result block}."""
        blocks = []
        for name, tool_input in calls:
            self.next_id += 1
            blocks.append({"type": "tool_use", "id": f"toolu_{self.next_id:02d}", "name": name, "input": tool_input})
        self.proc.stdin.write(json.dumps(blocks) + "\n")
        self.proc.stdin.flush()
        try:
            line = self.lines.get(timeout=REPLY_TIMEOUT_S)
        except queue.Empty:
            self.proc.kill()
            raise SystemExit(f"no answer within {REPLY_TIMEOUT_S}s: is exec reading stdin to the end before it runs?")
        if line is None:
            raise SystemExit(f"armature exited early with status {self.proc.wait()}")
        reply = json.loads(line)
        if "error" in reply:
            raise SystemExit(f"armature rejected the turn: {reply['error']}")
        return {block["tool_use_id"]: block for block in reply["content"]}

    def close(self):
        self.proc.stdin.close()
        return self.proc.wait(timeout=REPLY_TIMEOUT_S)


def text(block):
    content = block["content"]
    return content if isinstance(content, str) else "\n".join(part.get("text", "") for part in content)


def main():
    armature = Armature("--cwd", PROJECT)
    steps = []

    # Turn 1: what is there?
    [listing] = armature.turn(("Glob", {"pattern": "src/*.ts"})).values()
    files = sorted(text(listing).split("\n"))
    steps.append(f"turn 1: Glob found {files}")

    # Turn 2: read the file that greets (chosen from turn 1's answer).
    greeter = next(f for f in files if "greet" in f)
    [source] = armature.turn(("Read", {"file_path": greeter})).values()
    imports = re.findall(r'from "\./([\w-]+)\.js"', text(source))
    steps.append(f"turn 2: Read {greeter}, which imports {imports}")

    # Turn 3: follow the import found in turn 2, and look for what it exports, concurrently.
    target = f"src/{imports[0]}.ts"
    answers = armature.turn(
        ("Read", {"file_path": target}),
        ("Grep", {"pattern": "export function", "path": target, "output_mode": "content"}),
    )
    exported = re.findall(r"export function (\w+)", text(answers["toolu_04"]))
    steps.append(f"turn 3: {target} exports {exported}")

    # Turn 4: the shell, with what the earlier turns found.
    [count] = armature.turn(("Bash", {"command": f"wc -l {greeter} {target}", "description": "Count lines"})).values()
    total = int(re.search(r"(\d+) total", text(count)).group(1))
    steps.append(f"turn 4: {total} lines in all")

    # Turn 5: an edit nobody approved is refused (default mode, no terminal): an is_error result.
    [edit] = armature.turn(("Edit", {"file_path": greeter, "old_string": "Hello", "new_string": "Hi"})).values()
    steps.append(f"turn 5: Edit refused: {edit.get('is_error') is True}")

    status = armature.close()
    print("\n".join(steps))
    ok = (
        files == ["src/greet.ts", "src/math.ts"]
        and imports == ["math"]
        and "add" in exported
        and total > 0
        and edit.get("is_error") is True
        and status == 0
    )
    print("ok" if ok else "unexpected answers")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
