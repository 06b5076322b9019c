// Moved to lang/sed.ts (the sed tokenizer); kept so existing imports keep working.
export { sedScriptObjection, type SedFiles } from "./lang/sed.js";
