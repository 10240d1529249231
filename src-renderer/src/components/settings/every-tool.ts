import type { AtelierApi } from '../../../../src-shared/api'
import type { ToolSettingsDescriptor } from '../../../../src-shared/tools'

/**
 * Every tool, for a settings page where the person picks among them (Tools, Agent profiles): the
 * person's own custom tool folders are loaded first — opening the page is the asking — so their
 * tools are among the others, as in a turn. `tools.list` alone loads nothing.
 */
export async function everyTool(api: AtelierApi): Promise<ToolSettingsDescriptor[]> {
  // A folder that fails to load says why in Settings → Custom tools; the list goes on without it.
  await api.customTools.load().catch(() => undefined)
  return (await api.tools.list()).tools
}
