// Tests call the Bash analysis (analyzeCommand, the permission engine on shell facts, the Bash
// tool's sync members) directly, as the runtime does only after the grammar is loaded.
import { ensureBashGrammar } from "../src/shell/index.js";

await ensureBashGrammar();
