import { fileURLToPath } from 'node:url'

const path = (relative: string) => fileURLToPath(new URL(`../../${relative}`, import.meta.url))

/** The reference MCP servers from npm, run with `node <file>`; the everything server takes `stdio` too. */
export const EVERYTHING_SERVER = path('node_modules/@modelcontextprotocol/server-everything/dist/index.js')
export const FILESYSTEM_SERVER = path('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js')
/** Ours, for what the reference servers cannot show (see the file); run with `node --import tsx`. */
export const PROBE_SERVER = path('test/fixtures/mcp-probe-server.ts')
