// The in-sandbox half of the network proxy (network-proxy.ts), as source for `node -e`: it runs
// where armature's own modules may not be importable (the sandbox sees the same files, but this
// must not depend on how armature was installed or bundled).

/**
 * The bridge, run by node inside the sandbox in front of the command: `node -e BRIDGE <socket>
 * <argv…>`. It listens on the namespace's 127.0.0.1 (port chosen by the kernel), points the proxy
 * variables at it, runs the command and exits as it does. Loopback stays the sandbox's own.
 */
export const BRIDGE_SCRIPT = `
const net = require("net"), os = require("os"), { spawn } = require("child_process");
const [sock, ...argv] = process.argv.slice(1);
const srv = net.createServer((c) => {
  const u = net.connect(sock);
  const end = () => { c.destroy(); u.destroy(); };
  for (const s of [c, u]) s.on("error", end).on("close", end);
  c.pipe(u).pipe(c);
});
srv.listen(0, "127.0.0.1", () => {
  const url = "http://127.0.0.1:" + srv.address().port;
  const env = { ...process.env };
  for (const k of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"]) env[k] = env[k.toLowerCase()] = url;
  env.NO_PROXY = env.no_proxy = "localhost,127.0.0.1,::1";
  const child = spawn(argv[0], argv.slice(1), { stdio: "inherit", env });
  for (const s of ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT"]) process.on(s, () => child.kill(s));
  child.on("error", (e) => { process.stderr.write(argv[0] + ": " + e.message + "\\n"); process.exit(127); });
  child.on("exit", (code, sig) => process.exit(code ?? 128 + (os.constants.signals[sig] || 0)));
});
`;
