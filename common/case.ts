/**
 * The CV document speaks snake_case (cv-api.md, storage, REST) and the graph camelCase; these turn
 * the keys of a whole payload from one to the other. Values, such as a custom section's text,
 * are never touched.
 */
export function camelCase(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function rekey(value: unknown, convert: (name: string) => string): unknown {
  if (Array.isArray(value)) return value.map((inner) => rekey(inner, convert));
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, inner]) => inner !== undefined)
        .map(([key, inner]) => [convert(key), rekey(inner, convert)]),
    );
  }
  return value;
}

export function camelKeys<T = unknown>(value: unknown): T {
  return rekey(value, camelCase) as T;
}

export function snakeKeys<T = unknown>(value: unknown): T {
  return rekey(value, snakeCase) as T;
}
