/**
 * How much of a tool's result reaches the model. Its own module so the executor, which cuts
 * results, and the tools, which fit theirs under the cut, share one number without a tool knowing
 * the executor.
 */

/** Larger results are cut, with a notice, so one call cannot flood the model's context. */
export const DEFAULT_MAX_RESULT_CHARS = 100_000
