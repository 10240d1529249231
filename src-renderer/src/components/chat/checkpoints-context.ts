import { createContext, useContext } from 'react'
import type { Checkpoint } from '../../../../src-shared/checkpoints'

/** What the conversation's rows need of the chat's checkpoints: the Changes rows and the prompts' Rewind. */
export interface CheckpointsContextValue {
  /** Each turn's checkpoint, by turn id. */
  byTurn: ReadonlyMap<string, Checkpoint>
  /** A turn runs: nothing is undone or rewound until it ends (it may still be changing the folder). */
  running: boolean
  /** Opens the Rewind dialog at the prompt of a turn. */
  rewind(turnId: string): void
}

export const CheckpointsContext = createContext<CheckpointsContextValue>({
  byTurn: new Map(),
  running: false,
  rewind: () => {},
})

export function useCheckpointsContext(): CheckpointsContextValue {
  return useContext(CheckpointsContext)
}
