// The system-call filter every sandboxed command runs under: no Unix-domain socket can be made, so
// no socket anywhere on the host (a tmux server, an ssh or gpg agent, dbus, docker, an editor's IPC,
// a database) can be connected, whatever folder it lies in and whether or not a mount hides it.
// `socketpair` stays (pipes between processes of the call), and so does every other family: the
// call's network namespace has only its own loopback. A classic BPF program, given to bwrap's
// `--seccomp FD`; the kernel checks the architecture first, so a 32-bit entry point cannot slip by.

/** seccomp_data: `nr` at 0, `arch` at 4, `args[0]` at 16 (its low word on a little-endian machine). */
const NR = 0;
const ARCH = 4;
const ARG0 = 16;

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_RET_K = 0x06;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
const AF_UNIX = 1;

interface Arch {
  audit: number;
  socket: number;
  /** io_uring can make sockets without the socket system call (IORING_OP_SOCKET). */
  ioUringSetup: number;
  /** Numbers at or above this are another ABI on the same architecture (x86's x32). */
  foreignAbove?: number;
}

const ARCHES: Readonly<Record<string, Arch>> = {
  x64: { audit: 0xc000003e, socket: 41, ioUringSetup: 425, foreignAbove: 0x40000000 },
  arm64: { audit: 0xc00000b7, socket: 198, ioUringSetup: 425 },
};

type Instruction = readonly [code: number, jt: number, jf: number, k: number];

/**
 * The program for `arch` (node's `process.arch`), or undefined where armature knows no system-call
 * numbers (the sandbox then runs without the filter, the socket folders still hidden).
 */
export function unixSocketFilter(arch: string = process.arch): Buffer | undefined {
  const a = ARCHES[arch];
  if (a === undefined || process.platform !== "linux") return undefined;
  const deny = SECCOMP_RET_ERRNO | EPERM;
  // Jumps count the instructions skipped; the two returns close the program.
  const body: Instruction[] = [
    [BPF_LD_W_ABS, 0, 0, NR],
    ...(a.foreignAbove !== undefined ? [[BPF_JGE_K, 5, 0, a.foreignAbove] as const] : []),
    [BPF_JEQ_K, 4, 0, a.ioUringSetup],
    [BPF_JEQ_K, 0, 2, a.socket],
    [BPF_LD_W_ABS, 0, 0, ARG0],
    [BPF_JEQ_K, 1, 0, AF_UNIX],
    [BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW],
    [BPF_RET_K, 0, 0, deny],
  ];
  // Another architecture's calling convention (a 32-bit program): nothing it asks for is allowed.
  const program: Instruction[] = [[BPF_LD_W_ABS, 0, 0, ARCH], [BPF_JEQ_K, 0, body.length - 1, a.audit], ...body];
  const out = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], i) => {
    out.writeUInt16LE(code, i * 8);
    out.writeUInt8(jt, i * 8 + 2);
    out.writeUInt8(jf, i * 8 + 3);
    out.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return out;
}

/** The descriptor bwrap reads the program from: the child's fd 3 (stdin, stdout and stderr before it). */
export const SECCOMP_FD = 3;
