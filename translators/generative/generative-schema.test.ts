import { describe, expect, it } from 'vitest';
import { decodeGenerativeDeclarationSchema, encodeGenerativeDeclaration, fitsGenerativeSubset, openApiToJsonSchema } from './generative-schema.ts';

describe('generative schemas', () => {
  it('accepts the OpenAPI subset and rejects what Gemini refuses in parameters', () => {
    expect(fitsGenerativeSubset({ type: 'object', properties: { a: { type: 'array', items: { type: 'string', enum: ['x'] } } }, required: ['a'] })).toBe(true);
    for (const bad of [
      { type: 'object', additionalProperties: false },
      { type: ['string', 'null'] },
      { $ref: '#/$defs/a' },
      { enum: [1, 2] },
      { type: 'object', properties: { a: { const: 'x' } } },
      { oneOf: [{ type: 'string' }] },
    ]) expect(fitsGenerativeSubset(bad)).toBe(false);
  });

  it('sends fitting schemas as parameters, others as parametersJsonSchema, and no schema for no arguments', () => {
    expect(encodeGenerativeDeclaration('f', undefined, { type: 'object', properties: { a: { type: 'string' } } })).toEqual({ name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } } } });
    expect(encodeGenerativeDeclaration('f', 'd', { type: 'object', properties: { a: { const: 1 } } })).toEqual({ name: 'f', description: 'd', parametersJsonSchema: { type: 'object', properties: { a: { const: 1 } } } });
    expect(encodeGenerativeDeclaration('f', undefined, { type: 'object', properties: {}, additionalProperties: false })).toEqual({ name: 'f' });
  });

  it('decodes OpenAPI schemas to JSON Schema', () => {
    expect(openApiToJsonSchema({ type: 'OBJECT', propertyOrdering: ['a'], properties: { a: { type: 'ARRAY', items: { type: 'NUMBER' }, nullable: true } } }))
      .toEqual({ type: 'object', properties: { a: { type: ['array', 'null'], items: { type: 'number' } } } });
    expect(decodeGenerativeDeclarationSchema({ name: 'f', parametersJsonSchema: { type: 'object', properties: { a: { const: 1 } } } })).toEqual({ type: 'object', properties: { a: { const: 1 } } });
    expect(decodeGenerativeDeclarationSchema({ name: 'f' })).toEqual({ type: 'object', properties: {} });
  });
});
