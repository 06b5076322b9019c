// Option tables of git subcommands that use parse-options (unambiguous prefixes, `--no-NAME`),
// from `git <sub> -h` (the table check compares them with the installed git).
import type { CommandTable } from "./types.js";

export const GIT_SUBCOMMANDS: Record<string, CommandTable> = {
  "archive": {
    style: "git",
    short: "o:vl",
    long: [
      "format=", "prefix=", "add-file=", "add-virtual-file=", "output=", "worktree-attributes", "verbose", "list",
      "remote=", "exec=",
    ],
    values: {"o": "write", "output": "write", "add-file": "read", "exec": "exec", "remote": "unsafe"},
  },
  "branch": {
    style: "git",
    short: "vqt::u:radDmMcClfi",
    long: [
      "verbose", "quiet", "track=?", "set-upstream-to=", "unset-upstream", "color=?", "remotes", "contains=",
      "no-contains=", "abbrev=?", "all", "delete", "move", "copy", "list", "show-current", "create-reflog",
      "edit-description", "force", "merged=", "no-merged=", "column=?", "sort=", "points-at=", "ignore-case",
      "recurse-submodules", "format=",
    ],
  },
  "tag": {
    style: "git",
    short: "ln::dvam:F:esu:fi",
    long: [
      "list", "delete", "verify", "annotate", "message=", "file=", "edit", "sign", "cleanup=", "local-user=", "force",
      "create-reflog", "column=?", "contains=", "no-contains=", "merged=", "no-merged=", "sort=", "points-at=",
      "format=", "color=?", "ignore-case",
    ],
    values: {"F": "read", "file": "read"},
  },
  "config": {
    style: "git",
    short: "f:let:z",
    long: [
      "global", "system", "local", "worktree", "file=", "blob=", "get", "get-all", "get-regexp", "get-urlmatch",
      "replace-all", "add", "unset", "unset-all", "rename-section", "remove-section", "list", "fixed-value", "edit",
      "get-color", "get-colorbool", "type=", "bool", "int", "bool-or-int", "bool-or-str", "path", "expiry-date", "null",
      "name-only", "includes", "show-origin", "show-scope", "default=",
    ],
    values: {"f": "read", "file": "read"},
  },
  "grep": {
    style: "git",
    short: "viwaIrEGFPnhHlLzocC:B:A:pWf:e:qO::m:",
    long: [
      "cached", "no-index", "untracked", "exclude-standard", "recurse-submodules", "invert-match", "ignore-case",
      "word-regexp", "text", "textconv", "recursive", "max-depth=", "extended-regexp", "basic-regexp", "fixed-strings",
      "perl-regexp", "line-number", "column", "full-name", "files-with-matches", "name-only", "files-without-match",
      "null", "only-matching", "count", "color=?", "break", "heading", "context=", "before-context=", "after-context=",
      "threads=", "show-function", "function-context", "and", "or", "not", "quiet", "all-match", "open-files-in-pager=?",
      "ext-grep", "max-count=",
    ],
    values: {"f": "read", "O": "exec", "open-files-in-pager": "exec"},
  },
  "blame": {
    style: "git",
    short: "bfnpctlsewS:C::M::L:",
    long: [
      "incremental", "root", "show-stats", "progress", "score-debug", "show-name", "show-number", "porcelain",
      "line-porcelain", "show-email", "ignore-rev=", "ignore-revs-file=", "color-lines", "color-by-age", "minimal",
      "contents=", "abbrev=?",
    ],
    values: {"contents": "read", "S": "read", "ignore-revs-file": "read"},
  },
  "annotate": {
    style: "git",
    short: "bfnpctlsewS:C::M::L:",
    long: [
      "incremental", "root", "show-stats", "progress", "score-debug", "show-name", "show-number", "porcelain",
      "line-porcelain", "show-email", "ignore-rev=", "ignore-revs-file=", "color-lines", "color-by-age", "minimal",
      "contents=", "abbrev=?",
    ],
    values: {"contents": "read", "S": "read", "ignore-revs-file": "read"},
  },
  "ls-files": {
    style: "git",
    short: "ztvfcdmoiskux:X:",
    long: [
      "cached", "deleted", "modified", "others", "ignored", "stage", "killed", "directory", "eol", "empty-directory",
      "unmerged", "resolve-undo", "exclude=", "exclude-from=", "exclude-per-directory=", "exclude-standard", "full-name",
      "recurse-submodules", "error-unmatch", "with-tree=", "abbrev=?", "debug", "deduplicate", "sparse", "format=",
    ],
    values: {"X": "read", "exclude-from": "read"},
  },
  "ls-tree": {
    style: "git",
    short: "drtzl",
    long: [
      "long", "name-only", "name-status", "object-only", "full-name", "full-tree", "format=", "abbrev=?",
    ],
  },
  "cat-file": {
    style: "git",
    short: "eptsz",
    long: [
      "allow-unknown-type", "use-mailmap", "mailmap", "batch=?", "batch-check=?", "batch-command=?", "batch-all-objects",
      "buffer", "follow-symlinks", "unordered", "textconv", "filters", "path",
    ],
  },
  "status": {
    style: "git",
    short: "vsbzu::M::",
    long: [
      "verbose", "short", "branch", "show-stash", "ahead-behind", "porcelain=?", "long", "null", "untracked-files=?",
      "ignored=?", "ignore-submodules=?", "column=?", "no-renames", "find-renames=?",
    ],
  },
  "describe": {
    style: "git",
    short: "",
    long: [
      "contains", "debug", "all", "tags", "long", "first-parent", "abbrev=?", "exact-match", "candidates=", "match=",
      "exclude=", "always", "dirty=?", "broken=?",
    ],
  },
  "symbolic-ref": {
    style: "git",
    short: "qdm:",
    long: [
      "quiet", "delete", "short", "recurse",
    ],
  },
  "show-ref": {
    style: "git",
    short: "ds::q",
    long: [
      "tags", "heads", "verify", "head", "dereference", "hash=?", "abbrev=?", "quiet", "exclude-existing=?",
    ],
  },
  "for-each-ref": {
    style: "git",
    short: "sp",
    long: [
      "shell", "perl", "python", "tcl", "count=", "format=", "color=?", "sort=", "points-at=", "merged=", "no-merged=",
      "contains=", "no-contains=", "ignore-case",
    ],
  },
  "hash-object": {
    style: "git",
    short: "t:w",
    long: [
      "stdin", "stdin-paths", "no-filters", "literally", "path=",
    ],
  },
  "check-ignore": {
    style: "git",
    short: "qvzn",
    long: [
      "quiet", "verbose", "stdin", "non-matching", "no-index",
    ],
  },
  "check-attr": {
    style: "git",
    short: "az",
    long: [
      "all", "cached", "stdin",
    ],
  },
  "count-objects": {
    style: "git",
    short: "vH",
    long: [
      "verbose", "human-readable",
    ],
  },
  "merge-base": {
    style: "git",
    short: "a",
    long: [
      "all", "octopus", "independent", "is-ancestor", "fork-point",
    ],
  },
  "name-rev": {
    style: "git",
    short: "",
    long: [
      "name-only", "tags", "refs=", "exclude=", "all", "stdin", "annotate-stdin", "undefined", "always",
    ],
  },
  "format-patch": {
    style: "git",
    short: "nNsv:o:kpq",
    long: [
      "numbered", "no-numbered", "signoff", "stdout", "cover-letter", "numbered-files", "suffix=", "start-number=",
      "reroll-count=", "filename-max-length=", "rfc", "cover-from-description=", "subject-prefix=", "output-directory=",
      "keep-subject", "no-binary", "zero-commit", "ignore-if-in-upstream", "no-stat", "add-header=", "to=", "cc=",
      "from=?", "in-reply-to=", "attach=?", "inline=?", "thread=?", "signature=", "base=", "signature-file=", "quiet",
      "progress", "interdiff=", "range-diff=", "creation-factor=", "force-in-body-from",
    ],
    values: {"o": "write", "output-directory": "write"},
  },
  "apply": {
    style: "git",
    short: "p:N3zC:Rvq",
    long: [
      "exclude=", "include=", "no-add", "stat", "numstat", "summary", "check", "index", "intent-to-add", "cached",
      "unsafe-paths", "apply", "3way", "build-fake-ancestor=", "whitespace=", "ignore-space-change", "ignore-whitespace",
      "reverse", "unidiff-zero", "reject", "allow-overlap", "verbose", "quiet", "inaccurate-eof", "recount",
      "directory=", "allow-empty",
    ],
  },
  "clean": {
    style: "git",
    short: "qnfide:xX",
    long: [
      "quiet", "dry-run", "force", "interactive", "exclude=",
    ],
  },
  "commit": {
    style: "git",
    short: "qvF:m:c:C:st:eS::aiponzu::",
    long: [
      "quiet", "verbose", "file=", "author=", "date=", "message=", "reedit-message=", "reuse-message=", "fixup",
      "squash=", "reset-author", "trailer=", "signoff", "template=", "edit", "cleanup=", "status", "gpg-sign=?", "all",
      "include", "interactive", "patch", "only", "no-verify", "dry-run", "short", "branch", "ahead-behind", "porcelain",
      "long", "null", "amend", "no-post-rewrite", "untracked-files=?", "pathspec-from-file=", "pathspec-file-nul",
    ],
    values: {"F": "read", "file": "read", "t": "read", "template": "read", "pathspec-from-file": "list"},
  },
  "push": {
    style: "git",
    short: "vqdnfuo:46",
    long: [
      "verbose", "quiet", "repo=", "all", "mirror", "delete", "tags", "dry-run", "porcelain", "force",
      "force-with-lease=?", "force-if-includes", "recurse-submodules", "thin", "receive-pack=", "exec=", "set-upstream",
      "progress", "prune", "no-verify", "follow-tags", "signed=?", "atomic", "push-option=", "ipv4", "ipv6",
    ],
    values: {"receive-pack": "exec", "exec": "exec"},
  },
  "fetch": {
    style: "git",
    short: "vqafmtnj:pPkuo:46",
    long: [
      "verbose", "quiet", "all", "set-upstream", "append", "atomic", "upload-pack=", "force", "multiple", "tags",
      "jobs=", "prefetch", "prune", "prune-tags", "recurse-submodules=?", "dry-run", "write-fetch-head", "keep",
      "update-head-ok", "progress", "depth=", "shallow-since=", "shallow-exclude=", "deepen=", "unshallow", "refetch",
      "update-shallow", "refmap=", "server-option=", "ipv4", "ipv6", "negotiation-tip=", "negotiate-only", "filter=",
      "auto-maintenance", "auto-gc", "show-forced-updates", "write-commit-graph", "stdin",
    ],
    values: {"upload-pack": "exec"},
  },
  "checkout": {
    style: "git",
    short: "b:B:lqmdt::f23p",
    long: [
      "guess", "overlay", "quiet", "recurse-submodules=?", "progress", "merge", "conflict=", "detach", "track=?",
      "force", "orphan=", "overwrite-ignore", "ignore-other-worktrees", "ours", "theirs", "patch",
      "ignore-skip-worktree-bits", "pathspec-from-file=", "pathspec-file-nul",
    ],
    values: {"pathspec-from-file": "list"},
  },
  "switch": {
    style: "git",
    short: "c:C:qmdt::f",
    long: [
      "create=", "force-create=", "guess", "discard-changes", "quiet", "recurse-submodules=?", "progress", "merge",
      "conflict=", "detach", "track=?", "force", "orphan=", "overwrite-ignore", "ignore-other-worktrees",
    ],
  },
  "restore": {
    style: "git",
    short: "s:SWqm23p",
    long: [
      "source=", "staged", "worktree", "ignore-unmerged", "overlay", "quiet", "recurse-submodules=?", "progress",
      "merge", "conflict=", "ours", "theirs", "patch", "ignore-skip-worktree-bits", "pathspec-from-file=",
      "pathspec-file-nul",
    ],
    values: {"pathspec-from-file": "list"},
  },
  "reset": {
    style: "git",
    short: "qpN",
    long: [
      "quiet", "no-refresh", "mixed", "soft", "hard", "merge", "keep", "recurse-submodules=?", "patch", "intent-to-add",
      "pathspec-from-file=", "pathspec-file-nul",
    ],
    values: {"pathspec-from-file": "list"},
  },
  "add": {
    style: "git",
    short: "nvipefuNA",
    long: [
      "dry-run", "verbose", "interactive", "patch", "edit", "force", "update", "renormalize", "intent-to-add", "all",
      "ignore-removal", "refresh", "ignore-errors", "ignore-missing", "sparse", "chmod", "pathspec-from-file=",
      "pathspec-file-nul",
    ],
    values: {"pathspec-from-file": "list"},
  },
  "rm": {
    style: "git",
    short: "nqfr",
    long: [
      "dry-run", "quiet", "cached", "force", "ignore-unmatch", "sparse", "pathspec-from-file=", "pathspec-file-nul",
    ],
    values: {"pathspec-from-file": "list"},
  },
  "mv": {
    style: "git",
    short: "vnfk",
    long: [
      "verbose", "dry-run", "force", "sparse",
    ],
  },
  "clone": {
    style: "git",
    short: "vqnlsj:o:b:u:c:46",
    long: [
      "verbose", "quiet", "progress", "reject-shallow", "no-checkout", "bare", "mirror", "local", "no-hardlinks",
      "shared", "recurse-submodules=?", "recursive=?", "jobs=", "template=", "reference=", "reference-if-able=",
      "dissociate", "origin=", "branch=", "upload-pack=", "depth=", "shallow-since=", "shallow-exclude=",
      "single-branch", "no-tags", "shallow-submodules", "separate-git-dir=", "config=", "server-option=", "ipv4", "ipv6",
      "filter=", "also-filter-submodules", "remote-submodules", "sparse", "bundle-uri=",
    ],
    values: {"u": "exec", "upload-pack": "exec", "template": "read"},
  },
  "init": {
    style: "git",
    short: "qb:",
    long: [
      "template=", "bare", "shared=?", "quiet", "separate-git-dir=", "initial-branch=", "object-format=",
    ],
    values: {"template": "read"},
  },
  "am": {
    style: "git",
    short: "i3qsukmcC:p:rS::",
    long: [
      "interactive", "3way", "quiet", "signoff", "utf8", "keep", "keep-non-patch", "message-id", "keep-cr", "no-keep-cr",
      "scissors", "quoted-cr=", "whitespace=", "ignore-space-change", "ignore-whitespace", "directory=", "exclude=",
      "include=", "patch-format=", "reject", "resolvemsg", "continue", "resolved", "skip", "abort", "quit",
      "show-current-patch=?", "allow-empty", "committer-date-is-author-date", "ignore-date", "rerere-autoupdate",
      "gpg-sign=?", "empty=",
    ],
  },
  "cherry-pick": {
    style: "git",
    short: "nesm:X:S::x",
    long: [
      "quit", "continue", "abort", "skip", "cleanup=", "no-commit", "edit", "signoff", "mainline=", "rerere-autoupdate",
      "strategy=", "strategy-option=", "gpg-sign=?", "ff", "allow-empty", "allow-empty-message",
      "keep-redundant-commits",
    ],
  },
  "revert": {
    style: "git",
    short: "nesm:X:S::",
    long: [
      "quit", "continue", "abort", "skip", "cleanup=", "no-commit", "edit", "signoff", "mainline=", "rerere-autoupdate",
      "strategy=", "strategy-option=", "gpg-sign=?", "reference",
    ],
  },
  "merge": {
    style: "git",
    short: "nes:X:m:F:vqS::",
    long: [
      "stat", "summary", "log=?", "squash", "commit", "edit", "cleanup=", "ff", "ff-only", "rerere-autoupdate",
      "verify-signatures", "strategy=", "strategy-option=", "message=", "file=", "into-name=", "verbose", "quiet",
      "abort", "quit", "continue", "allow-unrelated-histories", "progress", "gpg-sign=?", "autostash",
      "overwrite-ignore", "signoff", "no-verify",
    ],
  },
  "rebase": {
    style: "git",
    short: "qvnC:fmiS::x:r::s:X:",
    long: [
      "onto=", "keep-base", "no-verify", "quiet", "verbose", "no-stat", "signoff", "committer-date-is-author-date",
      "reset-author-date", "ignore-whitespace", "whitespace=", "force-rebase", "no-ff", "continue", "skip", "abort",
      "quit", "edit-todo", "show-current-patch", "apply", "merge", "interactive", "rerere-autoupdate", "empty=",
      "autosquash", "update-refs", "gpg-sign=?", "autostash", "exec=", "rebase-merges=?", "fork-point", "strategy=",
      "strategy-option=", "root", "reschedule-failed-exec", "reapply-cherry-picks",
    ],
  },
  "pull": {
    style: "git",
    short: "vqr::ns:X:S::aftpj::ko:46",
    long: [
      "verbose", "quiet", "progress", "recurse-submodules=?", "rebase=?", "stat", "log=?", "signoff=?", "squash",
      "commit", "edit", "cleanup=", "ff", "ff-only", "verify", "verify-signatures", "autostash", "strategy=",
      "strategy-option=", "gpg-sign=?", "allow-unrelated-histories", "all", "append", "upload-pack=", "force", "tags",
      "prune", "jobs=?", "dry-run", "keep", "depth=", "shallow-since=", "shallow-exclude=", "deepen=", "unshallow",
      "update-shallow", "refmap=", "server-option=", "ipv4", "ipv6", "negotiation-tip=", "show-forced-updates",
      "set-upstream",
    ],
    values: {"upload-pack": "exec"},
  },
  "show-branch": {
    style: "git",
    short: "arg::",
    long: [
      "all", "remotes", "color=?", "more=?", "list", "no-name", "current", "sha1-name", "merge-base", "independent",
      "topo-order", "topics", "sparse", "date-order", "reflog=?",
    ],
  },
  "verify-pack": {
    style: "git",
    short: "vs",
    long: [
      "verbose", "stat-only", "object-format=",
    ],
  },
};
