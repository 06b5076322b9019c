"""Runs `armature exec --interactive` on a pseudo-terminal: types a turn that needs approval,
answers the question with y, and prints the exit code and whether the command ran.
Usage: python3 test/pty-exec.py NODE BIN CWD"""
import json
import os
import pty
import select
import sys
import time

node, bin_, cwd = sys.argv[1:4]
pid, fd = pty.fork()
if pid == 0:
    os.execv(node, [node, bin_, "exec", "--interactive", "--cwd", cwd])
seen = b""


def wait_for(text, seconds=120):
    global seen
    end = time.time() + seconds
    while time.time() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                seen += os.read(fd, 4096)
            except OSError:
                break
        if text.encode() in seen:
            return
    sys.exit(f"never saw {text!r}; the terminal showed: {seen.decode(errors='replace')}")


wait_for("waiting for JSON Lines")
os.write(fd, (json.dumps([{"type": "tool_use", "id": "a", "name": "Bash", "input": {"command": "touch made.txt"}}]) + "\n").encode())
wait_for("Allow?")
os.write(fd, b"y\n")
wait_for('"tool_use_id":"a"')
os.write(fd, b"\x04")  # Ctrl-D: end of input
_, status = os.waitpid(pid, 0)
print(json.dumps({"exit": os.waitstatus_to_exitcode(status), "made": os.path.exists(os.path.join(cwd, "made.txt"))}))
