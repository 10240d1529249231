import { useEffect, useState } from 'react'
import type { AtelierApi } from '../../../src-shared/api'
import type { SandboxInfo } from '../../../src-shared/sandbox'
import { errorMessage } from '../errors'

/**
 * What this computer has for a sandbox, and the settings, as `sandbox.status` says (the probe runs
 * once, in main): the info once read, or why it could not be.
 */
export function useSandboxStatus(api: AtelierApi): { info?: SandboxInfo; error?: string } {
  const [status, setStatus] = useState<{ info?: SandboxInfo; error?: string }>({})
  useEffect(() => {
    let live = true
    api.sandbox.status().then(
      (info) => live && setStatus({ info }),
      (failure: unknown) => live && setStatus({ error: errorMessage(failure) }),
    )
    return () => {
      live = false
    }
  }, [api])
  return status
}
