/**
 * How a stored secret reads wherever it leaves the main process: MCP servers' values, the
 * credentials in an MCP server's or the broker's URL.
 */

/**
 * What a secret value reads as in every listing, announcement and edit form. Sent back where it
 * was shown, it keeps the value stored there, so an edit need not retype a secret.
 */
export const MASKED_VALUE = '••••••••'
