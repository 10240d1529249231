/**
 * Between resolve and validate, and again as the call starts to run (a wait for a person may lie
 * between): an agent's call runs only while its chat's folder is there. A
 * folder deleted, moved or on a drive no longer mounted would otherwise be made again by the first
 * write (write_file creates missing parent folders), and every other tool would fail in its own
 * words; the person has to bind the chat again instead.
 */
import { statSync } from 'node:fs'
import { ToolError } from '../errors'

/** Whether `folder` is no longer a folder one can work in: gone, or something else now. */
export function folderIsMissing(folder: string): boolean {
  try {
    return !statSync(folder).isDirectory()
  } catch {
    return true
  }
}

/** Refuses with `folder_missing` when the chat's bound folder is gone. */
export function assertFolderPresent(workingDirectory: string | null): void {
  if (workingDirectory === null || !folderIsMissing(workingDirectory)) return
  throw new ToolError(
    'folder_missing',
    `The chat's folder "${workingDirectory}" is gone (deleted, moved, or on a drive that is not mounted). No tool can run until the person binds the chat to a folder again; tell them, and do not call tools meanwhile.`,
    { folder: workingDirectory },
  )
}
