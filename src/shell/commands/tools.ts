// Option tables of the search, text-processing, diff and compression tools, from their --help.
import type { CommandTable } from "./types.js";

const STD = ["help", "version"];
const GREP: CommandTable = {
  short: "EFGPe:f:iyuwxzsvVm:bnHhoqaId:D:rRLlcTZB:A:C:UX:",
  numeric: true,
  long: [
    "extended-regexp", "fixed-strings", "basic-regexp", "perl-regexp", "regexp=", "file=", "ignore-case", "no-ignore-case",
    "word-regexp", "line-regexp", "null-data", "no-messages", "invert-match", "max-count=", "byte-offset", "line-number",
    "no-line-number", "line-buffered", "with-filename", "no-filename", "label=", "only-matching", "quiet", "silent",
    "binary-files=", "text", "directories=", "devices=", "recursive", "dereference-recursive", "include=", "exclude=",
    "exclude-from=", "exclude-dir=", "files-without-match", "files-with-matches", "count", "initial-tab", "null",
    "before-context=", "after-context=", "context=", "group-separator=", "no-group-separator", "color=?", "colour>color", "binary", ...STD,
  ],
  values: { f: "read", file: "read", "exclude-from": "read" },
};
const AWK: CommandTable = {
  // gawk's options (mawk's `-W …` included): a superset, so that every real option is known.
  short: "f:v:F:e:i:l:E:bcCd::D::gG:hL::MnNo::Op::PrsStVW:",
  long: [
    "file=", "assign=", "field-separator=", "source=", "include=", "load=", "exec=", "characters-as-bytes", "traditional",
    "copyright", "dump-variables=?", "debug=?", "gen-pot", "help", "lint=?", "bignum", "use-lc-numeric", "non-decimal-data",
    "pretty-print=?", "optimize", "profile=?", "posix", "re-interval", "no-optimize", "sandbox", "lint-old", "version", "csv",
    // mawk's `-W NAME` options also spelled `--NAME`.
    "trace", "dump", "interactive", "random=", "sprintf=", "posix_space", "usage",
  ],
  values: {
    f: "program", file: "program", e: "awk", source: "awk", i: "program", include: "program", l: "exec", load: "exec",
    E: "program", exec: "program", d: "write", "dump-variables": "write", o: "write", "pretty-print": "write",
    p: "write", profile: "write",
  },
  effects: { D: "unsafe", debug: "unsafe", W: "unsafe" },
};
const GZIP: CommandTable = {
  short: "cdfhklLnNqrS:tvV123456789",
  long: ["stdout", "to-stdout>stdout", "decompress", "uncompress>decompress", "force", "keep", "list", "license", "no-name", "name", "quiet", "silent>quiet", "recursive", "rsyncable", "suffix=", "synchronous", "test", "verbose", "fast", "best", ...STD],
};
const BZIP2: CommandTable = { short: "hdzkftcqvLVs123456789", long: ["decompress", "compress", "keep", "force", "test", "stdout", "quiet", "verbose", "license", "small", "fast", "best", "repetitive-fast", "repetitive-best", ...STD] };
const XZ: CommandTable = {
  short: "zdtlkfcS:F:C:e0123456789T:M:qvQhHV",
  long: [
    "compress", "decompress", "uncompress>decompress", "test", "list", "keep", "force", "stdout", "to-stdout>stdout", "single-stream", "no-sparse", "suffix=",
    "files=?", "files0=?", "format=", "check=", "ignore-check", "extreme", "fast", "best", "threads=", "block-size=", "block-list=",
    "flush-timeout=", "memlimit-compress=", "memlimit-decompress=", "memlimit-mt-decompress=", "memlimit=", "memory>memlimit", "no-adjust",
    "lzma1=?", "lzma2=?", "x86=?", "arm=?", "armthumb=?", "arm64=?", "powerpc=?", "ia64=?", "sparc=?", "delta=?", "quiet",
    "verbose", "no-warn", "robot", "info-memory", "long-help", ...STD,
  ],
  values: { files: "list", files0: "list" },
};
const ZSTD: CommandTable = {
  // zstd's own parser: long names exact, `-o FILE` separate.
  style: "exact",
  short: "o:kdD:fhHVcvqrlS#:T:B:M:b::e::i::zC0123456789",
  long: [
    "keep", "rm", "decompress", "uncompress", "compress", "force", "help", "version", "stdout", "verbose", "quiet", "trace=", "progress",
    "no-progress", "filelist=", "output-dir-flat=", "output-dir-mirror=", "asyncio", "no-asyncio", "check", "no-check", "ultra", "fast=?",
    "adapt=?", "long=?", "patch-from=", "single-thread", "auto-threads=", "rsyncable", "exclude-compressed", "stream-size=",
    "size-hint=", "target-compressed-block-size=", "no-dictID", "compress-literals", "no-compress-literals", "row-match-finder=?",
    "format=", "test", "sparse", "no-sparse", "pass-through", "no-pass-through", "train", "train-cover=?", "train-fastcover=?",
    "train-legacy=?", "maxdict=", "dictID=", "priority=", "memory=", "threads=", "list", "content-size", "no-content-size",
    "mmap-dict", "no-mmap-dict", "show-default-cparams", "zstd=", "no-name", "no-row-match-finder",
  ],
  values: { o: "write", D: "read", "output-dir-flat": "write", "output-dir-mirror": "write", filelist: "list", "patch-from": "read", trace: "write" },
};

