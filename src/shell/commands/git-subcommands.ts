// Option tables of git subcommands that use parse-options (unambiguous prefixes, `--no-NAME`),
// from `git <sub> -h` (the table check compares them with the installed git).
import type { CommandTable } from "./types.js";

export const GIT_SUBCOMMANDS: Record<string, CommandTable> = {
  "archive": {
    style: "git",
    short: "o:vl",
    long: [
      "format=", "prefix=", "add-file=", "add-virtual-file=", "output=|o", "worktree-attributes", "verbose|v", "list|l",
      "remote=", "exec=",
    ],
    values: {"o": "write", "output": "write", "add-file": "read", "exec": "exec", "remote": "unsafe"},
  },
  "branch": {
    style: "git",
    short: "vqt::u:radDmMcClfi",
    long: [
      "verbose|v", "quiet|q", "track=?|t", "set-upstream-to=|u", "unset-upstream", "color=?", "remotes|r", "contains=",
      "no-contains=", "abbrev=?", "all|a", "delete|d", "move|m", "copy|c", "list|l", "show-current", "create-reflog",
      "edit-description", "force|f", "merged=", "no-merged=", "column=?", "sort=", "points-at=", "ignore-case|i",
      "recurse-submodules", "format=",
    ],
  },
  "tag": {
    style: "git",
    short: "ln::dvam:F:esu:fi",
    long: [
      "list|l", "delete|d", "verify|v", "annotate|a", "message=|m", "file=|F", "edit|e", "sign|s", "cleanup=", "local-user=|u", "force|f",
      "create-reflog", "column=?", "contains=", "no-contains=", "merged=", "no-merged=", "sort=", "points-at=",
      "format=", "color=?", "ignore-case|i",
    ],
    values: {"F": "read", "file": "read"},
  },
  "config": {
    style: "git",
    short: "f:let:z",
    long: [
      "global", "system", "local", "worktree", "file=|f", "blob=", "get", "get-all", "get-regexp", "get-urlmatch",
      "replace-all", "add", "unset", "unset-all", "rename-section", "remove-section", "list|l", "fixed-value", "edit|e",
      "get-color", "get-colorbool", "type=|t", "bool", "int", "bool-or-int", "bool-or-str", "path", "expiry-date", "null|z",
      "name-only", "includes", "show-origin", "show-scope", "default=",
    ],
    values: {"f": "read", "file": "read"},
  },
  "grep": {
    style: "git",
    short: "viwaIrEGFPnhHlLzocC:B:A:pWf:e:qO::m:",
    long: [
      "cached", "no-index", "untracked", "exclude-standard", "recurse-submodules", "invert-match|v", "ignore-case|i",
      "word-regexp|w", "text|a", "textconv", "recursive|r", "max-depth=", "extended-regexp|E", "basic-regexp|G", "fixed-strings|F",
      "perl-regexp|P", "line-number|n", "column", "full-name", "files-with-matches|l", "name-only", "files-without-match|L",
      "null|z", "only-matching|o", "count|c", "color=?", "break", "heading", "context=|C", "before-context=|B", "after-context=|A",
      "threads=", "show-function|p", "function-context|W", "and", "or", "not", "quiet|q", "all-match", "open-files-in-pager=?|O",
      "ext-grep", "max-count=|m",
    ],
    values: {"f": "read", "O": "exec", "open-files-in-pager": "exec"},
  },
  "blame": {
    style: "git",
    short: "bfnpctlsewS:C::M::L:",
    long: [
      "incremental", "root", "show-stats", "progress", "score-debug", "show-name|f", "show-number|n", "porcelain|p",
      "line-porcelain", "show-email|e", "ignore-rev=", "ignore-revs-file=", "color-lines", "color-by-age", "minimal",
      "contents=", "abbrev=?",
    ],
    values: {"contents": "read", "S": "read", "ignore-revs-file": "read"},
  },
  "annotate": {
    style: "git",
    short: "bfnpctlsewS:C::M::L:",
    long: [
      "incremental", "root", "show-stats", "progress", "score-debug", "show-name|f", "show-number|n", "porcelain|p",
      "line-porcelain", "show-email|e", "ignore-rev=", "ignore-revs-file=", "color-lines", "color-by-age", "minimal",
      "contents=", "abbrev=?",
    ],
    values: {"contents": "read", "S": "read", "ignore-revs-file": "read"},
  },
  "ls-files": {
    style: "git",
    short: "ztvfcdmoiskux:X:",
    long: [
      "cached|c", "deleted|d", "modified|m", "others|o", "ignored|i", "stage|s", "killed|k", "directory", "eol", "empty-directory",
      "unmerged|u", "resolve-undo", "exclude=|x", "exclude-from=|X", "exclude-per-directory=", "exclude-standard", "full-name",
      "recurse-submodules", "error-unmatch", "with-tree=", "abbrev=?", "debug", "deduplicate", "sparse", "format=",
    ],
    values: {"X": "read", "exclude-from": "read"},
  },
  "ls-tree": {
    style: "git",
    short: "drtzl",
    long: [
      "long|l", "name-only", "name-status", "object-only", "full-name", "full-tree", "format=", "abbrev=?",
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
      "verbose|v", "short|s", "branch|b", "show-stash", "ahead-behind", "porcelain=?", "long", "null|z", "untracked-files=?|u",
      "ignored=?", "ignore-submodules=?", "column=?", "no-renames", "find-renames=?|M",
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
      "quiet|q", "delete|d", "short", "recurse",
    ],
  },
  "show-ref": {
    style: "git",
    short: "ds::q",
    long: [
      "tags", "heads", "verify", "head", "dereference|d", "hash=?|s", "abbrev=?", "quiet|q", "exclude-existing=?",
    ],
  },
  "for-each-ref": {
    style: "git",
    short: "sp",
    long: [
      "shell|s", "perl|p", "python", "tcl", "count=", "format=", "color=?", "sort=", "points-at=", "merged=", "no-merged=",
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
      "quiet|q", "verbose|v", "stdin", "non-matching|n", "no-index",
    ],
  },
  "check-attr": {
    style: "git",
    short: "az",
    long: [
      "all|a", "cached", "stdin",
    ],
  },
  "count-objects": {
    style: "git",
    short: "vH",
    long: [
      "verbose|v", "human-readable|H",
    ],
  },
  "merge-base": {
    style: "git",
    short: "a",
    long: [
      "all|a", "octopus", "independent", "is-ancestor", "fork-point",
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
      "numbered|n", "no-numbered|N", "signoff|s", "stdout", "cover-letter", "numbered-files", "suffix=", "start-number=",
      "reroll-count=|v", "filename-max-length=", "rfc", "cover-from-description=", "subject-prefix=", "output-directory=|o",
      "keep-subject|k", "no-binary", "zero-commit", "ignore-if-in-upstream", "no-stat|p", "add-header=", "to=", "cc=",
      "from=?", "in-reply-to=", "attach=?", "inline=?", "thread=?", "signature=", "base=", "signature-file=", "quiet|q",
      "progress", "interdiff=", "range-diff=", "creation-factor=", "force-in-body-from",
    ],
    values: {"o": "write", "output-directory": "write"},
  },
  "apply": {
    style: "git",
    short: "p:N3zC:Rvq",
    long: [
      "exclude=", "include=", "no-add", "stat", "numstat", "summary", "check", "index", "intent-to-add|N", "cached",
      "unsafe-paths", "apply", "3way|3", "build-fake-ancestor=", "whitespace=", "ignore-space-change", "ignore-whitespace",
      "reverse|R", "unidiff-zero", "reject", "allow-overlap", "verbose|v", "quiet|q", "inaccurate-eof", "recount",
      "directory=", "allow-empty",
    ],
  },
  "clean": {
    style: "git",
    short: "qnfide:xX",
    long: [
      "quiet|q", "dry-run|n", "force|f", "interactive|i", "exclude=|e",
    ],
  },
  "commit": {
    style: "git",
    short: "qvF:m:c:C:st:eS::aiponzu::",
    long: [
      "quiet|q", "verbose|v", "file=|F", "author=", "date=", "message=|m", "reedit-message=|c", "reuse-message=|C", "fixup",
      "squash=", "reset-author", "trailer=", "signoff|s", "template=|t", "edit|e", "cleanup=", "status", "gpg-sign=?|S", "all|a",
      "include|i", "interactive", "patch|p", "only|o", "no-verify|n", "dry-run", "short", "branch", "ahead-behind", "porcelain",
      "long", "null|z", "amend", "no-post-rewrite", "untracked-files=?|u", "pathspec-from-file=", "pathspec-file-nul",
    ],
    values: {"F": "read", "file": "read", "t": "read", "template": "read", "pathspec-from-file": "list"},
  },
  "push": {
    style: "git",
    short: "vqdnfuo:46",
    long: [
      "verbose|v", "quiet|q", "repo=", "all", "mirror", "delete|d", "tags", "dry-run|n", "porcelain", "force|f",
      "force-with-lease=?", "force-if-includes", "recurse-submodules", "thin", "receive-pack=", "exec=", "set-upstream|u",
      "progress", "prune", "no-verify", "follow-tags", "signed=?", "atomic", "push-option=|o", "ipv4|4", "ipv6|6",
    ],
    values: {"receive-pack": "exec", "exec": "exec"},
  },
  "fetch": {
    style: "git",
    short: "vqafmtnj:pPkuo:46",
    long: [
      "verbose|v", "quiet|q", "all", "set-upstream", "append|a", "atomic", "upload-pack=", "force|f", "multiple|m", "tags|t",
      "jobs=|j", "prefetch", "prune|p", "prune-tags|P", "recurse-submodules=?", "dry-run", "write-fetch-head", "keep|k",
      "update-head-ok|u", "progress", "depth=", "shallow-since=", "shallow-exclude=", "deepen=", "unshallow", "refetch",
      "update-shallow", "refmap=", "server-option=|o", "ipv4|4", "ipv6|6", "negotiation-tip=", "negotiate-only", "filter=",
      "auto-maintenance", "auto-gc", "show-forced-updates", "write-commit-graph", "stdin",
    ],
    values: {"upload-pack": "exec"},
  },
  "checkout": {
    style: "git",
    short: "b:B:lqmdt::f23p",
    long: [
      "guess", "overlay", "quiet|q", "recurse-submodules=?", "progress", "merge|m", "conflict=", "detach|d", "track=?|t",
      "force|f", "orphan=", "overwrite-ignore", "ignore-other-worktrees", "ours|2", "theirs|3", "patch|p",
      "ignore-skip-worktree-bits", "pathspec-from-file=", "pathspec-file-nul",
    ],
    values: {"pathspec-from-file": "list"},
  },
  "switch": {
    style: "git",
    short: "c:C:qmdt::f",
    long: [
      "create=|c", "force-create=|C", "guess", "discard-changes", "quiet|q", "recurse-submodules=?", "progress", "merge|m",
      "conflict=", "detach|d", "track=?|t", "force|f", "orphan=", "overwrite-ignore", "ignore-other-worktrees",
    ],
  },
  "restore": {
    style: "git",
    short: "s:SWqm23p",
    long: [
      "source=|s", "staged|S", "worktree|W", "ignore-unmerged", "overlay", "quiet|q", "recurse-submodules=?", "progress",
      "merge|m", "conflict=", "ours|2", "theirs|3", "patch|p", "ignore-skip-worktree-bits", "pathspec-from-file=",
      "pathspec-file-nul",
    ],
    values: {"pathspec-from-file": "list"},
  },
  "reset": {
    style: "git",
    short: "qpN",
    long: [
      "quiet|q", "no-refresh", "mixed", "soft", "hard", "merge", "keep", "recurse-submodules=?", "patch|p", "intent-to-add|N",
      "pathspec-from-file=", "pathspec-file-nul",
    ],
    values: {"pathspec-from-file": "list"},
  },
  "add": {
    style: "git",
    short: "nvipefuNA",
    long: [
      "dry-run|n", "verbose|v", "interactive|i", "patch|p", "edit|e", "force|f", "update|u", "renormalize", "intent-to-add|N", "all|A",
      "ignore-removal", "refresh", "ignore-errors", "ignore-missing", "sparse", "chmod", "pathspec-from-file=",
      "pathspec-file-nul",
    ],
    values: {"pathspec-from-file": "list"},
  },
  "rm": {
    style: "git",
    short: "nqfr",
    long: [
      "dry-run|n", "quiet|q", "cached", "force|f", "ignore-unmatch", "sparse", "pathspec-from-file=", "pathspec-file-nul",
    ],
    values: {"pathspec-from-file": "list"},
  },
  "mv": {
    style: "git",
    short: "vnfk",
    long: [
      "verbose|v", "dry-run|n", "force|f", "sparse",
    ],
  },
  "clone": {
    style: "git",
    short: "vqnlsj:o:b:u:c:46",
    long: [
      "verbose|v", "quiet|q", "progress", "reject-shallow", "no-checkout|n", "bare", "mirror", "local|l", "no-hardlinks",
      "shared|s", "recurse-submodules=?", "recursive=?", "jobs=|j", "template=", "reference=", "reference-if-able=",
      "dissociate", "origin=|o", "branch=|b", "upload-pack=|u", "depth=", "shallow-since=", "shallow-exclude=",
      "single-branch", "no-tags", "shallow-submodules", "separate-git-dir=", "config=|c", "server-option=", "ipv4|4", "ipv6|6",
      "filter=", "also-filter-submodules", "remote-submodules", "sparse", "bundle-uri=",
    ],
    values: {"u": "exec", "upload-pack": "exec", "template": "read"},
  },
  "init": {
    style: "git",
    short: "qb:",
    long: [
      "template=", "bare", "shared=?", "quiet|q", "separate-git-dir=", "initial-branch=|b", "object-format=",
    ],
    values: {"template": "read"},
  },
  "am": {
    style: "git",
    short: "i3qsukmcC:p:rS::",
    long: [
      "interactive|i", "3way|3", "quiet|q", "signoff|s", "utf8|u", "keep|k", "keep-non-patch", "message-id|m", "keep-cr", "no-keep-cr",
      "scissors|c", "quoted-cr=", "whitespace=", "ignore-space-change", "ignore-whitespace", "directory=", "exclude=",
      "include=", "patch-format=", "reject", "resolvemsg", "continue", "resolved|r", "skip", "abort", "quit",
      "show-current-patch=?", "allow-empty", "committer-date-is-author-date", "ignore-date", "rerere-autoupdate",
      "gpg-sign=?|S", "empty=",
    ],
  },
  "cherry-pick": {
    style: "git",
    short: "nesm:X:S::x",
    long: [
      "quit", "continue", "abort", "skip", "cleanup=", "no-commit|n", "edit|e", "signoff|s", "mainline=|m", "rerere-autoupdate",
      "strategy=", "strategy-option=|X", "gpg-sign=?|S", "ff", "allow-empty", "allow-empty-message",
      "keep-redundant-commits",
    ],
  },
  "revert": {
    style: "git",
    short: "nesm:X:S::",
    long: [
      "quit", "continue", "abort", "skip", "cleanup=", "no-commit|n", "edit|e", "signoff|s", "mainline=|m", "rerere-autoupdate",
      "strategy=", "strategy-option=|X", "gpg-sign=?|S", "reference",
    ],
  },
  "merge": {
    style: "git",
    short: "nes:X:m:F:vqS::",
    long: [
      "stat", "summary", "log=?", "squash", "commit", "edit|e", "cleanup=", "ff", "ff-only", "rerere-autoupdate",
      "verify-signatures", "strategy=|s", "strategy-option=|X", "message=|m", "file=|F", "into-name=", "verbose|v", "quiet|q",
      "abort", "quit", "continue", "allow-unrelated-histories", "progress", "gpg-sign=?|S", "autostash",
      "overwrite-ignore", "signoff", "no-verify",
    ],
  },
  "rebase": {
    style: "git",
    short: "qvnC:fmiS::x:r::s:X:",
    long: [
      "onto=", "keep-base", "no-verify", "quiet|q", "verbose|v", "no-stat|n", "signoff", "committer-date-is-author-date",
      "reset-author-date", "ignore-whitespace", "whitespace=", "force-rebase|f", "no-ff", "continue", "skip", "abort",
      "quit", "edit-todo", "show-current-patch", "apply", "merge|m", "interactive|i", "rerere-autoupdate", "empty=",
      "autosquash", "update-refs", "gpg-sign=?|S", "autostash", "exec=|x", "rebase-merges=?|r", "fork-point", "strategy=|s",
      "strategy-option=|X", "root", "reschedule-failed-exec", "reapply-cherry-picks",
    ],
  },
  "pull": {
    style: "git",
    short: "vqr::ns:X:S::aftpj::ko:46",
    long: [
      "verbose|v", "quiet|q", "progress", "recurse-submodules=?", "rebase=?|r", "stat", "log=?", "signoff=?", "squash",
      "commit", "edit", "cleanup=", "ff", "ff-only", "verify", "verify-signatures", "autostash", "strategy=|s",
      "strategy-option=|X", "gpg-sign=?|S", "allow-unrelated-histories", "all", "append|a", "upload-pack=", "force|f", "tags|t",
      "prune|p", "jobs=?|j", "dry-run", "keep|k", "depth=", "shallow-since=", "shallow-exclude=", "deepen=", "unshallow",
      "update-shallow", "refmap=", "server-option=|o", "ipv4|4", "ipv6|6", "negotiation-tip=", "show-forced-updates",
      "set-upstream",
    ],
    values: {"upload-pack": "exec"},
  },
  "show-branch": {
    style: "git",
    short: "arg::",
    long: [
      "all|a", "remotes|r", "color=?", "more=?", "list", "no-name", "current", "sha1-name", "merge-base", "independent",
      "topo-order", "topics", "sparse", "date-order", "reflog=?|g",
    ],
  },
  "verify-pack": {
    style: "git",
    short: "vs",
    long: [
      "verbose|v", "stat-only|s", "object-format=",
    ],
  },
};
