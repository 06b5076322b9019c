// The names of paths whose contents make other tools run code (or configure this agent): data,
// with the reason for each entry, read by the permission engine's protected-path check
// (src/permissions/safety.ts) and by the sandbox, which mounts them read-only
// (src/sandbox/protected-paths.ts). Here, below both, so that the sandbox (and the shell
// analysis, which starts its helpers through the sandbox's engine process) does not reach up
// into src/permissions for them.

/**
 * Paths whose contents make other tools run code (or configure this agent): a write there always
 * needs a human, in every mode (acceptEdits and bypassPermissions included). Data, with the
 * reason for each entry. Names compare case-insensitively, segment by segment.
 */
export const PROTECTED_DIRS: ReadonlyArray<{ name: string; reason: string }> = [
  { name: ".git", reason: "git runs its hooks and the programs its config names (core.fsmonitor, core.pager…)" },
  { name: ".hg", reason: "Mercurial runs the hooks in .hg/hgrc" },
  { name: ".svn", reason: "Subversion's working-copy administration area" },
  { name: ".armature", reason: "this agent's project settings: hooks, allow rules, env" },
  { name: ".claude", reason: "the reference agent's project settings: hooks, allow rules, env" },
  { name: ".vscode", reason: "VS Code runs tasks.json tasks and settings.json names programs (terminal, linters)" },
  { name: ".idea", reason: "JetBrains IDEs run configured tools and startup tasks" },
  { name: ".husky", reason: "husky's git hooks run on commit" },
  { name: ".cargo", reason: "cargo config names build wrappers and runners" },
  { name: ".devcontainer", reason: "a dev container runs its lifecycle commands on the machine" },
  { name: ".yarn", reason: "Yarn runs its plugins and the release it holds" },
  { name: ".mvn", reason: "Maven loads extensions and the wrapper it names" },
  { name: ".circleci", reason: "CI configuration runs commands with the repository's secrets" },
  { name: ".buildkite", reason: "CI configuration runs commands with the repository's secrets" },
  { name: ".githooks", reason: "git hooks (core.hooksPath) run on commit" },
];

export const PROTECTED_FILES: ReadonlyArray<{ name: string; reason: string }> = [
  ...[".gitconfig", ".gitmodules", ".gitattributes"].map((name) => ({ name, reason: "git reads it: it can name filters and programs that git runs" })),
  ...[".bashrc", ".bash_profile", ".bash_login", ".bash_aliases", ".bash_logout", ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout", ".profile"].map(
    (name) => ({ name, reason: "a shell start-up file, run by every new shell" }),
  ),
  { name: ".envrc", reason: "direnv runs it on entering the directory" },
  ...[".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", ".pnp.cjs", ".pnp.loader.mjs", "bunfig.toml", ".bunfig.toml"].map((name) => ({
    name,
    reason: "the package manager reads it: it can name scripts, hooks and registries",
  })),
  ...[".bazelrc", ".bazelversion", ".bazeliskrc"].map((name) => ({ name, reason: "Bazel reads it: it selects the binary and its flags" })),
  ...[".pre-commit-config.yaml", "lefthook.yml", "lefthook.yaml", ".lefthook.yml", ".lefthook.yaml"].map((name) => ({ name, reason: "git hook managers run what it names on commit" })),
  ...["gradle-wrapper.properties", "maven-wrapper.properties"].map((name) => ({ name, reason: "the build wrapper downloads and runs the distribution it names" })),
  ...["rust-toolchain.toml", "rust-toolchain"].map((name) => ({ name, reason: "rustup runs the toolchain it names (toolchain.path: any directory) for cargo and rustc" })),
  { name: ".devcontainer.json", reason: "a dev container runs its lifecycle commands on the machine" },
  { name: ".ripgreprc", reason: "ripgrep reads it (RIPGREP_CONFIG_PATH): --pre runs a program on every file" },
  { name: "pyrightconfig.json", reason: "the type checker reads it: it can name interpreters and paths" },
  { name: ".mcp.json", reason: "the project's MCP servers: programs the agent starts" },
  { name: ".claude.json", reason: "the reference agent's configuration" },
  { name: ".rprofile", reason: "R runs it at start-up" },
  { name: ".gitlab-ci.yml", reason: "CI configuration runs commands with the repository's secrets" },
  { name: ".travis.yml", reason: "CI configuration runs commands with the repository's secrets" },
  { name: "azure-pipelines.yml", reason: "CI configuration runs commands with the repository's secrets" },
  { name: "bitbucket-pipelines.yml", reason: "CI configuration runs commands with the repository's secrets" },
  { name: "sitecustomize.py", reason: "Python imports it at start-up when it is on the path" },
  { name: "usercustomize.py", reason: "Python imports it at start-up when it is on the path" },
];

/** Protected by where they are: a sequence of segments (lower case) and what it means. */
export const PROTECTED_SEQUENCES: ReadonlyArray<{ segments: readonly string[]; reason: string }> = [
  { segments: [".config", "git"], reason: "git's user configuration" },
  { segments: [".github", "workflows"], reason: "CI workflows run commands with the repository's secrets" },
  { segments: [".github", "actions"], reason: "CI actions run commands with the repository's secrets" },
  { segments: [".gitlab", "ci"], reason: "CI configuration runs commands with the repository's secrets" },
];
