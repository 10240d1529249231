import { type TSchema, Type } from '@sinclair/typebox'
import { defineTool, inProcess } from '../../src-main/tools/define-tool'
import type { RegisteredTool, ToolContext, ToolSpec } from '../../src-main/tools/types'

/** A tool for exercising the executor: records what reached `execute`, then runs `behave`. */
export function recordingTool(
  name: string,
  behave: (args: unknown, context: ToolContext) => Promise<unknown> = async (args) => args,
  overrides: Partial<RegisteredTool['settings']> = {},
) {
  const calls: { args: unknown; context: ToolContext }[] = []
  const tool: RegisteredTool = {
    definition: {
      name,
      description: `Test tool ${name}.`,
      parameters: Type.Object(
        {
          pattern: Type.String({ minLength: 1, maxLength: 20 }),
          path: Type.Optional(Type.String()),
          caseInsensitive: Type.Optional(Type.Boolean()),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
        },
        { additionalProperties: false },
      ),
    },
    settings: {
      title: `Test ${name}`,
      description: 'A tool used by the tests.',
      category: 'system',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: { maxResults: 100, timeoutSeconds: 30, mode: 'fast', roots: [] },
      parameterDescriptors: [
        { name: 'maxResults', type: 'integer', label: 'Max results', min: 1, max: 5000 },
        { name: 'timeoutSeconds', type: 'integer', label: 'Timeout', min: 5, max: 600, unit: 's' },
        { name: 'mode', type: 'enum', label: 'Mode', allowedValues: ['fast', 'thorough'] },
        { name: 'roots', type: 'string-list', label: 'Roots' },
        { name: 'verbose', type: 'boolean', label: 'Verbose' },
        { name: 'label', type: 'string', label: 'Label' },
        { name: 'ratio', type: 'number', label: 'Ratio', min: 0, max: 1 },
      ],
      ...overrides,
    },
    kind: 'other',
    runner: inProcess(async (args, context) => {
      calls.push({ args, context })
      return behave(args, context)
    }),
  }
  return { tool, calls }
}

/**
 * A tool only a test or a benchmark registers: run in process, on by default, no settings of its
 * own, `other` unless told; Settings → Tools shows it as `title` (its name unless told).
 */
export function plainTool<Parameters extends TSchema>({
  title,
  ...spec
}: Pick<ToolSpec<Parameters>, 'name' | 'description' | 'parameters' | 'execute'> &
  Partial<Pick<ToolSpec<Parameters>, 'kind' | 'describe'>> & { title?: string }): RegisteredTool {
  return defineTool({
    kind: 'other',
    ...spec,
    settings: {
      title: title ?? spec.name,
      description: spec.description,
      category: 'system',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: {},
      parameterDescriptors: [],
    },
  })
}
