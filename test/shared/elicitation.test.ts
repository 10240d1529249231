import { describe, expect, it } from 'vitest'
import {
  type ElicitationSchema,
  elicitationDefaults,
  elicitationFields,
  elicitationProblems,
} from '../../src-shared/elicitation'

/** Every kind of field MCP's restricted schema allows, the legacy titled enum included. */
const schema: ElicitationSchema = {
  type: 'object',
  properties: {
    email: { type: 'string', format: 'email', title: 'Email' },
    site: { type: 'string', format: 'uri' },
    day: { type: 'string', format: 'date', title: 'Day' },
    code: { type: 'string', minLength: 2, maxLength: 4, title: 'Code' },
    size: { type: 'string', enum: ['s', 'm'], enumNames: ['Small', 'Medium'], title: 'Size', default: 'm' },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, maxItems: 2, title: 'Tags' },
    retries: { type: 'integer', minimum: 0, title: 'Retries', default: 1 },
    on: { type: 'boolean', default: true },
  },
  required: ['email'],
}

describe('elicitation forms', () => {
  it('makes a field per property, in order, labelled by title (else name), with choices and defaults', () => {
    const fields = elicitationFields(schema)
    expect(fields.map((field) => [field.name, field.kind, field.label, field.required])).toEqual([
      ['email', 'text', 'Email', true],
      ['site', 'text', 'site', false],
      ['day', 'text', 'Day', false],
      ['code', 'text', 'Code', false],
      ['size', 'choice', 'Size', false],
      ['tags', 'multi', 'Tags', false],
      ['retries', 'number', 'Retries', false],
      ['on', 'boolean', 'on', false],
    ])
    expect(fields[4]).toMatchObject({
      options: [
        { value: 's', label: 'Small' },
        { value: 'm', label: 'Medium' },
      ],
    })
    expect(fields[6]).toMatchObject({ integer: true, minimum: 0 })
    expect(elicitationDefaults(schema)).toEqual({ size: 'm', retries: 1, on: true })
  })

  it('accepts content that fits and says, field by field, what does not', () => {
    expect(
      elicitationProblems(schema, {
        email: 'a@b.example',
        site: 'https://example.com/x',
        day: '2026-12-01',
        code: 'abc',
        size: 's',
        tags: ['a', 'c'],
        retries: 0,
        on: false,
      }),
    ).toEqual({})
    expect(
      elicitationProblems(schema, {
        site: 'not a uri',
        day: '1 December',
        code: 'a',
        size: 'xl',
        tags: ['a', 'b', 'c'],
        retries: -1,
        on: 'yes',
      }),
    ).toEqual({
      email: 'Email is required.',
      site: 'site must be a URI.',
      day: 'Day must be a date (YYYY-MM-DD).',
      code: 'Code must be at least 2 characters.',
      size: 'Size must be one of: Small, Medium.',
      tags: 'Choose at most 2 for Tags.',
      retries: 'Retries must be at least 0.',
      on: 'on must be true or false.',
    })
    expect(
      elicitationProblems(schema, { email: 'nobody', tags: ['z'], retries: 1.5, code: 'abcde' }),
    ).toEqual({
      email: 'Email must be an email address.',
      tags: 'Tags has no choice “z”.',
      retries: 'Retries must be a whole number.',
      code: 'Code must be at most 4 characters.',
    })
  })
})
