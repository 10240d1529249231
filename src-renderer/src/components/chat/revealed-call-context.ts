import { createContext } from 'react'

/**
 * The call (its `callKey`) whose result a search opened the chat at: its card, and the group of
 * calls it is in, open by themselves, so the words found show without a click.
 */
export const RevealedCallContext = createContext<string | undefined>(undefined)