export const TOOLS: Record<string, CommandTable> = {
  grep: GREP,
  egrep: GREP,
  fgrep: GREP,
  zgrep: GREP,
  zegrep: GREP,
  zfgrep: GREP,
  rg: {
    // ripgrep's parser takes long names exactly.
    style: "exact",
    short: "A:B:bsC:cd:E:f:lFLg:hivnxM:m:UIN0oPpqe:r:zSaj:t:T:uVHw.",
    long: [
      "after-context=", "auto-hybrid-regex", "no-auto-hybrid-regex", "before-context=", "binary", "no-binary", "block-buffered",
      "no-block-buffered", "byte-offset", "no-byte-offset", "case-sensitive", "color=", "colors=", "column", "no-column", "context=",
      "context-separator=", "no-context-separator", "count", "count-matches", "only-matching", "crlf", "no-crlf", "debug", "trace",
      "dfa-size-limit=", "max-filesize=", "encoding=", "no-encoding", "engine=", "regexp=", "file=", "field-context-separator=",
      "field-match-separator=", "files", "files-with-matches", "files-without-match", "fixed-strings", "no-fixed-strings", "follow",
      "no-follow", "glob=", "glob-case-insensitive", "no-glob-case-insensitive", "help", "heading", "no-heading", "hidden", "no-hidden",
      "iglob=", "ignore-case", "ignore-file=", "ignore-file-case-insensitive", "no-ignore-file-case-insensitive", "include-zero",
      "no-include-zero", "invert-match", "no-invert-match", "json", "no-json", "replace=", "max-columns=", "line-buffered",
      "no-line-buffered", "line-number", "line-regexp", "max-columns-preview", "no-max-columns-preview", "max-count=", "max-depth=",
      "mmap", "multiline", "no-multiline", "multiline-dotall", "no-multiline-dotall", "no-config", "no-filename", "no-ignore",
      "ignore", "no-ignore-dot", "ignore-dot", "no-ignore-exclude", "ignore-exclude", "no-ignore-global", "ignore-global", "no-ignore-vcs",
      "ignore-vcs", "no-ignore-files", "ignore-files", "no-ignore-messages", "ignore-messages", "no-ignore-parent", "ignore-parent",
      "no-line-number", "no-messages", "messages", "no-mmap", "no-pcre2-unicode", "no-require-git", "require-git", "no-unicode", "pcre2-unicode",
      "unicode", "null", "null-data", "one-file-system", "no-one-file-system", "passthru", "passthrough>passthru", "path-separator=", "pcre2", "no-pcre2",
      "pcre2-version", "pre=", "no-pre", "pre-glob=", "pretty", "quiet", "regex-size-limit=", "search-zip", "no-search-zip", "smart-case",
      "sort=", "sortr=", "sort-files", "no-sort-files", "stats", "no-stats", "text", "no-text", "threads=", "trim", "no-trim", "type=",
      "type-list", "type-add=", "type-clear=", "type-not=", "unrestricted", "version", "vimgrep", "with-filename", "word-regexp",
      "hostname-bin=", "hyperlink-format=", "generate=", "files-with-matches", "no-unicode", "mmap",
    ],
    values: { f: "read", file: "read", "ignore-file": "read", pre: "exec", "hostname-bin": "exec" },
  },
  sed: {
    short: "nse:f:i::l:Eruz",
    long: ["quiet", "silent", "debug", "expression=", "file=", "follow-symlinks", "in-place=?", "line-length=", "null-data", "zero-terminated>null-data", "posix", "regexp-extended", "separate", "sandbox", "unbuffered", "binary", ...STD],
    values: { e: "sed", expression: "sed", f: "program", file: "program" },
    effects: { i: "unsafe", "in-place": "unsafe" },
  },
  awk: AWK, gawk: AWK, mawk: AWK, nawk: AWK,
  file: {
    short: "vm:zZbce:f:F:iklLhnN0pP:rsSCd",
    long: [
      "magic-file=", "uncompress", "uncompress-noreport", "brief", "checking-printout", "exclude=", "exclude-quiet=", "files-from=",
      "separator=", "mime", "mime-encoding", "apple", "extension", "mime-type", "keep-going", "list", "dereference", "no-dereference",
      "no-buffer", "no-pad", "print0", "preserve-date", "parameter=", "raw", "special-files", "no-sandbox", "compile", "debug", ...STD,
    ],
    values: { m: "read", "magic-file": "read", f: "list", "files-from": "list" },
    effects: { C: "unsafe", compile: "unsafe" },
  },
  strings: {
    short: "adfhHn:t:wot:T:e:s:U:vV",
    numeric: true,
    long: ["all", "data", "print-file-name", "bytes=", "radix=", "include-all-whitespace", "target=", "encoding=", "unicode=", "output-separator=", ...STD],
    responseFiles: true,
  },
  diff: {
    short: "qscC:uU:enyW:pF:tTlrNx:X:S:iEZbwBI:aD:dv",
    numeric: true,
    long: [
      "normal", "brief", "report-identical-files", "context=?", "unified=?", "ed", "rcs", "side-by-side", "width=", "left-column",
      "suppress-common-lines", "show-c-function", "show-function-line=", "label=", "expand-tabs", "initial-tab", "tabsize=",
      "suppress-blank-empty", "paginate", "recursive", "no-dereference", "new-file", "unidirectional-new-file", "ignore-file-name-case",
      "no-ignore-file-name-case", "exclude=", "exclude-from=", "starting-file=", "from-file=", "to-file=", "ignore-case",
      "ignore-tab-expansion", "ignore-trailing-space", "ignore-space-change", "ignore-all-space", "ignore-blank-lines",
      "ignore-matching-lines=", "text", "strip-trailing-cr", "ifdef=", "old-group-format=", "new-group-format=", "changed-group-format=",
      "unchanged-group-format=", "line-format=", "old-line-format=", "new-line-format=", "unchanged-line-format=", "minimal",
      "horizon-lines=", "speed-large-files", "color=?", "palette=", "no-ignore-file-name-case", "speed-large-files", ...STD,
    ],
    values: { X: "read", "exclude-from": "read", "from-file": "read", "to-file": "read" },
  },
  sdiff: {
    short: "o:iEZbWBI:aw:lstdHv",
    long: ["output=", "ignore-case", "ignore-tab-expansion", "ignore-trailing-space", "ignore-space-change", "ignore-all-space", "ignore-blank-lines", "ignore-matching-lines=", "strip-trailing-cr", "text", "width=", "left-column", "suppress-common-lines", "expand-tabs", "tabsize=", "minimal", "speed-large-files", "diff-program=", ...STD],
    values: { o: "write", output: "write", "diff-program": "exec" },
  },
  diff3: { short: "AeE3xXimaTL:v", long: ["show-all", "ed", "show-overlap", "easy-only", "overlap-only", "merge", "text", "strip-trailing-cr", "initial-tab", "diff-program=", "label=", ...STD], values: { "diff-program": "exec" } },
  cmp: { short: "bi:ln:sv", long: ["print-bytes", "ignore-initial=", "verbose", "bytes=", "quiet", "silent", ...STD] },
  patch: {
    short: "p:F:lcenuNRi:o:r:D:EZTbV:B:Y:z:g:tfsd:vx:",
    long: [
      "strip=", "fuzz=", "ignore-whitespace", "context", "ed", "normal", "unified", "forward", "reverse", "input=", "output=",
      "reject-file=", "ifdef=", "merge=?", "remove-empty-files", "set-utc", "set-time", "quoting-style=", "backup", "backup-if-mismatch",
      "no-backup-if-mismatch", "version-control=", "prefix=", "basename-prefix=", "suffix=", "get=", "batch", "force", "quiet", "silent",
      "verbose", "dry-run", "posix", "directory=", "reject-format=", "binary", "read-only=", "debug=", "follow-symlinks", ...STD,
    ],
    effects: { g: "unsafe", get: "unsafe" },
  },
  iconv: { short: "f:t:lco:s?V", long: ["from-code=", "to-code=", "list", "output=", "silent", "verbose", "help", "usage", "version"], values: { o: "write", output: "write" } },
  hexdump: {
    short: "bcCdoxL::e:f:n:s:vhV",
    long: ["one-byte-octal", "one-byte-char", "canonical", "two-bytes-decimal", "two-bytes-octal", "two-bytes-hex", "color=?", "format=", "format-file=", "length=", "skip=", "no-squeezing", ...STD],
    values: { f: "read", "format-file": "read" },
  },
  gzip: GZIP, gunzip: GZIP, zcat: GZIP,
  bzip2: BZIP2, bunzip2: BZIP2, bzcat: BZIP2,
  xz: XZ, unxz: XZ, xzcat: XZ, lzma: XZ, unlzma: XZ,
  zstd: ZSTD, unzstd: ZSTD, zstdcat: ZSTD,
};
