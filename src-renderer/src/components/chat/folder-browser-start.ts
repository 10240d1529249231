import type { AtelierApi } from '../../../../src-shared/api'
import type { FolderListing } from '../../../../src-shared/contract'

/** What the folder browser opens with, fetched before it shows so it never opens on "Loading…". */
export interface FolderBrowserStart {
  listing: FolderListing
  recent: string[]
}

/**
 * The browser's first screen: the folder given (the chat's, the field's), else the one most
 * recently bound to a chat, else home. A folder that cannot be opened any more (moved, deleted)
 * falls through to the next.
 */
export async function prepareFolderBrowser(
  api: AtelierApi,
  start: string | null,
): Promise<FolderBrowserStart> {
  const asked = start ? api.folders.list({ path: start }) : undefined
  asked?.catch(() => undefined)
  const recent = await api.folders.recent().catch(() => [] as string[])
  for (const candidate of [asked, recent[0] && recent[0] !== start ? recent[0] : undefined]) {
    if (candidate === undefined) continue
    try {
      const listing = await (typeof candidate === 'string'
        ? api.folders.list({ path: candidate })
        : candidate)
      return { listing, recent }
    } catch {
      // Gone or unreadable: try the next.
    }
  }
  return { listing: await api.folders.list({}), recent }
}
