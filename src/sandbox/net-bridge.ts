// The in-sandbox half of the network proxy (network-proxy.ts), as source for `node -e`: it runs
// where armature's own modules may not be importable (the sandbox sees the same files, but this
// must not depend on how armature was installed or bundled).

/**
 * The bridge, run by node inside the sandbox in front of the command: `node -e BRIDGE <argv…>`,
 * started with an IPC channel to armature (NODE_CHANNEL_FD). It listens on the namespace's
 * 127.0.0.1 (port chosen by the kernel), points the proxy variables at it, and hands every
 * connection it accepts to armature, descriptor and all: it makes no socket of its own but that
 * listener, so it works under the filter that refuses Unix sockets. The command gets neither the
 * channel nor its variables, and the bridge exits as the command does.
 */
export const BRIDGE_SCRIPT = `
const net = require("net"), os = require("os"), { spawn } = require("child_process");
const argv = process.argv.slice(1);
const srv = net.createServer({ pauseOnConnect: true }, (c) => {
  c.on("error", () => {});
  process.send("connection", c, { keepOpen: false }, (e) => { if (e) c.destroy(); });
});
srv.listen(0, "127.0.0.1", () => {
  const url = "http://127.0.0.1:" + srv.address().port;
  const env = { ...process.env };
  delete env.NODE_CHANNEL_FD;
  delete env.NODE_CHANNEL_SERIALIZATION_MODE;
  for (const k of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"]) env[k] = env[k.toLowerCase()] = url;
  env.NO_PROXY = env.no_proxy = "localhost,127.0.0.1,::1";
  const child = spawn(argv[0], argv.slice(1), { stdio: "inherit", env });
  for (const s of ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT"]) process.on(s, () => child.kill(s));
  child.on("error", (e) => { process.stderr.write(argv[0] + ": " + e.message + "\\n"); process.exit(127); });
  child.on("exit", (code, sig) => process.exit(code ?? 128 + (os.constants.signals[sig] || 0)));
});
`;
