/**
 * Files of a chat's bound folder named with `@` in the composer: the menu's fuzzy search over the
 * folder, and the read of a chosen file when the prompt is sent. Both go through the search tools'
 * walk (.gitignore, no symlinked folders) and read_file's path policy and size cap, confined to the
 * chat's folder whatever the chat's own restriction says: a mention names a file *of the folder*.
 */
import { basename } from 'node:path'
import type { AttachedFile } from '../../src-shared/attachments'
import { FILE_TEXT_LIMIT } from '../../src-shared/attachments'
import { type Chat, type FolderFiles, MAX_FOLDER_FILES } from '../../src-shared/contract'
import { AtelierError } from '../../src-shared/errors'
import { fuzzyScore } from '../../src-shared/fuzzy'
import { TEXT_VIEW_CEILING } from '../tools/builtin/read-file'
import { ToolError, ToolPathError } from '../tools/errors'
import { BINARY_PROBE_BYTES, looksBinary, readBounded } from '../tools/files'
import {
  isInside,
  loadPathPolicy,
  type PathPolicy,
  type PathScope,
  resolveAndValidatePath,
} from '../tools/paths'
import { folderIsMissing } from '../tools/pipeline/folder'
import type { EffectiveToolSettings } from '../tools/types'
import { walk } from '../tools/walk'

/** A folder's listing is walked again after this long: new files show up, and a big tree is walked once a burst. */
const LISTING_TTL_MS = 10_000
/** The walk stops here: the menu ranks at most this many files of a huge folder. */
export const MAX_LISTED_FILES = 100_000

export interface MentionDeps {
  chat(id: string): Chat
  /** read_file's effective settings: its denied and allowed paths are the policy a mention reads under. */
  readFileSettings(): EffectiveToolSettings
  /** The app's own data folder, denied whatever the settings say. */
  protectedPaths: readonly string[]
  now?: () => number
}

interface FileList {
  files: string[]
  /** The same in lower case, for ranking. */
  lower: string[]
  partial: boolean
}

interface Listing {
  at: number
  files: Promise<FileList>
}

export class FolderMentions {
  private readonly listings = new Map<string, Listing>()
  private readonly now: () => number

  constructor(private readonly deps: MentionDeps) {
    this.now = deps.now ?? Date.now
  }

  /** `folders.files`: the best matches of `query` among the chat's folder's files. */
  async files({
    chatId,
    query,
    limit = MAX_FOLDER_FILES,
  }: {
    chatId: string
    query: string
    limit?: number
  }): Promise<FolderFiles> {
    const folder = this.deps.chat(chatId).workingDir
    if (!folder) return { files: [], partial: false }
    if (folderIsMissing(folder)) return { files: [], partial: false, folderMissing: true }
    const { files, lower, partial } = await this.listing(folder)
    return { files: rankFiles(files, query, Math.min(limit, MAX_FOLDER_FILES), lower), partial }
  }

  /**
   * A mentioned file's text as the message keeps it. Refused with read_file's own ToolError, whose
   * code reaches the caller as it is — `path_denied` for a path that leads out of the folder (`../`,
   * a symlink) or that the policy denies, `not_found`, `validation_failed` for a binary or too large
   * file — so nothing is sent.
   */
  async read(chat: Chat, path: string): Promise<AttachedFile> {
    if (!chat.workingDir) {
      throw new AtelierError('validation_failed', `"@${path}" names a file, but this chat has no folder.`, {
        path,
      })
    }
    const scope = this.scope(chat.workingDir)
    const policy = await loadPathPolicy(scope)
    const root = policy.confinedTo
    const { real } = await resolveAndValidatePath(path, scope, policy)
    // The policy also lets through its allowed paths; a mention is of the chat's folder only.
    if (!root || !isInside(root, real)) {
      throw new ToolPathError(
        'path_denied',
        `"${path}" is outside the chat's folder "${chat.workingDir}".`,
        'mention',
      )
    }
    const display = policy.display(real)
    const bytes = await readBounded(real, display, TEXT_VIEW_CEILING, AbortSignal.timeout(30_000))
    if (looksBinary(bytes.subarray(0, BINARY_PROBE_BYTES))) {
      throw new ToolError('validation_failed', `"${display}" looks binary; only text files can be attached.`)
    }
    const text = bytes.toString('utf8')
    const truncated = text.length > FILE_TEXT_LIMIT
    return {
      kind: 'file',
      path: display,
      name: basename(real),
      text: truncated ? text.slice(0, FILE_TEXT_LIMIT) : text,
      ...(truncated && { truncated: true }),
    }
  }

