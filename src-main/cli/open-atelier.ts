import type { Command } from 'commander'
import { type Atelier, createAtelier } from '../app/create-atelier'
import { resolveDataDir } from '../app/data-dir'

/** Opens the services on the data folder the global `--data-dir` names, runs `work`, and closes them. */
export async function withAtelier<T>(
  command: Command,
  work: (atelier: Atelier) => Promise<T> | T,
): Promise<T> {
  const { dataDir } = command.optsWithGlobals<{ dataDir?: string }>()
  const atelier = createAtelier({ dataDir: resolveDataDir(dataDir) })
  try {
    return await work(atelier)
  } finally {
    await atelier.close()
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`)
}

/** Ctrl+C, a closed terminal or a kill abort the work (a running tool, a turn) instead of orphaning it. */
export function abortOnSignals(controller: AbortController): () => void {
  const abort = () => controller.abort(new Error('Interrupted.'))
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
  for (const signal of signals) process.once(signal, abort)
  return () => {
    for (const signal of signals) process.off(signal, abort)
  }
}
