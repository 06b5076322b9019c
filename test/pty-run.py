"""Runs a command on a pseudo-terminal (python3's pty module) and bridges it: bytes on this
process's stdin are typed into the terminal (keys: "\r", "\x03" for Ctrl-C, "\x04" for Ctrl-D),
and what the terminal shows is copied to stdout. Exits with the command's exit code.
Usage: python3 test/pty-run.py COMMAND [ARG...]"""
import fcntl
import os
import pty
import select
import struct
import sys
import termios

pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
stdin = sys.stdin.fileno()
inputs = [fd, stdin]
while True:
    ready, _, _ = select.select(inputs, [], [], 0.2)
    if fd in ready:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        os.write(sys.stdout.fileno(), data)
    if stdin in ready:
        data = os.read(stdin, 4096)
        if data:
            os.write(fd, data)
        else:
            inputs.remove(stdin)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
