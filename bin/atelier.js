#!/usr/bin/env node
// The `atelier` command runs the built CLI on plain Node; `npm install` builds it (the prepare script).
import { existsSync } from 'node:fs'

const cli = new URL('../out/main/cli.js', import.meta.url)
if (!existsSync(cli)) {
  process.stderr.write(
    'atelier: not built yet. Run `npm install` (or `npm run build`) in the Atelier folder.\n',
  )
  process.exit(1)
}
const { main } = await import(cli.href)
await main(process.argv)
