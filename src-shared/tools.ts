/**
 * Tool types that cross the process boundary: what the settings panel lists and edits. The runtime
 * side (executors, contexts) lives in `src-main/tools/types.ts`.
 */
import { type Static, Type } from '@sinclair/typebox'
import { FileDiagnostic } from './code-intelligence'
import { TOOL_ERROR_TYPES } from './errors'
import { PlanContinueMode, PlanStep } from './plans'
import { SandboxReport } from './sandbox'
import { UsageTotal } from './usage'

/** A JSON Schema object, as sent to providers. Built-in tools author it with TypeBox. */
export type JsonSchema = Record<string, unknown>

/** What a model sees of a tool. */
export interface ToolDefinition {
  name: string
  description: string
  parameters: JsonSchema
}

export const ToolCategory = Type.Union([
  Type.Literal('system'),
  Type.Literal('image'),
  Type.Literal('interaction'),
  Type.Literal('web'),
])
export type ToolCategory = Static<typeof ToolCategory>

export const ToolParameterType = Type.Union([
  Type.Literal('integer'),
  Type.Literal('number'),
  Type.Literal('string'),
  Type.Literal('boolean'),
  Type.Literal('enum'),
  Type.Literal('string-list'),
  /**
   * Text kept sealed in the data folder (an API key): it reads `MASKED_VALUE` wherever it leaves the
   * main process, and `MASKED_VALUE` sent back keeps the stored value.
   */
  Type.Literal('secret'),
])
export type ToolParameterType = Static<typeof ToolParameterType>

/** One user-editable setting of a tool; the settings form is generated from these. */
export const ToolParameterDescriptor = Type.Object({
  name: Type.String(),
  type: ToolParameterType,
  label: Type.String(),
  description: Type.Optional(Type.String()),
  min: Type.Optional(Type.Number()),
  max: Type.Optional(Type.Number()),
  /** The choices of an `enum` parameter. */
  allowedValues: Type.Optional(Type.Array(Type.String())),
  unit: Type.Optional(Type.String()),
})
export type ToolParameterDescriptor = Static<typeof ToolParameterDescriptor>

export const ToolSettingsMetadata = Type.Object({
  title: Type.String(),
  description: Type.String(),
  category: ToolCategory,
  enabledByDefault: Type.Boolean(),
  canDisable: Type.Boolean(),
  defaultParameters: Type.Record(Type.String(), Type.Unknown()),
  parameterDescriptors: Type.Array(ToolParameterDescriptor),
})
export type ToolSettingsMetadata = Static<typeof ToolSettingsMetadata>

/** Where a registry entry came from: built in, or added at run time by a later source. */
export const ToolSource = Type.Union([
  Type.Object({ kind: Type.Literal('builtin') }),
  Type.Object({ kind: Type.Literal('mcp'), server: Type.String() }),
  Type.Object({ kind: Type.Literal('service'), service: Type.String() }),
  Type.Object({
    kind: Type.Literal('custom'),
    module: Type.String(),
    /** The project folder whose tool folder holds it: offered only in chats bound to that folder. */
    project: Type.Optional(Type.String()),
  }),
])
export type ToolSource = Static<typeof ToolSource>

/** One tool as the settings panel shows it: metadata plus the effective state for this user. */
export const ToolSettingsDescriptor = Type.Composite([
  ToolSettingsMetadata,
  Type.Object({
    name: Type.String(),
    source: ToolSource,
    enabled: Type.Boolean(),
    parameters: Type.Record(Type.String(), Type.Unknown()),
    /** The JSON schema of the call's arguments, as the model is given it with these settings. */
    argumentSchema: Type.Record(Type.String(), Type.Unknown()),
    /** Set when the saved settings did not validate and the defaults are in force instead. */
    invalidSavedSettings: Type.Optional(Type.Object({ message: Type.String() })),
  }),
])
export type ToolSettingsDescriptor = Static<typeof ToolSettingsDescriptor>

export const ToolSettingsListResponse = Type.Object({ tools: Type.Array(ToolSettingsDescriptor) })
export type ToolSettingsListResponse = Static<typeof ToolSettingsListResponse>

export const UpdateToolSettingsBody = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
)
export type UpdateToolSettingsBody = Static<typeof UpdateToolSettingsBody>

/**
 * What a call does, as a policy or a person deciding on it needs to know: `read` only looks,
 * `edit` changes files, `execute` runs programs, `network` reaches another machine.
 */
export const ToolKind = Type.Union([
  Type.Literal('read'),
  Type.Literal('edit'),
  Type.Literal('execute'),
  Type.Literal('network'),
  Type.Literal('other'),
])
export type ToolKind = Static<typeof ToolKind>

