/** The status document every door shows (src/health/status-document.ts builds on it). */
export * from "../../health/status-document";
