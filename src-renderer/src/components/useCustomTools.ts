import { useCallback, useEffect, useRef, useState } from 'react'
import type { AtelierApi } from '../../../src-shared/api'
import type { CustomToolsInfo } from '../../../src-shared/custom-tools'
import { errorMessage } from '../errors'

/**
 * `customTools.load` loads what may run, and loading announces `customTools.changed` itself: an
 * event that comes while a call of ours is under way, or just after it answered, is that echo (or
 * another window's load echoing ours) and is not asked again — else two listeners would ask each
 * other forever.
 */
const QUIET_MS = 400
/** Events come in bursts (a host starting, then loaded): one list for the lot. */
const SETTLE_MS = 80

export interface CustomToolsState {
  /** The last answer for this folder; undefined until the first one. */
  info: CustomToolsInfo | undefined
  /** Why the last list failed, until one succeeds. */
  error: string | undefined
  /** Asks again now. */
  refresh(): Promise<void>
  /** Takes an answer got another way (`customTools.reload` returns one). */
  accept(info: CustomToolsInfo): void
  /** Runs a call that changes or loads tool folders (reload, trust), so its own announcements are not listed again. */
  track<T>(task: () => Promise<T>): Promise<T>
}

export interface CustomToolsOptions {
  /** False asks nothing and leaves `info` undefined. */
  enabled?: boolean
  /**
   * Loads the folders (starting their hosts) rather than listing what is known: for the page where
   * the person looks at how loading went, not for a notice that only needs what is found.
   */
  load?: boolean
}

/**
 * The custom tool files found for a project folder (or for none), kept up to date with
 * `customTools.changed`.
 */
export function useCustomTools(
  api: AtelierApi,
  folder: string | null,
  { enabled = true, load = false }: CustomToolsOptions = {},
): CustomToolsState {
  const [info, setInfo] = useState<CustomToolsInfo>()
  const [error, setError] = useState<string>()
  /** Bumped when the folder changes, so an answer for the previous one is dropped. */
  const generation = useRef(0)
  const inFlight = useRef(0)
  const quietUntil = useRef(0)

  /** Runs a call that loads tool folders (and so announces changes): its echoes are not listed again. */
  const track = useCallback(async <T>(task: () => Promise<T>): Promise<T> => {
    inFlight.current += 1
    try {
      return await task()
    } finally {
      inFlight.current -= 1
      quietUntil.current = Date.now() + QUIET_MS
    }
  }, [])

  const refresh = useCallback(async () => {
    const asked = generation.current
    try {
      const request = folder === null ? {} : { folder }
      // Only loading announces changes; a list is no call whose echo to ignore.
      const next = load
        ? await track(() => api.customTools.load(request))
        : await api.customTools.list(request)
      if (asked !== generation.current) return
      setInfo(next)
      setError(undefined)
    } catch (failure) {
      if (asked === generation.current) setError(errorMessage(failure))
    }
  }, [api, folder, load, track])

  const accept = useCallback((next: CustomToolsInfo) => {
    setInfo(next)
    setError(undefined)
  }, [])

  useEffect(() => {
    generation.current += 1
    setInfo(undefined)
    setError(undefined)
    if (!enabled) return
    void refresh()
    let timer: ReturnType<typeof setTimeout> | undefined
    const echo = () => inFlight.current > 0 || Date.now() < quietUntil.current
    const unsubscribe = api.customTools.onChanged(() => {
      if (echo()) return
      clearTimeout(timer)
      timer = setTimeout(() => {
        if (!echo()) void refresh()
      }, SETTLE_MS)
    })
    return () => {
      clearTimeout(timer)
      unsubscribe()
    }
  }, [api, enabled, refresh])

  return { info, error, refresh, accept, track }
}

/** A file's path inside its tool folder (the whole path when it lies elsewhere). */
export function pathIn(folder: string, path: string): string {
  for (const separator of ['/', '\\']) {
    const prefix = folder.endsWith(separator) ? folder : `${folder}${separator}`
    if (path.startsWith(prefix)) return path.slice(prefix.length)
  }
  return path
}
