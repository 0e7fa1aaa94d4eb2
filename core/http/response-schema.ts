/**
 * Building blocks of the /api/v1 response schemas. They document the answers in the OpenAPI document and drive
 * fastify's serializer, which writes only declared fields: an object whose fields are open-ended (event payloads,
 * kept call bodies, extras) must say `additionalProperties: true`, and a field that may be null must say so.
 */

/** An RFC 3339 UTC time (a Date is written with toISOString, as JSON.stringify does). */
export const TIME = { type: 'string', format: 'date-time' } as const;
export const TIME_OR_NULL = { type: ['string', 'null'], format: 'date-time' } as const;
export const STRING_OR_NULL = { type: ['string', 'null'] } as const;
export const NUMBER_OR_NULL = { type: ['number', 'null'] } as const;
export const INTEGER_OR_NULL = { type: ['integer', 'null'] } as const;
export const STRINGS = { type: 'array', items: { type: 'string' } } as const;
/** Any JSON value, written as it is. */
export const ANY = {} as const;
/** An object with open-ended fields, written as it is. */
export const OPEN_OBJECT = { type: 'object', additionalProperties: true } as const;

type Schema = Record<string, unknown>;

/** An object with these fields, all of them always present unless named in `optional`. */
export function object(properties: Record<string, Schema>, optional: readonly string[] = [], extra: Schema = {}): Schema {
  return { type: 'object', required: Object.keys(properties).filter((k) => !optional.includes(k)), properties, ...extra };
}

/** The same schema, or null. */
export function nullable(schema: Schema): Schema {
  const t = schema.type;
  return { ...schema, type: [...(Array.isArray(t) ? t : [t]), 'null'] };
}

/** The list envelope {"items":[…],"next_cursor":…} of core/http/list.ts. */
export function listOf(item: Schema): Schema {
  return object({ items: { type: 'array', items: item }, next_cursor: { type: ['string', 'null'], description: 'Pass as cursor for the next page; null on the last.' } });
}
