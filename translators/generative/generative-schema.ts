// Tool and response schemas between JSON Schema (the internal model) and the generative-language style.
//
// Gemini's `parameters` takes an OpenAPI subset and rejects `$ref`, `additionalProperties`, `const`, `oneOf`,
// type arrays, non-string enums… with "Invalid JSON payload received. Unknown name …" (reference §E9).
// `parametersJsonSchema` takes full JSON Schema instead. We send `parameters` when the schema fits the subset (the
// form every Gemini model accepts) and `parametersJsonSchema` otherwise, rather than lossy cleaning.
// Incoming OpenAPI schemas may spell types in upper case (`OBJECT`, as the official SDK's enum does) and use
// `nullable`; decoding turns them into plain JSON Schema.
// @see https://ai.google.dev/api/caching#Schema

import type { GenerativeFunctionDeclaration, GenerativeJson, GenerativeObject } from './types.ts';

type Schema = Record<string, unknown>;

const SUBSET_KEYS = new Set([
  'type', 'format', 'title', 'description', 'nullable', 'enum', 'maxItems', 'minItems', 'properties', 'required',
  'minProperties', 'maxProperties', 'minLength', 'maxLength', 'pattern', 'example', 'anyOf', 'propertyOrdering',
  'default', 'items', 'minimum', 'maximum',
]);

function isObject(v: unknown): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True when every node of the schema uses only what `parameters` accepts. */
export function fitsGenerativeSubset(schema: unknown): boolean {
  if (!isObject(schema)) return false;
  for (const [key, value] of Object.entries(schema)) {
    if (!SUBSET_KEYS.has(key)) return false;
    if (key === 'type' && typeof value !== 'string') return false;
    if (key === 'enum' && !(Array.isArray(value) && value.every((v) => typeof v === 'string'))) return false;
    if (key === 'properties') {
      if (!isObject(value) || !Object.values(value).every(fitsGenerativeSubset)) return false;
    }
    if (key === 'items' && !fitsGenerativeSubset(value)) return false;
    if (key === 'anyOf' && !(Array.isArray(value) && value.every(fitsGenerativeSubset))) return false;
  }
  return true;
}

/** A function declaration for a JSON Schema of arguments; an argument-less tool gets no schema at all. */
export function encodeGenerativeDeclaration(name: string, description: string | undefined, schema: Schema): GenerativeFunctionDeclaration {
  const decl: GenerativeFunctionDeclaration = { name };
  if (description !== undefined) decl.description = description;
  const { $schema: _ignored, ...rest } = schema;
  const props = rest.properties;
  const noArgs = Object.keys(rest).every((k) => k === 'type' || k === 'properties' || k === 'required' || k === 'additionalProperties')
    && (!isObject(props) || Object.keys(props).length === 0);
  if (noArgs) return decl;
  if (fitsGenerativeSubset(rest)) decl.parameters = rest as GenerativeObject;
  else decl.parametersJsonSchema = rest as GenerativeJson;
  return decl;
}

/** OpenAPI-subset schema → JSON Schema: lower-case types, `nullable` as a `null` type, `propertyOrdering` dropped. */
export function openApiToJsonSchema(schema: unknown): Schema {
  if (!isObject(schema)) return {};
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' || key === 'propertyOrdering') continue;
    if (key === 'type' && typeof value === 'string') out.type = value.toLowerCase();
    else if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, openApiToJsonSchema(v)]));
    } else if (key === 'items') out.items = openApiToJsonSchema(value);
    else if (key === 'anyOf' && Array.isArray(value)) out.anyOf = value.map(openApiToJsonSchema);
    else out[key] = value;
  }
  if (schema.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

/** The JSON Schema of a declaration's arguments (`parametersJsonSchema` wins; none means no arguments). */
export function decodeGenerativeDeclarationSchema(decl: GenerativeFunctionDeclaration): Schema {
  if (isObject(decl.parametersJsonSchema)) {
    return decl.parametersJsonSchema;
  }
  if (decl.parameters !== undefined) return openApiToJsonSchema(decl.parameters);
  return { type: 'object', properties: {} };
}
