import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  removeTemporaryFilesOfEndedProcesses,
  temporaryName,
} from '../../../src-main/tools/unfinished-writes'
import { useTempDirs } from '../../support/temp-dir'

describe('unfinished writes', () => {
  const tempDir = useTempDirs()

  /** A folder of unfinished writes as a process that has ended (`pid`) left it, noting `paths`. */
  function notesOf(pid: number, paths: string[]): string {
    const folder = join(tmpdir(), `atelier-writes-${pid}-test`)
    mkdirSync(folder)
    for (const [index, path] of paths.entries()) writeFileSync(join(folder, `${index}`), path)
    return folder
  }

  function endedPid(): number {
    const { pid } = spawnSync(process.execPath, ['-e', ''])
    if (pid === undefined) throw new Error('no process was started')
    return pid
  }

  describe('removeTemporaryFilesOfEndedProcesses', () => {
    it('removes the temporary files an ended process noted, and its notes', () => {
      const project = tempDir()
      const temporary = join(project, temporaryName('big.txt', 'a1b2c3d4e5f6'))
      writeFileSync(temporary, 'half of it')
      const notes = notesOf(endedPid(), [temporary, join(project, 'gone-already')])

      removeTemporaryFilesOfEndedProcesses()

      expect(existsSync(temporary)).toBe(false)
      expect(existsSync(notes)).toBe(false)
    })

    it('leaves a noted file whose name is not one of its temporary files', () => {
      const project = tempDir()
      const own = join(project, 'notes.txt')
      writeFileSync(own, 'the person’s')
      notesOf(endedPid(), [own])

      removeTemporaryFilesOfEndedProcesses()

      expect(existsSync(own)).toBe(true)
    })

    it('leaves the temporary files of a process that still runs', () => {
      const project = tempDir()
      const temporary = join(project, temporaryName('big.txt', '0123456789ab'))
      writeFileSync(temporary, 'being written')
      const notes = notesOf(process.ppid, [temporary])
      try {
        removeTemporaryFilesOfEndedProcesses()

        expect(existsSync(temporary)).toBe(true)
      } finally {
        rmSync(notes, { recursive: true, force: true })
      }
    })
  })
})