/** How a tool call failed, as the model, the CLI and the UI see it: the tool group of ERROR_CODES. */
export const ToolErrorType = Type.Union(TOOL_ERROR_TYPES.map((type) => Type.Literal(type)))
export type ToolErrorType = (typeof TOOL_ERROR_TYPES)[number]

/** One call described before it runs: what an approval screen or a policy reads instead of raw JSON. */
export const ToolCallDescription = Type.Object({
  kind: ToolKind,
  /** One line: the path, the command, the query. */
  summary: Type.String(),
  /** The real paths it will touch (symlinks resolved), for path rules and the person. */
  locations: Type.Array(Type.String()),
  /**
   * The host a network call reaches (`docs.python.org`, lower case, no port), for domain rules
   * (`web_fetch(domain:docs.python.org)`) and the person.
   */
  host: Type.Optional(Type.String()),
  /** A shell call's command line, what the policy parses into sub-commands. */
  command: Type.Optional(
    Type.Object({
      text: Type.String(),
      /** The real folder it starts in. */
      cwd: Type.String(),
      /** `posix`: bash and zsh, parsed as bash; `powershell`: matched as one command. */
      syntax: Type.Union([Type.Literal('posix'), Type.Literal('powershell')]),
      /**
       * How it will run: `confined` by the sandbox; asking to leave it for the `network` or for
       * `everything`, with the model's one-line justification; `none` where no sandbox confines it.
       */
      sandbox: Type.Optional(
        Type.Object({
          run: Type.Union([
            Type.Literal('confined'),
            Type.Literal('network'),
            Type.Literal('everything'),
            Type.Literal('none'),
          ]),
          justification: Type.Optional(Type.String()),
        }),
      ),
    }),
  ),
})
export type ToolCallDescription = Static<typeof ToolCallDescription>

export const ShellCommandResult = Type.Object({
  stdout: Type.String(),
  stderr: Type.String(),
  exitCode: Type.Union([Type.Number(), Type.Null()]),
  signal: Type.Union([Type.String(), Type.Null()]),
  termination: Type.Union([
    Type.Literal('exited'),
    Type.Literal('timed_out'),
    Type.Literal('aborted'),
    Type.Literal('signalled'),
  ]),
  durationMs: Type.Number(),
  /** Whether the middle of a stream was dropped at the output cap. */
  truncated: Type.Object({ stdout: Type.Boolean(), stderr: Type.Boolean() }),
})
export type ShellCommandResult = Static<typeof ShellCommandResult>

/**
 * Image types a result may show inline, as pictures; SVG and the rest are only described, since a
 * picture must not be a document.
 */
export const INLINE_IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
])

/** An image to show with a result: a file Atelier saved (by path) or bytes a tool returned inline. */
export const DisplayImage = Type.Union([
  Type.Object({ path: Type.String(), mimeType: Type.String() }),
  Type.Object({ data: Type.String({ description: 'base64' }), mimeType: Type.String() }),
])
export type DisplayImage = Static<typeof DisplayImage>

/**
 * How the UI shows a result, given by the tool itself, so no view has to parse what the model
 * reads or know tool names. Absent: the content is shown as it is.
 */
