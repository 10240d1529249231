import { describe, expect, it } from 'vitest'
import { planChecklist, stepsOfPlan } from '../../src-shared/plans'

describe('plans', () => {
  describe('stepsOfPlan', () => {
    it('takes every list item of the Markdown, numbered, bulleted, task boxes and nested, as one step each', () => {
      const plan = [
        '## Plan',
        '',
        'The parser drops the last token.',
        '',
        '1. Reproduce it',
        '2) Fix `tokenize`',
        '   - keep the old API',
        '* [ ] Add a test',
        '+ [x] Update the changelog',
      ].join('\n')
      expect(stepsOfPlan(plan)).toEqual([
        'Reproduce it',
        'Fix `tokenize`',
        'keep the old API',
        'Add a test',
        'Update the changelog',
      ])
    })

    it('finds no steps in a plan written as prose', () => {
      expect(stepsOfPlan('First read the parser, then fix it.\n\n-- the agent')).toEqual([])
    })
  })

  describe('planChecklist', () => {
    it('marks each step by its status', () => {
      expect(
        planChecklist([
          { step: 'Read', status: 'completed' },
          { step: 'Fix', status: 'in_progress' },
          { step: 'Test', status: 'pending' },
        ]),
      ).toBe('[x] Read\n[>] Fix\n[ ] Test')
    })
  })
})
