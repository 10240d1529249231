import { createContext, useContext } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'

/** The API for components deep in the list (generated images load themselves). */
export const ApiContext = createContext<AtelierApi | null>(null)

export function useApi(): AtelierApi {
  const api = useContext(ApiContext)
  if (!api) throw new Error('useApi outside ApiContext')
  return api
}