  /** The path policy of a mention: read_file's, in agent mode, confined to the folder. */
  private scope(folder: string): PathScope {
    return {
      settings: this.deps.readFileSettings(),
      mode: 'agent',
      workingDirectory: folder,
      restrict: true,
      protectedPaths: this.deps.protectedPaths,
    }
  }

  private listing(folder: string) {
    const cached = this.listings.get(folder)
    if (cached && this.now() - cached.at < LISTING_TTL_MS) return cached.files
    // Listings of folders no menu asked about lately are dropped as new ones are made.
    for (const [key, listing] of this.listings) {
      if (this.now() - listing.at >= LISTING_TTL_MS) this.listings.delete(key)
    }
    const files = this.walkFolder(folder)
    this.listings.set(folder, { at: this.now(), files })
    files.catch(() => this.listings.delete(folder))
    return files
  }

  private async walkFolder(folder: string): Promise<FileList> {
    const policy: PathPolicy = await loadPathPolicy(this.scope(folder))
    const root = policy.confinedTo
    if (!root || policy.refusal(root)) return { files: [], lower: [], partial: false }
    const files: string[] = []
    const signal = AbortSignal.timeout(20_000)
    for await (const batch of walk(root, {
      includeDotfiles: false,
      respectGitignore: true,
      onlyFiles: true,
      signal,
      policy,
    })) {
      for (const entry of batch) files.push(entry.relative)
      if (files.length >= MAX_LISTED_FILES) {
        const listed = files.slice(0, MAX_LISTED_FILES)
        return { files: listed, lower: listed.map((file) => file.toLowerCase()), partial: true }
      }
    }
    return { files, lower: files.map((file) => file.toLowerCase()), partial: false }
  }
}

/**
 * The files `query` matches as a subsequence (case-insensitive; spaces ignored), best first: a match
 * in the file's name beats one spread over its folders, runs of consecutive letters and letters at
 * the start of a word count more, and shorter paths win ties. An empty query keeps walk order.
 * `lower` is the files in lower case, when the caller keeps them (a listing is ranked per keystroke).
 */
export function rankFiles(
  files: readonly string[],
  query: string,
  limit: number,
  lower: readonly string[] = files.map((file) => file.toLowerCase()),
): string[] {
  const needle = query.replace(/\s+/g, '').toLowerCase()
  if (needle === '') return files.slice(0, limit)
  // The best `limit` so far, best first: a folder of 100,000 files is not sorted whole per keystroke.
  const best: { file: string; score: number }[] = []
  const worse = (a: { file: string; score: number }, b: { file: string; score: number }) =>
    a.score < b.score ||
    (a.score === b.score &&
      (a.file.length > b.file.length || (a.file.length === b.file.length && a.file > b.file)))
  for (let i = 0; i < files.length; i++) {
    const score = fuzzyScore(lower[i] as string, needle)
    if (score === undefined) continue
    const entry = { file: files[i] as string, score }
    if (best.length === limit && !worse(best[limit - 1] as typeof entry, entry)) continue
    let at = best.length
    while (at > 0 && worse(best[at - 1] as typeof entry, entry)) at--
    best.splice(at, 0, entry)
    if (best.length > limit) best.pop()
  }
  return best.map(({ file }) => file)
}
