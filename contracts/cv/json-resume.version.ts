/** The JSON Resume schema version the cv subgraph exports and imports, and the adapter names. */
export const JSON_RESUME_VERSION = 'v1.2.1';
