/**
 * The shell tools' costs: capturing a flood of output (1 GiB through the default 100 KiB cap, with
 * live output on, as the tools run it) against `cat` of the same bytes to /dev/null, with the memory
 * it takes; a small command's start to result, and a burst of small writes with live output, each
 * against bash spawned with Node's pipes; and how fast a timed-out command's whole process group is
 * gone after the deadline.
 */
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { runShellCommand, type ShellCommandOptions } from '../src-main/tools/processes'
import { type Benchmark, median, paired, sized } from './measure'

const BASH = '/bin/bash'
/** The flood captured: far more than the 100 KiB cap, either way. */
const FLOOD = sized({ size: '1G', label: '1 GiB' }, { size: '1M', label: '1 MiB' })
const FLOOD_COMMAND = `head -c ${FLOOD.size} /dev/zero`
const ROUNDS = sized(5, 1)
const SMALL_COMMANDS = sized(100, 2)
const LINE_RUNS = sized(10, 1)

function capture(command: string, timeoutMs: number, onOutput?: ShellCommandOptions['onOutput']) {
  return runShellCommand({
    file: BASH,
    args: ['-c', command],
    cwd: tmpdir(),
    env: process.env,
    timeoutMs,
    maxOutputBytes: 100 * 1024,
    signal: new AbortController().signal,
    onOutput,
  })
}

function runToNull(command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(BASH, ['-c', command], { stdio: 'ignore' })
    child.once('error', reject)
    child.once('exit', () => resolve())
  })
}

/** The floor under a command's start and end: bash through Node's pipes, its output read and dropped. */
function spawnWithPipes(command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(BASH, ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout.resume()
    child.stderr.resume()
    child.once('error', reject)
    child.once('close', () => resolve())
  })
}

/**
 * Live (not zombie) processes in a group. A killed process is a zombie until its parent reaps it;
 * orphans are reaped by PID 1, which in some sandboxes takes seconds, so reaping is not what is timed.
 */
function liveMembers(pgid: number): number {
  let live = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(group) === pgid && state !== 'Z') live++
    } catch {
      // The process ended while we looked.
    }
  }
  return live
}

/** The moment the last live process of the group is gone. */
async function groupGone(pgid: number): Promise<number> {
  while (liveMembers(pgid) > 0) await new Promise((resolve) => setImmediate(resolve))
  return performance.now()
}

const benchmark: Benchmark = async () => {
  const ours: number[] = []
  const reference: number[] = []
  let peakGrowth = 0
  let updates = 0
  for (let round = 0; round < ROUNDS; round++) {
    const base = process.memoryUsage().rss
    let peak = base
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss)
    }, 5)
    let started = performance.now()
    // Live output on, as the tools run it: what the UI would get is counted, not shown.
    const result = await capture(FLOOD_COMMAND, 120_000, () => updates++)
    ours.push(performance.now() - started)
    clearInterval(sampler)
    peakGrowth = Math.max(peakGrowth, peak - base)
    if (!result.truncated.stdout) throw new Error(`expected the ${FLOOD.label} to be cut`)
    started = performance.now()
    await runToNull(`${FLOOD_COMMAND} | cat > /dev/null`)
    reference.push(performance.now() - started)
  }

  const [startOurs, startReference] = await paired(
    SMALL_COMMANDS,
    ROUNDS,
    () => capture('echo hi', 10_000, () => {}),
    () => spawnWithPipes('echo hi'),
  )

  // 2000 writes of one line each, as fast as bash prints them: the UI gets a few updates, not 2000.
  const LINES = 'for i in $(seq 2000); do echo "line $i"; done'
  let lineUpdates = 0
  let lineRuns = 0
  const [linesOurs, linesReference] = await paired(
    LINE_RUNS,
    ROUNDS,
    async () => {
      lineRuns++
      await capture(LINES, 10_000, () => lineUpdates++)
    },
    () => spawnWithPipes(LINES),
  )

  const latencies: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const timeoutMs = 300
    const started = performance.now()
    const result = await capture('echo $$; sleep 999 & sleep 999 & wait', timeoutMs)
    const gone = await groupGone(Number(result.stdout.trim()))
    latencies.push(gone - (started + timeoutMs))
  }

  return [
    {
      name: `capture ${FLOOD.label} of output`,
      ours: { label: 'bash tool capture', msPerOp: median(ours) },
      reference: { label: 'cat > /dev/null', msPerOp: median(reference) },
      target: 'target ≤ 1.5×',
      note: `peak RSS +${(peakGrowth / 1024 / 1024).toFixed(1)} MiB (target ≤ 16 MiB, run alone); ${(updates / ROUNDS).toFixed(0)} live updates a run`,
    },
    {
      name: 'a small command, start to result',
      ours: { label: 'bash tool: echo hi', msPerOp: startOurs },
      reference: { label: 'spawn bash with pipes', msPerOp: startReference },
    },
    {
      name: '2000 one-line writes, live on',
      ours: { label: 'bash tool, live output', msPerOp: linesOurs },
      reference: { label: 'spawn bash with pipes', msPerOp: linesReference },
      note: `${(lineUpdates / lineRuns).toFixed(1)} live updates a run`,
    },
    {
      name: 'kill latency after the deadline',
      ours: { label: 'deadline → no live process in the group', msPerOp: median(latencies) },
      reference: { label: 'target', msPerOp: 100 },
      note: `worst of ${ROUNDS}: ${Math.max(...latencies).toFixed(1)} ms`,
    },
  ]
}

export default benchmark
