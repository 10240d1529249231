/** MCP servers as the settings page edits them. */
import { type Static, Type } from '@sinclair/typebox'

const Name = Type.String({ minLength: 1, maxLength: 32, pattern: '^[a-zA-Z0-9_-]+$' })
const StringMap = Type.Record(Type.String(), Type.String())

/**
 * Which environment variables (stdio) or headers (http) the person marked as not secret: `false`
 * keeps the value as typed, shown in the clear (`LOG_LEVEL=debug`). Every other value is stored
 * encrypted and reads `MASKED_VALUE` everywhere else; `true` says so explicitly.
 */
const SecretMarks = Type.Record(Type.String(), Type.Boolean())
export type SecretMarks = Static<typeof SecretMarks>

/**
 * Whether the value under `name` is kept secret, given the person's marks: every value is, unless
 * marked not secret. A name says too little — `DATABASE_URL`, `GH_PAT`, `SENTRY_DSN` hold secrets
 * no name check recognizes.
 */
export function isSecret(marks: SecretMarks | undefined, name: string): boolean {
  return marks?.[name] ?? true
}

/**
 * How Atelier signs in to a remote server that asks for OAuth 2.1. Everything is optional: without
 * it, a server that answers 401 is signed in to with dynamic client registration and the
 * authorization code flow in the browser. `clientSecret` and `clientPrivateKey` are stored sealed
 * and read `MASKED_VALUE`.
 */
export const McpOAuthSettings = Type.Object(
  {
    /** A client registered with the authorization server beforehand (no dynamic registration). */
    clientId: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    clientSecret: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    /** An https URL of a Client ID Metadata Document, used where the authorization server supports them. */
    clientMetadataUrl: Type.Optional(Type.String({ pattern: '^https://\\S+$', maxLength: 2000 })),
    /**
     * A PEM (PKCS #8) private key the client signs its token requests with (`private_key_jwt`,
     * RFC 7523) instead of a secret; stored sealed, reads `MASKED_VALUE`.
     */
    clientPrivateKey: Type.Optional(Type.String({ minLength: 1, maxLength: 16384 })),
    /** The JWS algorithm of that key's signatures; by default ES256/ES384/ES512 or RS256, as the key is. */
    signingAlgorithm: Type.Optional(Type.String({ pattern: '^(RS|PS|ES)(256|384|512)$' })),
    /** `client_credentials`: a machine client (needs clientId, and clientSecret or clientPrivateKey), no browser. */
    grant: Type.Optional(
      Type.Union([Type.Literal('authorization_code'), Type.Literal('client_credentials')]),
    ),
    /** Scopes to ask for when neither the server's challenge nor its metadata name any. */
    scope: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  },
  { additionalProperties: false },
)
export type McpOAuthSettings = Static<typeof McpOAuthSettings>

/**
 * `none`: the server has not asked for authorization. `needs-sign-in`: it answered 401 and no stored
 * token works; its tools are missing until the person signs in. `signed-in`: tokens are stored.
 */
export const McpAuthState = Type.Union([
  Type.Literal('none'),
  Type.Literal('needs-sign-in'),
  Type.Literal('signed-in'),
])
export type McpAuthState = Static<typeof McpAuthState>

export const McpServerInput = Type.Union([
  Type.Object(
    {
      name: Name,
      transport: Type.Literal('stdio'),
      command: Type.String({ minLength: 1, maxLength: 4096 }),
      args: Type.Optional(Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 200 })),
      env: Type.Optional(StringMap),
      secret: Type.Optional(SecretMarks),
      cwd: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 4096 }), Type.Null()])),
      /**
       * The server runs in the sandbox: it writes only its working folder and a private temp folder,
       * reads no secrets, and reaches the network only if the sandbox settings allow it. Off unless set:
       * servers usually need the network and their own configuration.
       */
      sandboxed: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      name: Name,
      transport: Type.Literal('http'),
      /**
       * Its userinfo and credential-looking query values (`api_key=…`) are stored encrypted and
       * read `MASKED_VALUE`; sent back masked, they keep the stored ones.
       */
      url: Type.String({ pattern: '^https?://\\S+$', maxLength: 2000 }),
      headers: Type.Optional(StringMap),
      secret: Type.Optional(SecretMarks),
      oauth: Type.Optional(McpOAuthSettings),
    },
    { additionalProperties: false },
  ),
])
export type McpServerInput = Static<typeof McpServerInput>

/** A server as a turn or the inspector found it: connected with its tools, or why not. */
export const McpServerStatus = Type.Object({
  id: Type.String(),
  name: Type.String(),
  connected: Type.Boolean(),
  /** Its tools under the names the model sees. */
  tools: Type.Array(Type.String()),
  error: Type.Optional(Type.String()),
})
export type McpServerStatus = Static<typeof McpServerStatus>

export const McpServerInfo = Type.Object({
  id: Type.String(),
  name: Type.String(),
  transport: Type.Union([Type.Literal('stdio'), Type.Literal('http')]),
  /** The exact command line (stdio) or URL (http). */
  target: Type.String(),
  enabled: Type.Boolean(),
  /**
   * A stdio server whose launch (command line, environment, working folder), as it now stands, has
   * not been approved: it is not started.
   */
  needsApproval: Type.Boolean(),
  /**
   * The server as added or last edited, for the edit form: each secret value reads `MASKED_VALUE`,
   * as do the credentials in a remote server's URL (see `SealedSecrets.sealUrl`), and `secret` lists
   * the names marked not secret.
   */
  definition: McpServerInput,
  /** A session is open (a stdio server's process runs). Servers connect only for a turn or the inspector. */
  running: Type.Boolean(),
  /** Why the last connection or tool listing failed. */
  error: Type.Optional(Type.String()),
  /** Its tools under the names the model sees, as last listed (empty before it first ran). */
  tools: Type.Array(Type.String()),
  /** Whether OAuth sign-in is needed or done (always `none` for stdio servers). */
  auth: McpAuthState,
})
export type McpServerInfo = Static<typeof McpServerInfo>

/**
 * A sign-in under way: the authorization URL to open in the browser (null when no browser is needed:
 * a stored refresh token or client credentials sufficed). `opened`: the app opened it itself (the
 * desktop app); otherwise the caller opens or prints it. Completion arrives as `mcp.changed`.
 */
export const McpSignIn = Type.Object({
  authorizationUrl: Type.Union([Type.String(), Type.Null()]),
  opened: Type.Boolean(),
})
export type McpSignIn = Static<typeof McpSignIn>
