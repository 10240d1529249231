/**
 * Git settings every command the agent runs carries in its environment, as `GIT_CONFIG_COUNT`,
 * `GIT_CONFIG_KEY_n`, `GIT_CONFIG_VALUE_n`: git reads them as command-line configuration, which
 * outranks every config file, so no repository in the project — one the model wrote, or one a
 * clone shipped — can turn them off for a routine `git status`.
 */

/**
 * - `safe.bareRepository=explicit`: a folder that merely looks like a bare repository (`HEAD`,
 *   `objects/`, `refs/`; a clone can ship one as ordinary files) is not opened as one when a command
 *   runs inside it, so its `config` is never read; `--git-dir` or `GIT_DIR` still opens it.
 * - `core.fsmonitor=false`: no repository's config names a program git runs at every status,
 *   nested repositories included.
 */
const ENFORCED_GIT_CONFIG: readonly (readonly [key: string, value: string])[] = [
  ['safe.bareRepository', 'explicit'],
  ['core.fsmonitor', 'false'],
]

/**
 * `env` with ENFORCED_GIT_CONFIG added. Entries it already carries (a `GIT_CONFIG_COUNT` the person
 * passes through) are kept and these come after them, so these win; a count git would reject
 * anyway is replaced.
 */
export function withEnforcedGitConfig(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const given = env.GIT_CONFIG_COUNT
  const start = given !== undefined && /^\d+$/.test(given) ? Number(given) : 0
  const result: NodeJS.ProcessEnv = { ...env, GIT_CONFIG_COUNT: String(start + ENFORCED_GIT_CONFIG.length) }
  ENFORCED_GIT_CONFIG.forEach(([key, value], index) => {
    result[`GIT_CONFIG_KEY_${start + index}`] = key
    result[`GIT_CONFIG_VALUE_${start + index}`] = value
  })
  return result
}
