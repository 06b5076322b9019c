export { persistOversizedResult, resultTextLength, previewOf, formatSize, resultFileName, PREVIEW_BYTES } from "./persist.js";
