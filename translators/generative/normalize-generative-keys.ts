// The generative-language API accepts snake_case field names as well as camelCase (proto JSON mapping); clients
// such as the Python SDK in REST mode send `system_instruction`, `function_call`, `inline_data`… This rewrites
// field names to camelCase, leaving user-defined objects (function arguments and responses, schemas) untouched.
// @see https://protobuf.dev/programming-guides/json/

const OPAQUE = new Set(['args', 'response', 'parameters', 'parametersJsonSchema', 'responseSchema', 'responseJsonSchema']);

function camel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

export function normalizeGenerativeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeGenerativeKeys);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const k = camel(key);
    out[k] = OPAQUE.has(k) ? inner : normalizeGenerativeKeys(inner);
  }
  return out;
}
