// Option tables of the search, text-processing, diff and compression tools, from their --help.
import type { CommandTable } from "./types.js";

const STD = ["help", "version"];
const GREP: CommandTable = {
  short: "EFGPe:f:iyuwxzsvVm:bnHhoqaId:D:rRLlcTZB:A:C:UX:",
  numeric: true,
  long: [
    "extended-regexp|E", "fixed-strings|F", "basic-regexp|G", "perl-regexp|P", "regexp=|e", "file=|f", "ignore-case|i", "no-ignore-case",
    "word-regexp|w", "line-regexp|x", "null-data|z", "no-messages|s", "invert-match|v", "max-count=|m", "byte-offset|b", "line-number|n",
    "no-line-number", "line-buffered", "with-filename|H", "no-filename|h", "label=", "only-matching|o", "quiet|q", "silent",
    "binary-files=", "text|a", "directories=|d", "devices=|D", "recursive|r", "dereference-recursive|R", "include=", "exclude=",
    "exclude-from=", "exclude-dir=", "files-without-match|L", "files-with-matches|l", "count|c", "initial-tab|T", "null|Z",
    "before-context=|B", "after-context=|A", "context=|C", "group-separator=", "no-group-separator", "color=?", "colour>color", "binary|U", ...STD,
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
  long: ["stdout|c", "to-stdout>stdout", "decompress|d", "uncompress>decompress", "force|f", "keep|k", "list|l", "license|L", "no-name|n", "name|N", "quiet|q", "silent>quiet", "recursive|r", "rsyncable", "suffix=|S", "synchronous", "test|t", "verbose|v", "fast|1", "best|9", ...STD],
};
const BZIP2: CommandTable = { short: "hdzkftcqvLVs123456789", long: ["decompress|d", "compress|z", "keep|k", "force|f", "test|t", "stdout|c", "quiet|q", "verbose|v", "license|L", "small|s", "fast", "best", "repetitive-fast", "repetitive-best", ...STD] };
const XZ: CommandTable = {
  short: "zdtlkfcS:F:C:e0123456789T:M:qvQhHV",
  long: [
    "compress|z", "decompress|d", "uncompress>decompress", "test|t", "list|l", "keep|k", "force|f", "stdout|c", "to-stdout>stdout", "single-stream", "no-sparse", "suffix=|S",
    "files=?", "files0=?", "format=|F", "check=|C", "ignore-check", "extreme|e", "fast", "best", "threads=|T", "block-size=", "block-list=",
    "flush-timeout=", "memlimit-compress=", "memlimit-decompress=", "memlimit-mt-decompress=", "memlimit=|M", "memory>memlimit", "no-adjust",
    "lzma1=?", "lzma2=?", "x86=?", "arm=?", "armthumb=?", "arm64=?", "powerpc=?", "ia64=?", "sparc=?", "delta=?", "quiet|q",
    "verbose|v", "no-warn|Q", "robot", "info-memory", "long-help|H", ...STD,
  ],
  values: { files: "list", files0: "list" },
};
const ZSTD: CommandTable = {
  // zstd's own parser: long names exact, `-o FILE` separate.
  style: "exact",
  short: "o:kdD:fhHVcvqrlS#:T:B:M:b::e::i::zC0123456789",
  long: [
    "keep|k", "rm", "decompress|d", "uncompress", "compress", "force|f", "help|H", "version|V", "stdout|c", "verbose|v", "quiet|q", "trace=", "progress",
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
      "after-context=|A", "auto-hybrid-regex", "no-auto-hybrid-regex", "before-context=|B", "binary", "no-binary", "block-buffered",
      "no-block-buffered", "byte-offset|b", "no-byte-offset", "case-sensitive|s", "color=", "colors=", "column", "no-column", "context=|C",
      "context-separator=", "no-context-separator", "count|c", "count-matches", "only-matching|o", "crlf", "no-crlf", "debug", "trace",
      "dfa-size-limit=", "max-filesize=", "encoding=|E", "no-encoding", "engine=", "regexp=|e", "file=|f", "field-context-separator=",
      "field-match-separator=", "files", "files-with-matches|l", "files-without-match", "fixed-strings|F", "no-fixed-strings", "follow|L",
      "no-follow", "glob=|g", "glob-case-insensitive", "no-glob-case-insensitive", "help|h", "heading", "no-heading", "hidden", "no-hidden",
      "iglob=", "ignore-case|i", "ignore-file=", "ignore-file-case-insensitive", "no-ignore-file-case-insensitive", "include-zero",
      "no-include-zero", "invert-match|v", "no-invert-match", "json", "no-json", "replace=|r", "max-columns=|M", "line-buffered",
      "no-line-buffered", "line-number|n", "line-regexp|x", "max-columns-preview", "no-max-columns-preview", "max-count=|m", "max-depth=",
      "mmap", "multiline|U", "no-multiline", "multiline-dotall", "no-multiline-dotall", "no-config", "no-filename|I", "no-ignore",
      "ignore", "no-ignore-dot", "ignore-dot", "no-ignore-exclude", "ignore-exclude", "no-ignore-global", "ignore-global", "no-ignore-vcs",
      "ignore-vcs", "no-ignore-files", "ignore-files", "no-ignore-messages", "ignore-messages", "no-ignore-parent", "ignore-parent",
      "no-line-number|N", "no-messages", "messages", "no-mmap", "no-pcre2-unicode", "no-require-git", "require-git", "no-unicode", "pcre2-unicode",
      "unicode", "null|0", "null-data", "one-file-system", "no-one-file-system", "passthru", "passthrough>passthru", "path-separator=", "pcre2|P", "no-pcre2",
      "pcre2-version", "pre=", "no-pre", "pre-glob=", "pretty|p", "quiet|q", "regex-size-limit=", "search-zip|z", "no-search-zip", "smart-case|S",
      "sort=", "sortr=", "sort-files", "no-sort-files", "stats", "no-stats", "text|a", "no-text", "threads=|j", "trim", "no-trim", "type=|t",
      "type-list", "type-add=", "type-clear=", "type-not=|T", "unrestricted|u", "version|V", "vimgrep", "with-filename|H", "word-regexp|w",
      "hostname-bin=", "hyperlink-format=", "generate=", "files-with-matches|l", "no-unicode", "mmap",
    ],
    values: { f: "read", file: "read", "ignore-file": "read", pre: "exec", "hostname-bin": "exec" },
  },
  sed: {
    short: "nse:f:i::l:Eruz",
    long: ["quiet|n", "silent", "debug", "expression=|e", "file=|f", "follow-symlinks", "in-place=?|i", "line-length=|l", "null-data|z", "zero-terminated>null-data", "posix", "regexp-extended|Er", "separate|s", "sandbox", "unbuffered|u", "binary", ...STD],
    values: { e: "sed", expression: "sed", f: "program", file: "program" },
    effects: { i: "unsafe", "in-place": "unsafe" },
  },
  awk: AWK, gawk: AWK, mawk: AWK, nawk: AWK,
  file: {
    short: "vm:zZbce:f:F:iklLhnN0pP:rsSCd",
    long: [
      "magic-file=|m", "uncompress|z", "uncompress-noreport|Z", "brief|b", "checking-printout|c", "exclude=|e", "exclude-quiet=", "files-from=|f",
      "separator=|F", "mime|i", "mime-encoding", "apple", "extension", "mime-type", "keep-going|k", "list|l", "dereference|L", "no-dereference|h",
      "no-buffer|n", "no-pad|N", "print0|0", "preserve-date|p", "parameter=|P", "raw|r", "special-files|s", "no-sandbox|S", "compile|C", "debug|d", ...STD,
    ],
    values: { m: "read", "magic-file": "read", f: "list", "files-from": "list" },
    effects: { C: "unsafe", compile: "unsafe" },
  },
  strings: {
    short: "adfhHn:t:wot:T:e:s:U:vV",
    numeric: true,
    long: ["all|a", "data|d", "print-file-name|f", "bytes=", "radix=|t", "include-all-whitespace|w", "target=|T", "encoding=|e", "unicode=", "output-separator=|s", ...STD],
    responseFiles: true,
  },
  diff: {
    short: "qscC:uU:enyW:pF:tTlrNx:X:S:iEZbwBI:aD:dv",
    numeric: true,
    long: [
      "normal", "brief|q", "report-identical-files|s", "context=?|cC", "unified=?|uU", "ed|e", "rcs|n", "side-by-side|y", "width=|W", "left-column",
      "suppress-common-lines", "show-c-function|p", "show-function-line=|F", "label=", "expand-tabs|t", "initial-tab|T", "tabsize=",
      "suppress-blank-empty", "paginate|l", "recursive|r", "no-dereference", "new-file|N", "unidirectional-new-file", "ignore-file-name-case",
      "no-ignore-file-name-case", "exclude=|x", "exclude-from=|X", "starting-file=|S", "from-file=", "to-file=", "ignore-case|i",
      "ignore-tab-expansion|E", "ignore-trailing-space|Z", "ignore-space-change|b", "ignore-all-space|w", "ignore-blank-lines|B",
      "ignore-matching-lines=|I", "text|a", "strip-trailing-cr", "ifdef=|D", "old-group-format=", "new-group-format=", "changed-group-format=",
      "unchanged-group-format=", "line-format=", "old-line-format=", "new-line-format=", "unchanged-line-format=", "minimal|d",
      "horizon-lines=", "speed-large-files", "color=?", "palette=", "no-ignore-file-name-case", "speed-large-files", ...STD,
    ],
    values: { X: "read", "exclude-from": "read", "from-file": "read", "to-file": "read" },
  },
  sdiff: {
    short: "o:iEZbWBI:aw:lstdHv",
    long: ["output=|o", "ignore-case|i", "ignore-tab-expansion|E", "ignore-trailing-space|Z", "ignore-space-change|b", "ignore-all-space|W", "ignore-blank-lines|B", "ignore-matching-lines=|I", "strip-trailing-cr", "text|a", "width=|w", "left-column|l", "suppress-common-lines|s", "expand-tabs|t", "tabsize=", "minimal|d", "speed-large-files|H", "diff-program=", ...STD],
    values: { o: "write", output: "write", "diff-program": "exec" },
  },
  diff3: { short: "AeE3xXimaTL:v", long: ["show-all|A", "ed|e", "show-overlap|E", "easy-only|3", "overlap-only|x", "merge|m", "text|a", "strip-trailing-cr", "initial-tab|T", "diff-program=", "label=|L", ...STD], values: { "diff-program": "exec" } },
  cmp: { short: "bi:ln:sv", long: ["print-bytes|b", "ignore-initial=|i", "verbose|l", "bytes=|n", "quiet|s", "silent", ...STD] },
  patch: {
    short: "p:F:lcenuNRi:o:r:D:EZTbV:B:Y:z:g:tfsd:vx:",
    long: [
      "strip=|p", "fuzz=|F", "ignore-whitespace|l", "context|c", "ed|e", "normal|n", "unified|u", "forward|N", "reverse|R", "input=|i", "output=|o",
      "reject-file=|r", "ifdef=|D", "merge=?", "remove-empty-files|E", "set-utc|Z", "set-time|T", "quoting-style=", "backup|b", "backup-if-mismatch",
      "no-backup-if-mismatch", "version-control=|V", "prefix=|B", "basename-prefix=|Y", "suffix=|z", "get=|g", "batch|t", "force|f", "quiet|s", "silent",
      "verbose", "dry-run", "posix", "directory=|d", "reject-format=", "binary", "read-only=", "debug=", "follow-symlinks", ...STD,
    ],
    effects: { g: "unsafe", get: "unsafe" },
  },
  iconv: { short: "f:t:lco:s?V", long: ["from-code=|f", "to-code=|t", "list|l", "output=|o", "silent|s", "verbose", "help", "usage", "version|V"], values: { o: "write", output: "write" } },
  hexdump: {
    short: "bcCdoxL::e:f:n:s:vhV",
    long: ["one-byte-octal|b", "one-byte-char|c", "canonical|C", "two-bytes-decimal|d", "two-bytes-octal|o", "two-bytes-hex|x", "color=?|L", "format=|e", "format-file=|f", "length=|n", "skip=|s", "no-squeezing|v", ...STD],
    values: { f: "read", "format-file": "read" },
  },
  gzip: GZIP, gunzip: GZIP, zcat: GZIP,
  bzip2: BZIP2, bunzip2: BZIP2, bzcat: BZIP2,
  xz: XZ, unxz: XZ, xzcat: XZ, lzma: XZ, unlzma: XZ,
  zstd: ZSTD, unzstd: ZSTD, zstdcat: ZSTD,
};