export const ToolDisplay = Type.Union([
  Type.Object({
    kind: Type.Literal('diff'),
    path: Type.String(),
    patch: Type.String(),
    /** The problems the edit brought, as its language server reported them (paths as `path` shows it). */
    diagnostics: Type.Optional(Type.Array(FileDiagnostic)),
  }),
  Type.Composite([
    Type.Object({ kind: Type.Literal('shell') }),
    ShellCommandResult,
    /** The real folder the command ran in (issue 19, item 11); absent in results stored before. */
    Type.Object({
      cwd: Type.Optional(Type.String()),
      /** Whether the sandbox confined it; absent in results stored before there was one. */
      sandbox: Type.Optional(SandboxReport),
    }),
  ]),
  Type.Object({ kind: Type.Literal('images'), images: Type.Array(DisplayImage) }),
  /**
   * What a custom tool's render hooks made of the call and its result, as Markdown (raw HTML stays
   * off): `call` for the card's head, `collapsed` and `expanded` for its two states. A hook that
   * failed or returned nothing leaves its part out, and the card shows the default there.
   */
  Type.Object({
    kind: Type.Literal('rendered'),
    call: Type.Optional(Type.String()),
    collapsed: Type.Optional(Type.String()),
    expanded: Type.Optional(Type.String()),
  }),
  /**
   * A window of a text file as read_file read it: the lines themselves (unnumbered, as in the file)
   * from `startLine` to `endLine` of `totalLines`, so the card shows them as a file, not as JSON.
   * `totalLines` is absent when a file too large to read whole was streamed only to the window.
   */
  Type.Object({
    kind: Type.Literal('file'),
    path: Type.String(),
    startLine: Type.Number(),
    endLine: Type.Number(),
    totalLines: Type.Optional(Type.Number()),
    lines: Type.Array(Type.String()),
    truncated: Type.Boolean(),
  }),
  /**
   * grep's matching lines, sorted by file then line; `file` is ready for read_file. `skipped` counts
   * the files of a folder it did not search (too large, unreadable) and names the first few.
   */
  Type.Object({
    kind: Type.Literal('matches'),
    path: Type.String(),
    matches: Type.Array(Type.Object({ file: Type.String(), line: Type.Number(), text: Type.String() })),
    truncated: Type.Boolean(),
    skipped: Type.Optional(
      Type.Object({
        count: Type.Number(),
        reasons: Type.Record(Type.String(), Type.Number()),
        files: Type.Array(Type.Object({ file: Type.String(), reason: Type.String() })),
      }),
    ),
  }),
  /**
   * Paths a tool found or listed (glob, list_directory), shown as a tree below `root`; `folder`
   * marks the folders among them where the tool knows.
   */
  Type.Object({
    kind: Type.Literal('paths'),
    root: Type.String(),
    entries: Type.Array(Type.Object({ path: Type.String(), folder: Type.Optional(Type.Boolean()) })),
    truncated: Type.Boolean(),
  }),
  /** The live plan as update_plan set it: a checklist, the step in progress marked. */
  Type.Object({
    kind: Type.Literal('plan'),
    explanation: Type.Optional(Type.String()),
    steps: Type.Array(PlanStep),
  }),
  /** A plan proposed in plan mode (Markdown), for the person to approve or send back. */
  Type.Object({
    kind: Type.Literal('proposed-plan'),
    plan: Type.String(),
    /** Its list items, all pending: the live plan once it is approved. */
    steps: Type.Array(PlanStep),
    /** The mode the person went on in, once they approved it. */
    approvedMode: Type.Optional(PlanContinueMode),
  }),
  /**
   * A page web_fetch fetched: its title, the URL it came from after redirects, its type and size
   * (`truncated`: cut at the download cap), and the start of what the model read, as Markdown
   * (a text or JSON body fenced), for the card's preview.
   */
  Type.Object({
    kind: Type.Literal('web-page'),
    url: Type.String(),
    title: Type.Optional(Type.String()),
    status: Type.Number(),
    mediaType: Type.String(),
    bytes: Type.Number(),
    truncated: Type.Boolean(),
    preview: Type.String(),
  }),
  /**
   * A `task` done by a subagent: its chat (the whole transcript, opened from the card), the profile
   * it ran on, what it was asked, how its turn ended, the tokens it used in all, and its answer whole.
   */
  Type.Object({
    kind: Type.Literal('subagent'),
    chatId: Type.String(),
    agent: Type.String(),
    description: Type.String(),
    status: Type.Union([Type.Literal('completed'), Type.Literal('failed'), Type.Literal('stopped')]),
    usage: UsageTotal,
    answer: Type.String(),
  }),
])
export type ToolDisplay = Static<typeof ToolDisplay>

/** A count that only grows, out of a total when the tool knows one. */
export const CountedReport = Type.Object({
  kind: Type.Literal('progress'),
  done: Type.Number(),
  total: Type.Optional(Type.Number()),
  message: Type.Optional(Type.String()),
})

/** A chunk of what a command writes. */
export const OutputReport = Type.Object({
  kind: Type.Literal('output'),
  stream: Type.Union([Type.Literal('stdout'), Type.Literal('stderr')]),
  text: Type.String(),
})
export type OutputReport = Static<typeof OutputReport>

/** One image's outcome, of several a call makes. */
export const ImageReport = Type.Object({
  kind: Type.Literal('image'),
  image: Type.Number(),
  of: Type.Number(),
  status: Type.Union([Type.Literal('saved'), Type.Literal('failed')]),
  path: Type.Optional(Type.String()),
  mimeType: Type.Optional(Type.String()),
  error: Type.Optional(Type.String()),
})
export type ImageReport = Static<typeof ImageReport>

/**
 * A partial result that replaces the one before (a custom tool's `onUpdate`): its text, and what
 * the tool's render hooks made of the call and of it, as Markdown.
 */
export const PartialReport = Type.Object({
  kind: Type.Literal('partial'),
  text: Type.String(),
  call: Type.Optional(Type.String()),
  rendered: Type.Optional(Type.String()),
})
export type PartialReport = Static<typeof PartialReport>

/** What a running call reports: a count, a chunk of a command's output, one image's outcome, a partial result. */
export const ToolProgress = Type.Union([CountedReport, OutputReport, ImageReport, PartialReport])
export type ToolProgress = Static<typeof ToolProgress>
