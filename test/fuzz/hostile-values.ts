import fc from 'fast-check';

/**
 * A value written as its own source text, which JavaScript cannot hold or print as it stands: a
 * number like `1e999` or a twenty-digit id, or nesting deeper than a recursive printer survives.
 * {@link toJsonText} splices `json` into a body; a GraphQL literal uses `graphql`.
 */
export class Raw {
  constructor(
    readonly json: string,
    readonly graphql: string = json,
  ) {}
}

/** A value taken from the live platform when the case is sent (a ticket id that exists, say). */
export class Known {
  constructor(
    readonly pool: PoolName,
    readonly pick: number,
    readonly as: 'string' | 'number' = 'string',
  ) {}
}

/** The records the fuzzer can address, refreshed from the database while it runs. */
export const POOL_NAMES = [
  'ticketId',
  'externalId',
  'ticketToken',
  'cvId',
  'templateId',
  'shareToken',
  'planKey',
] as const;
export type PoolName = (typeof POOL_NAMES)[number];

const RAW_NUMBERS = [
  '1e999',
  '-1e999',
  '1e-999',
  '-0',
  '2147483648',
  '-2147483649',
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '99999999999999999999999999999',
  '0.5',
  '1.0',
  '1E3',
];

/** Characters no text column takes, or that only look like text: NUL, lone surrogates, controls. */
const NASTY_UNITS = [
  '\u0000',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\ufffe',
  '\uffff',
  '\u0001',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u2028',
  '\u202e',
  '\u200b',
  '\ufeff',
  '\u0301',
];

const FIXED_STRINGS = [
  '',
  ' ',
  '   \t\n ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\udc00\ud800',
  'مرحبا بالعالم',
  '👩‍💻🇮🇶',
  '%00',
  '%ED%A0%80',
  '../../etc/passwd',
  "'; drop table tickets.tickets; --",
  '<script>alert(1)</script>',
  '{{7*7}}',
  '__proto__',
  'constructor',
  'null',
  'true',
  '1e999',
  'NaN',
  '-1',
  '0',
  '00000000-0000-0000-0000-000000000000',
  'ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ',
];

/** Text with a bias to the units that break parsers, databases and encoders. */
export const nastyString = (maxLength = 40): fc.Arbitrary<string> =>
  fc.string({
    maxLength,
    unit: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...NASTY_UNITS) },
      { weight: 5, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
      { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
    ),
  });

/**
 * Strings at and past a limit, and far past any: 0, the limit, the limit + 1, and up to `longest`
 * characters (300k in a body; far less in a URL, whose whole request line Node caps at 16 KB).
 */
export function lengthBoundaries(maxLength: number | undefined, longest = 300_000): fc.Arbitrary<string> {
  const lengths = [0, 1, Math.min(10_000, longest), longest];
  if (maxLength !== undefined) lengths.push(maxLength, maxLength + 1);
  return fc.tuple(fc.constantFrom(...lengths), fc.constantFrom('x', 'ع', '😀', '\u0000')).map(([n, unit]) =>
    // An astral character counts two UTF-16 units; cut to the length either way.
    unit.repeat(n).slice(0, unit.length === 2 ? n * 2 : n),
  );
}

export const hostileString = (maxLength?: number, longest?: number): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...FIXED_STRINGS) },
    { weight: 4, arbitrary: nastyString() },
    { weight: 2, arbitrary: lengthBoundaries(maxLength, longest) },
  );

/** Numbers at the edges of int4, int8, doubles and JSON. */
export const hostileNumber = (minimum?: number, maximum?: number): fc.Arbitrary<number | Raw> => {
  const edges = [0, -1, 1, 2147483647, -2147483648, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e20];
  if (minimum !== undefined) edges.push(minimum - 1, minimum);
  if (maximum !== undefined) edges.push(maximum, maximum + 1);
  return fc.oneof(
    fc.constantFrom(...edges),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(...RAW_NUMBERS).map((text) => new Raw(text)),
  );
};

/** Arrays or objects nested `depth` deep: past what any field holds, and what a recursive reader survives. */
function nested(depth: number, kind: 'array' | 'object'): Raw {
  return kind === 'array'
    ? new Raw(`${'['.repeat(depth)}"deep"${']'.repeat(depth)}`)
    : new Raw(
        `${'{"a": '.repeat(depth)}"deep"${'}'.repeat(depth)}`,
        `${'{a: '.repeat(depth)}"deep"${'}'.repeat(depth)}`,
      );
}

const DEEP_VALUES = [nested(33, 'object'), nested(30_000, 'array'), nested(30_000, 'object')];

/** A value of some other JSON type than the one expected: what a careless client sends. */
export const wrongType = (depth = 1): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.constant(null),
    fc.constantFrom(...DEEP_VALUES),
    fc.boolean(),
    hostileNumber(),
    hostileString(),
    fc.constant([]),
    fc.constant({}),
    depth > 0
      ? fc.oneof(
          fc.array(wrongType(depth - 1), { maxLength: 3 }),
          fc.dictionary(hostileKey(), wrongType(depth - 1), { maxKeys: 3 }),
        )
      : fc.constant([[{}]]),
  );

/** Object keys a schema does not know, some of them hostile in themselves. */
export const hostileKey = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom('extra', 'id', '__proto__', 'constructor', 'a\u0000b', '\ud800', '', 'x'.repeat(300)),
    fc.string({ maxLength: 12 }),
  );

/**
 * JSON text of a value, with each {@link Raw} written as its own text. Known values must be
 * resolved before.
 */
export function toJsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Raw) {
      raws.push(v.json);
      return `\u0000raw${raws.length - 1}\u0000`;
    }
    return v;
  });
  // A marker is a whole string of its own shape (NUL, raw, its index, NUL), which no arbitrary here
  // produces, so only markers are replaced.
  return (text ?? 'null').replace(
    /"\\u0000raw(\d+)\\u0000"/g,
    (_m, index: string) => raws[Number(index)] ?? 'null',
  );
}

/** Replaces every {@link Known} in a value with the current value of its pool. */
export function resolveKnown(value: unknown, pools: Record<PoolName, readonly string[]>): unknown {
  if (value instanceof Known) {
    const pool = pools[value.pool];
    const picked = pool.length === 0 ? '0' : pool[value.pick % pool.length]!;
    return value.as === 'number' ? Number(picked) : picked;
  }
  if (value instanceof Raw) return value;
  if (Array.isArray(value)) return value.map((v) => resolveKnown(v, pools));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveKnown(v, pools)]));
  }
  return value;
}

/**
 * A path segment or query value as bytes on the wire. A lone surrogate cannot be UTF-8, so it is
 * written as the three bytes a careless encoder (CESU-8) would produce, which a server must refuse.
 */
export function percentEncode(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    const isHigh = unit >= 0xd800 && unit <= 0xdbff;
    const next = text.charCodeAt(i + 1);
    if (isHigh && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(text.slice(i, i + 2));
      i += 1;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      out +=
        `%${(0xe0 | (unit >> 12)).toString(16)}%${(0x80 | ((unit >> 6) & 0x3f)).toString(16)}%${(0x80 | (unit & 0x3f)).toString(16)}`.toUpperCase();
    } else {
      out += encodeURIComponent(text[i]!);
    }
  }
  return out;
}
