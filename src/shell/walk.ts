// Walks a bash syntax tree and collects every simple command that would run, in source order,
// with its words, environment assignments and redirections. Commands inside substitutions,
// here-documents and wrapped by `bash -c`, `eval`, `xargs`, `find -exec`, `sudo`… are
// collected too (marked nested). Anything the walker does not model is recorded as a reason.
import { descendantForIndex, parseBash, parseBashScript, type Node } from "./parser.js";
import { fallbackSegments } from "./fallback.js";
import { heredocIsQuoted, isBlankGap, joinsLines, removeLineContinuations } from "./source-text.js";
import { literalWord, pipedFromText, pipedInto, type Redirect, type SimpleCommand, type WalkState } from "./command.js";
import { evaluateWord, isTranslatedDollar, type Word } from "./words.js";
import { commandBaseName, unwrapCommand } from "./wrappers.js";
import { wrapperTable } from "./commands/index.js";
import { getopt } from "./getopt.js";
import { unnamedFiles } from "./options.js";
import { assignedValue, changesShellBehaviour, checkNameOperand, recordAssignment, shellStateOf } from "./shell-state.js";

/** Shells that read their script from standard input when given no `-c` and no file. */
const STDIN_SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh", "mksh", "ash"]);

/** How deep `bash -c "bash -c '…'"` / `eval` strings are followed. */
const MAX_SCRIPT_DEPTH = 8;
/** Syntax trees deeper than this are split, not walked (the walk is recursive). */
const MAX_TREE_DEPTH = 1000;
/** Total shell text parsed for one command, nested strings included (bounds the work). */
const PARSE_BUDGET_CHARS = 1_000_000;

/** Parses `source` and adds what it runs to `state`. */
/** Unary test operators that look at a file (bash(1) CONDITIONAL EXPRESSIONS). */
export const FILE_TESTS = /^-[abcdefghkprsuwxGLNOS]$/;

export function walkScript(source: string, state: WalkState, nested: boolean, depth: number): void {
  if (depth > MAX_SCRIPT_DEPTH) {
    state.incomplete.add(`shell strings nested more than ${MAX_SCRIPT_DEPTH} levels deep are not parsed`);
    // Split instead of parsing (cheap), still following `bash -c` strings a while longer.
    const walker = new Walker(state, depth, source);
    const follow = depth <= MAX_SCRIPT_DEPTH * 4;
    for (const segment of fallbackSegments(source)) walker.emitFallback(segment, follow);
    return;
  }
  state.parsedChars += source.length;
  if (state.parsedChars > PARSE_BUDGET_CHARS) {
    state.incomplete.add("the command expands to more shell text than the analysis parses");
    const walker = new Walker(state, depth, source);
    for (const segment of fallbackSegments(source)) walker.emitFallback(segment, false);
    return;
  }
  const text = removeLineContinuations(source);
  const errorsBefore = state.syntaxErrors;
  const walker = new Walker(state, depth, text);
  const parsed = parseBashScript(text);
  if (parsed.depth > MAX_TREE_DEPTH) {
    // The walker recurses once per level: split such text instead of walking it.
    state.incomplete.add(`the command nests more than ${MAX_TREE_DEPTH} levels deep`);
    for (const segment of fallbackSegments(text)) walker.emitFallback(segment, false);
    return;
  }
  walker.walk(parsed.root, nested);
  if (state.syntaxErrors > errorsBefore) {
    // What the grammar could not read may still run: give deny rules every piece of it.
    const known = new Set(state.commands.map((c) => c.words.map((w) => w.text).join(" ")));
    for (const segment of fallbackSegments(text)) {
      if (known.has(segment.join(" "))) continue;
      known.add(segment.join(" "));
      walker.emitFallback(segment);
    }
  }
}

const GAP_CHECKED = new Set([
  "program", "list", "pipeline", "command", "redirected_statement", "compound_statement",
  "subshell", "do_group", "if_statement", "elif_clause", "else_clause", "while_statement",
  "for_statement", "case_statement", "case_item", "function_definition", "negated_command",
  "file_redirect", "declaration_command", "unset_command", "variable_assignments",
]);

