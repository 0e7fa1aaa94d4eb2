/**
 * A small JSON Schema checker for MCP tool arguments: the subset tools use (type object/string/integer/number/
 * boolean/array, properties, required, additionalProperties false, enum, minLength/maxLength, minimum/maximum,
 * items, minItems/maxItems). Returns the problems as sentences; an empty list means the arguments are valid.
 */
export interface JsonSchema {
  type?: 'object' | 'string' | 'integer' | 'number' | 'boolean' | 'array';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: readonly string[];
  additionalProperties?: boolean;
  enum?: readonly (string | number)[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
}

function typeOk(type: JsonSchema['type'], v: unknown): boolean {
  switch (type) {
    case undefined: return true;
    case 'object': return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'array': return Array.isArray(v);
    case 'integer': return Number.isInteger(v);
    case 'number': return typeof v === 'number' && Number.isFinite(v);
    default: return typeof v === type;
  }
}

export function checkArguments(schema: JsonSchema, value: unknown, path = 'arguments'): string[] {
  if (!typeOk(schema.type, value)) return [`${path} must be ${schema.type === 'integer' || schema.type === 'array' || schema.type === 'object' ? 'an' : 'a'} ${schema.type}`];
  const problems: string[] = [];
  if (schema.enum && !schema.enum.includes(value as string | number)) problems.push(`${path} must be one of ${schema.enum.join(', ')}`);
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) problems.push(`${path} must have at least ${schema.minLength} characters`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength) problems.push(`${path} must have at most ${schema.maxLength} characters`);
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) problems.push(`${path} must be at least ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) problems.push(`${path} must be at most ${schema.maximum}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) problems.push(`${path} must have at least ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) problems.push(`${path} must have at most ${schema.maxItems} items`);
    if (schema.items) value.forEach((item, i) => problems.push(...checkArguments(schema.items as JsonSchema, item, `${path}[${i}]`)));
  }
  if (schema.type === 'object') {
    const obj = value as Record<string, unknown>;
    for (const name of schema.required ?? []) if (obj[name] === undefined) problems.push(`${path}.${name} is required`);
    for (const [name, v] of Object.entries(obj)) {
      const sub = schema.properties?.[name];
      if (sub) problems.push(...checkArguments(sub, v, `${path}.${name}`));
      else if (schema.additionalProperties === false) problems.push(`${path}.${name} is not a known argument`);
    }
  }
  return problems;
}
