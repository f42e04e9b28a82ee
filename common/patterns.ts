/**
 * The text patterns more than one part of the platform agrees on. They live in `common/` because
 * common code checks ids too and may import neither contracts nor domains; contracts, doors and
 * domains all take them from here.
 */

/** A month as the documents write it: `2021-03` (year and month captured). */
export const MONTH = /^([0-9]{4})-(0[1-9]|1[0-2])$/;

/** A calendar date: `2021-03-09` (year, month and day captured). */
export const DATE = /^([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/;

/**
 * A record's id as text: a positive whole number without sign, leading zeros or exponent, of at
 * most 16 digits (what a JavaScript number keeps exactly, checked against the maximum by callers).
 */
export const RECORD_ID = /^[1-9][0-9]{0,15}$/;

/** An unguessable token (a ticket's, a CV share link's): 32 base64url characters. */
export const TOKEN = /^[A-Za-z0-9_-]{32}$/;