/** Node types the walker understands; anything else makes the analysis incomplete. */
const KNOWN = new Set([
  ...GAP_CHECKED, "comment", "word", "number", "string", "string_content", "raw_string",
  "ansi_c_string", "concatenation", "simple_expansion", "expansion", "variable_name",
  "special_variable_name", "command_name", "command_substitution", "process_substitution",
  "arithmetic_expansion", "brace_expression", "heredoc_redirect", "heredoc_start", "heredoc_body",
  "heredoc_content", "heredoc_end", "herestring_redirect", "file_descriptor", "test_command",
  "test_operator", "binary_expression", "unary_expression", "parenthesized_expression",
  "postfix_expression", "ternary_expression", "c_style_for_statement", "variable_assignment",
  "array", "subscript", "regex", "extglob_pattern", "translated_string",
]);

/** Lower-case variables zsh ties to its search paths and prompts (`path=(…)` changes PATH). */
const ZSH_SPECIAL = new Set(["path", "cdpath", "fpath", "module_path", "manpath", "mailpath", "prompt", "psvar", "histchars", "zdotdir"]);

const ARITHMETIC_COMPARISONS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);

class Walker {
  constructor(
    private readonly state: WalkState,
    private readonly depth: number,
    private readonly source: string,
  ) {}

  walk(node: Node, nested: boolean): void {
    if (node.isMissing) {
      this.state.syntaxErrors++;
      this.state.incomplete.add(`the command is incomplete (missing "${node.type}")`);
    }
    if (node.isError) {
      this.state.syntaxErrors++;
      this.state.incomplete.add("the command has a syntax error");
    }
    else if (node.isNamed && !KNOWN.has(node.type)) {
      this.state.incomplete.add(`unsupported shell syntax: ${node.type}`);
    }
    if (GAP_CHECKED.has(node.type)) this.checkGaps(node);
    if (joinsLines(node, this.source)) {
      this.state.incomplete.add(`the grammar read two lines as one command (${JSON.stringify(node.text.slice(0, 60))}); bash runs them apart`);
    }
    // An unquoted word never holds a newline (continuations are removed first): the grammar read
    // `cd sub⏎\git status` as one command, bash runs two.
    if (node.type === "word" && node.textHasChar("\n")) {
      this.state.incomplete.add(`a newline inside a word: the grammar may have joined two commands (${JSON.stringify(node.text.slice(0, 40))})`);
    }

    switch (node.type) {
      case "command":
        this.shellStdin(this.command(node, nested, []));
        return;
      case "redirected_statement":
        this.redirectedStatement(node, nested);
        return;
      case "command_substitution":
        if (node.child(0)?.type === "`" && node.text.includes("\\")) {
          this.backticks(node);
          return;
        }
        this.children(node, true);
        return;
      case "process_substitution":
        this.children(node, true);
        return;
      case "file_redirect":
      case "herestring_redirect":
      case "heredoc_redirect":
        // A redirection outside a command: `$(< file)` reads the file.
        this.emit({ words: [], env: [], redirects: [this.redirect(node, nested)], nested });
        return;
      case "function_definition":
        this.state.notReadOnly.add("defines a shell function");
        this.children(node, nested);
        return;
      case "declaration_command":
      case "unset_command":
        this.declaration(node, nested);
        return;
      case "variable_assignment":
        this.assignment(node, nested);
        return;
      case "arithmetic_expansion":
      case "c_style_for_statement":
        this.arithmetic(node);
        this.children(node, nested);
        return;
      case "for_statement":
        this.forStatement(node);
        this.children(node, nested);
        return;
      case "compound_statement":
        if (node.child(0)?.type === "((") this.arithmetic(node);
        this.children(node, nested);
        return;
      case "test_command":
        this.testCommand(node);
        this.children(node, nested);
        return;
      case "expansion":
        if (evaluateWord(node).unsafeExpansion) {
          this.state.notReadOnly.add(`parameter expansion with side effects or indirection: ${node.text}`);
        }
        this.expansionArithmetic(node.text);
        this.children(node, nested);
        return;
      case "heredoc_body":
        // Reached only through redirect(), which decides whether the body is expanded.
        return;
      default:
        this.children(node, nested);
    }
  }

