export { AuditTally, describeCall, renderAuditMarkdown, renderAuditText, type AuditReport, type CallExample } from "./audit-report.js";
export { readTranscriptCalls, type OriginalOutcome, type ReadOptions, type TranscriptCall, type TranscriptFormat, type TranscriptItem, type TranscriptProblem } from "./transcript-calls.js";
