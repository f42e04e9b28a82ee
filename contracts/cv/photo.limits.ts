/** What cv-api.md allows as a CV photo: the cv subgraph enforces it, the REST adapter describes it. */

export const PHOTO_MAX_BYTES = 4 * 1024 * 1024;

export const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
export type PhotoType = (typeof PHOTO_TYPES)[number];

/** A stored photo's longest side in pixels: a CV prints it small, so more would only cost storage. */
export const PHOTO_MAX_SIDE = 1200;
