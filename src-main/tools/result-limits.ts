/** Larger results are cut, with a notice, so one call cannot flood the model's context. */
export const DEFAULT_MAX_RESULT_CHARS = 100_000
