// Moved to lang/awk.ts (the awk tokenizer); kept so existing imports keep working.
export { awkProgramObjection, type AwkFiles } from "./lang/awk.js";
