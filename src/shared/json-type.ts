/** The JSON Schema type name of a parsed JSON value: "integer" for whole numbers, "array", "null", else its typeof. */
export const jsonType = (v: unknown): string =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'array'
      : typeof v === 'number'
        ? Number.isInteger(v)
          ? 'integer'
          : 'number'
        : typeof v;
