/** cv-api.md's export rate, per account: the cv subgraph counts it, the REST adapter describes it. */
export const EXPORTS_PER_MINUTE = 10;