  /**
   * Inside backquotes a backslash before `$`, backquote or backslash (and `"` within double
   * quotes) is removed before the text is parsed: `\`` nests a substitution. The grammar does
   * not model that, so the unescaped text is parsed as a script of its own.
   */
  private backticks(node: Node): void {
    const inQuotes = node.parent?.type === "string";
    const body = node.text.slice(1, -1).replace(/\\([$`\\"])/g, (m: string, c: string) => (c === '"' && !inQuotes ? m : c));
    walkScript(body, this.state, true, this.depth + 1);
  }

  private children(node: Node, nested: boolean): void {
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i);
      if (child) this.walk(child, nested);
    }
  }

  private checkGaps(node: Node): void {
    const source = this.source;
    let prevEnd = -1;
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i);
      if (!child) continue;
      if (prevEnd >= 0 && child.startIndex > prevEnd && !isBlankGap(source, prevEnd, child.startIndex)) {
        const gap = source.slice(prevEnd, child.startIndex);
        this.state.incomplete.add(`text the parser skipped: ${JSON.stringify(gap)}`);
      }
      prevEnd = Math.max(prevEnd, child.endIndex);
    }
  }

  /** A simple command; `inherited` are redirections of an enclosing redirected statement. */
  private command(node: Node, nested: boolean, inherited: Redirect[]): SimpleCommand {
    const cmd: SimpleCommand = { words: [], env: [], redirects: [...inherited], nested };
    if (pipedInto(node)) {
      cmd.pipedInput = true;
      const from = pipedFromText(node);
      if (from !== undefined) cmd.pipedFrom = from;
    }
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i);
      if (!child) continue;
      if (child.isError || child.isMissing) {
        this.walk(child, nested);
        continue;
      }
      if (!child.isNamed) {
        // `$"…"` is `$` + string: the string is the word. A lone `$` is a literal word.
        if (child.type === "$" && !isTranslatedDollar(node, i)) cmd.words.push(literalWord("$"));
        continue;
      }
      switch (child.type) {
        case "variable_assignment": {
          const name = child.childForFieldName("name")?.text ?? "";
          const valueNode = child.childForFieldName("value");
          const value = valueNode ? evaluateWord(valueNode) : emptyWord();
          cmd.env.push({ name, value });
          this.subscriptOf(child);
          if (valueNode) this.walk(valueNode, nested);
          if (child.child(1)?.type === "+=") this.state.notReadOnly.add(`appends to ${name}`);
          break;
        }
        case "file_redirect":
        case "herestring_redirect":
        case "heredoc_redirect":
          cmd.redirects.push(this.redirect(child, nested));
          break;
        case "comment":
          break;
        default: {
          const word = evaluateWord(child);
          if (word.ifs) cmd.words.push(...splitOnIfs(word));
          else cmd.words.push(word);
          this.walk(child, nested);
        }
      }
    }
    this.emit(cmd);
    return cmd;
  }

  private redirectedStatement(node: Node, nested: boolean): void {
    const redirects: Redirect[] = [];
    const body = node.childForFieldName("body");
    // The body first, so that commands come out in source order (a here-document's trailing
    // pipeline is a child of its redirect); redirections are attached once all are read.
    let receivers: SimpleCommand[] = [];
    if (body?.type === "command") {
      receivers = [this.command(body, nested, [])];
    } else if (body) {
      const before = this.state.commands.length;
      this.walk(body, nested);
      receivers = this.state.commands.slice(before).filter((c) => c.nested === nested);
    }
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i);
      if (!child || (body && child.id === body.id)) continue;
      if (child.type === "file_redirect" || child.type === "herestring_redirect" || child.type === "heredoc_redirect") {
        redirects.push(this.redirect(child, nested));
      } else {
        this.walk(child, nested);
      }
    }
    // A redirection alone (`> file`) still opens, and truncates, the file.
    if (receivers.length === 0) this.emit({ words: [], env: [], redirects, nested });
    for (const c of receivers) {
      c.redirects.push(...redirects);
      this.shellStdin(c);
    }
  }

  private redirect(node: Node, nested: boolean): Redirect {
    let op = "";
    let fd: string | undefined;
    let target: Word | undefined;
    let content: string | undefined;
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i);
      if (!child) continue;
      const field = node.fieldNameForChild(i);
      if (!child.isNamed && op === "") op = child.type;
      else if (child.type === "file_descriptor") fd = child.text;
      else if (field === "destination" && node.type === "file_redirect") {
        target = evaluateWord(child);
        this.walk(child, nested);
      } else if (child.type === "heredoc_start" || child.type === "heredoc_end") {
        continue;
      } else if (child.type === "heredoc_body") {
        this.heredocBody(node, child, op);
        content = op === "<<-" ? child.text.replace(/^\t+/gm, "") : child.text;
      } else if (node.type === "herestring_redirect" && child.isNamed) {
        const word = evaluateWord(child);
        content = word.isStatic ? word.text + "\n" : undefined;
        this.walk(child, nested);
      } else {
        this.walk(child, nested);
      }
    }
    const redirect: Redirect = { op };
    if (fd !== undefined) redirect.fd = fd;
    if (target) redirect.target = target;
    if (content !== undefined) redirect.content = content;
    return redirect;
  }

  /**
   * An unquoted here-document body is expanded like a double-quoted string: its substitutions
   * run. A quoted delimiter makes it literal. The grammar does not parse substitutions in
   * tab-indented `<<-` bodies, so those (and any unquoted body it left unparsed) are re-read
   * from a plain `<<` here-document with the tabs stripped, as bash strips them.
   */
  private heredocBody(redirect: Node, body: Node, op: string): void {
    if (heredocIsQuoted(redirect)) return;
    const text = op === "<<-" ? body.text.replace(/^\t+/gm, "") : body.text;
    if (!/[$`]/.test(text)) return;
    // The grammar never parses backquotes in a here-document body: bash runs them.
    if (text.includes("`")) this.backquotesIn(text);
    if (op !== "<<-" && (body.namedChildCount > 0 || !text.includes("$"))) {
      this.children(body, true);
      return;
    }
    let delimiter = "ARMATURE_EOF";
    while (text.includes(delimiter)) delimiter += "_";
    const source = `: <<${delimiter}\n${text}${text.endsWith("\n") ? "" : "\n"}${delimiter}\n`;
    const reparsed = descendantForIndex(parseBash(source), source.indexOf("\n") + 1);
    let bodyNode: Node | undefined = reparsed;
    while (bodyNode && bodyNode.type !== "heredoc_body") bodyNode = bodyNode.parent;
    if (!bodyNode || (bodyNode.namedChildCount === 0 && /\$[({]/.test(text))) {
      this.state.incomplete.add("a here-document body could not be analysed");
      return;
    }
    new Walker(this.state, this.depth + 1, source).children(bodyNode, true);
  }

  /** Finds `…` spans in expanded text (backslash quotes the next character) and analyses them. */
  private backquotesIn(text: string): void {
    let open = -1;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === "\\") {
        i++;
        continue;
      }
      if (c !== "`") continue;
      if (open === -1) {
        open = i;
        continue;
      }
      const inner = text.slice(open + 1, i).replace(/\\([$`\\])/g, "$1");
      walkScript(inner, this.state, true, this.depth + 1);
      open = -1;
    }
    if (open !== -1) this.state.incomplete.add("unterminated backquote in a here-document");
  }

  private declaration(node: Node, nested: boolean): void {
    const words: Word[] = [];
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i);
      if (!child) continue;
      if (!child.isNamed) words.push(literalWord(child.type));
      else if (child.type === "variable_name") words.push(literalWord(child.text));
      else if (child.type === "variable_assignment") {
        const valueNode = child.childForFieldName("value");
        const name = child.childForFieldName("name")?.text ?? "";
        const value = valueNode ? evaluateWord(valueNode) : emptyWord();
        words.push({ ...value, text: `${name}=${value.text}`, raw: child.text });
        this.subscriptOf(child);
        if (valueNode) this.walk(valueNode, nested);
      } else {
        words.push(evaluateWord(child));
        this.walk(child, nested);
      }
    }
    this.emit({ words, env: [], redirects: [], nested, declaration: true });
  }

  /** A bare `name=value`: sets a shell variable for the rest of the command. */
  private assignment(node: Node, nested: boolean): void {
    const nameNode = node.childForFieldName("name");
    const name = nameNode?.type === "subscript" ? (nameNode.child(0)?.text ?? "") : (nameNode?.text ?? "");
    if (!/^[a-z_][a-z0-9_]*$/.test(name) || ZSH_SPECIAL.has(name)) {
      this.state.notReadOnly.add(`assigns the shell variable ${name || node.text}`);
    }
    const shell = shellStateOf(this.state);
    if (changesShellBehaviour(name)) shell.reasons.add(`assigns ${name}, which changes how the shell runs later commands`);
    const valueNode = node.childForFieldName("value");
    const inArithmetic = node.parent?.type === "c_style_for_statement";
    const value = valueNode && valueNode.type !== "array" ? evaluateWord(valueNode) : undefined;
    const stored = valueNode?.type === "array" ? { int: valueNode.namedChildren.every((c) => c?.type === "number") } : assignedValue(value, inArithmetic || valueNode?.type === "arithmetic_expansion");
    recordAssignment(shell, name, stored);
    if (value && !inArithmetic) shell.bare.set(name, value);
    // `f=README.md; cat "$f"`: a literal assigned before anything has run, at the top of the
    // script (no condition or subshell can skip it), is the one value `$f` has (if no other
    // assignment of f is seen): judged as a loop over that one word (shell-state.ts). Not when
    // run in the background (`f=x & cat "$f"`: a subshell sets it).
    const leading = (node.parent?.type === "program" || (node.parent?.type === "list" && node.parent.parent?.type === "program")) && node.parent.children[node.parent.children.indexOf(node) + 1]?.type !== "&";
    if (value?.isStatic && !nested && leading && this.state.commands.length === 0 && /^[A-Za-z0-9._/+=:@%,][A-Za-z0-9._/+=:@%,-]*$/.test(value.text) && !shell.loops.has(name)) shell.loops.set(name, [value]);
    this.subscriptOf(node);
    if (valueNode?.type === "array") {
      // `a=([i]=x)`: keys of an indexed array are arithmetic.
      for (const c of valueNode.namedChildren) {
        const key = c && /^\[([^\]]*)\]=/.exec(c.text);
        if (key) shell.arithmetic.push(key[1] as string);
      }
    }
    this.children(node, nested);
  }

  /** `a[i]=v`: an indexed array's subscript is arithmetic. */
  private subscriptOf(assignment: Node): void {
    const nameNode = assignment.childForFieldName("name");
    if (nameNode?.type !== "subscript") return;
    const index = nameNode.childForFieldName("index") ?? nameNode.namedChildren[1];
    if (index) shellStateOf(this.state).arithmetic.push(index.text);
  }

  /** Arithmetic is judged once the whole command is read (see shell-state.ts). */
  private arithmetic(node: Node): void {
    const shell = shellStateOf(this.state);
    if (node.type === "c_style_for_statement") {
      for (const c of node.namedChildren) if (c && c.type !== "do_group" && c.type !== "compound_statement") shell.arithmetic.push(c.text);
    } else {
      shell.arithmetic.push(node.text);
    }
  }

  /** `${a[i]}`, `${x:off:len}`: arithmetic; `${!x}`: the value of x names the variable expanded. */
  private expansionArithmetic(text: string): void {
    const shell = shellStateOf(this.state);
    const indirect = /^\$\{!([A-Za-z_][A-Za-z0-9_]*|[0-9]+)(?![A-Za-z0-9_*@[])/.exec(text);
    if (indirect) shell.indirect.push(indirect[1] as string);
    const subscript = /^\$\{[#!]?[A-Za-z_][A-Za-z0-9_]*\[([^\]]*)\]/.exec(text);
    if (subscript && subscript[1] !== "@" && subscript[1] !== "*") shell.arithmetic.push(subscript[1] as string);
    const offset = /^\$\{(?:[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?|[0-9]+|[@*]):(?![-=?+])([^}]*)\}$/.exec(text);
    if (offset) shell.arithmetic.push(offset[1] as string);
  }

  /** `for x in words`: x holds each word (a file name from a glob may be anything). */
  private forStatement(node: Node): void {
    // (The parser copies no field names for this node type: read it by position.)
    const variable = node.namedChildren.find((c) => c?.type === "variable_name")?.text ?? "";
    const shell = shellStateOf(this.state);
    const values: Node[] = [];
    let inWords = false;
    for (const c of node.children) {
      if (!c.isNamed) {
        if (c.type === "in") inWords = true;
        else if (inWords) break;
      } else if (inWords && c.type !== "comment") values.push(c);
    }
    if (!inWords) recordAssignment(shell, variable, { int: false });
    for (const v of values) {
      const word = evaluateWord(v);
      const range = word.brace && /^\{-?\d+\.\.-?\d+(\.\.-?\d+)?\}$/.test(word.text);
      recordAssignment(shell, variable, range ? { int: true } : assignedValue(word));
      const loop = shell.loops.get(variable);
      if (loop) loop.push(word);
      else shell.loops.set(variable, [word]);
    }
  }

  private testCommand(node: Node): void {
    // `[ … ]` (not `[[ … ]]`) splits and globs its unquoted words: `[ $x ]` with x='-f .env', or
    // `[ * ]` in a directory holding `-f` and `.env`, tests a file no word shows. What such a word
    // becomes is a read not known in advance (test only looks at metadata, but a Read deny rule
    // covers `[ -f .env ]` too), as for `test $x` (hidden-operands.ts).
    if (node.child(0)?.text === "[") {
      const operands = (n: Node): void => {
        for (const c of n.namedChildren) {
          if (!c || c.type === "test_operator") continue;
          if (/_expression$/.test(c.type)) operands(c);
          else {
            const w = evaluateWord(c);
            if (!w.isStatic && (w.split || w.glob)) this.state.testedPaths.push(unnamedFiles(`the words ${c.text} splits into, given to [`));
          }
        }
      };
      operands(node);
    }
    const visit = (n: Node): void => {
      if (n.type === "unary_expression" && /^-[vR]$/.test(n.child(0)?.text ?? "")) {
        // bash expands and evaluates the subscript of the name tested.
        const operand = n.namedChildren.find((c) => c && c.type !== "test_operator");
        if (operand) checkNameOperand(shellStateOf(this.state), evaluateWord(operand), `[[ ${n.child(0)?.text ?? "-v"}`);
      }
      // `[[ -f path ]]`, `[[ a -nt b ]]` look at files: their existence, type, size, times.
      if (n.type === "unary_expression" && FILE_TESTS.test(n.child(0)?.text ?? "")) {
        // `[ -e a -a -r b ]` parses as -e (a -a (-r b)): the operand is the expression's first word.
        let operand = n.namedChildren.find((c) => c && c.type !== "test_operator");
        while (operand && /_expression$/.test(operand.type)) operand = operand.namedChildren.find((c) => c && c.type !== "test_operator");
        if (operand) this.state.testedPaths.push(evaluateWord(operand).text);
      }
      if (n.type === "binary_expression" && /^-(nt|ot|ef)$/.test(n.childForFieldName("operator")?.text ?? "")) {
        for (const c of n.namedChildren) if (c && c.type !== "test_operator") this.state.testedPaths.push(evaluateWord(c).text);
      }
      if (n.type === "binary_expression") {
        const op = n.childForFieldName("operator");
        if (op && ARITHMETIC_COMPARISONS.has(op.text)) {
          // `[[ a -eq b ]]` evaluates both sides as arithmetic (test and [ do not).
          const shell = shellStateOf(this.state);
          for (const c of n.namedChildren) {
            if (!c || c.type === "test_operator" || c.id === op.id) continue;
            const word = evaluateWord(c);
            if (word.isStatic) shell.arithmeticValues.push(word.text);
            else shell.arithmetic.push(c.text.replace(/"/g, ""));
          }
        }
      }
      for (const c of n.namedChildren) if (c) visit(c);
    };
    visit(node);
  }

  /**
   * A shell without `-c` or a script operand runs what it reads on standard input: a
   * here-string or here-document is analysed as a script; anything else cannot be seen.
   */
  private shellStdin(cmd: SimpleCommand): void {
    const first = cmd.words[0];
    if (!first?.isStatic || !STDIN_SHELLS.has(commandBaseName(first.text))) return;
    const args = cmd.words.slice(1);
    if (args.some((w) => !w.isStatic || !w.text.startsWith("-") || /^-[a-zA-Z]*c/.test(w.text))) return;
    const input = [...cmd.redirects].reverse().find((r) => (r.fd ?? "0") === "0" && /^(<|<<|<<-|<<<)$/.test(r.op));
    if (input?.op === "<") {
      this.state.incomplete.add(`${first.text} runs the script file ${input.target?.text ?? ""}`.trimEnd());
    } else if (input?.content !== undefined) {
      cmd.runs = { commands: cmd.runs?.commands ?? [], scripts: [...(cmd.runs?.scripts ?? []), input.content] };
      walkScript(input.content, this.state, true, this.depth + 1);
    } else {
      this.state.incomplete.add(`${first.text} reads commands from its input, which the analysis cannot see`);
    }
  }

  /** A command recovered from text the grammar could not parse (see fallback.ts). */
  emitFallback(words: string[], unwrap = true): void {
    const cmd: SimpleCommand = { words: words.map(literalWord), env: [], redirects: [], nested: true };
    if (unwrap) this.emit(cmd);
    else this.state.commands.push(cmd);
  }

  private emit(cmd: SimpleCommand): void {
    this.state.commands.push(cmd);
    const unwrapped = unwrapCommand(cmd);
    for (const reason of unwrapped.incomplete) this.state.incomplete.add(reason);
    if (unwrapped.inner.length > 0 || unwrapped.scripts.length > 0) {
      cmd.runs = { commands: unwrapped.inner.map((inner) => inner.words.map((w) => w.text)), scripts: [...unwrapped.scripts] };
    }
    for (const inner of unwrapped.inner) {
      if (unwrapped.transparent) cmd.transparentInner = inner;
      if (commandBaseName(cmd.words[0]?.text ?? "") === "xargs") inner.xargsInput = xargsInput(cmd);
      this.emit(inner);
    }
    for (const script of unwrapped.scripts) walkScript(script, this.state, true, this.depth + 1);
  }
}

/**
 * The words `xargs CMD` appends to CMD, as one word not known in advance: `$(PRODUCER)` when a
 * plain `|` feeds xargs from PRODUCER and xargs splits its input as `$(…)` would (no -0, -d,
 * -a, -E), so that the permission check can judge it as the producer's output (producers.ts).
 */
function xargsInput(cmd: SimpleCommand): Word {
  const table = wrapperTable("xargs");
  const plain = table !== undefined && getopt(cmd.words, table).options.every((o) => /^(-[rnLPsxt]|--(no-run-if-empty|max-args|max-lines|max-procs|max-chars|exit|verbose))$/.test(o.name));
  const text = plain && cmd.pipedFrom !== undefined ? `$(${cmd.pipedFrom})` : "$(xargs's standard input)";
  return { text, raw: text, isStatic: false, glob: false, brace: false, ifs: false, unsafeExpansion: false, split: true };
}

function splitOnIfs(word: Word): Word[] {
  if (!word.ifs) return [word];
  return word.text
    .split("\u0001")
    .filter((part) => part !== "")
    .map((part) => ({ ...word, text: part }));
}

function emptyWord(): Word {
  return literalWord("");
}
