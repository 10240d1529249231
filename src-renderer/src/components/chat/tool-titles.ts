import { createContext, useContext, useEffect, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'

/**
 * Tools' titles by name, as Settings → Tools shows them ("Read files" for `read_file`, an MCP tool's
 * own title with its server), so a tool card says what the tool is; a name without one shows as is.
 */
export const ToolTitlesContext = createContext<ReadonlyMap<string, string>>(new Map())

export function useToolTitle(name: string): string {
  return useContext(ToolTitlesContext).get(name) ?? name
}

/**
 * The titles, asked again when the tool set may have changed: an MCP server connected (a turn
 * connects them), a tool service or a custom tool came or went, a turn ended (`running` false).
 */
export function useToolTitles(api: AtelierApi, running: boolean): ReadonlyMap<string, string> {
  const [titles, setTitles] = useState<ReadonlyMap<string, string>>(() => new Map())
  const [asked, setAsked] = useState(0)

  useEffect(() => {
    const again = () => setAsked((count) => count + 1)
    const offs = [api.mcp.onChanged(again), api.services.onChanged(again), api.customTools.onChanged(again)]
    return () => {
      for (const off of offs) off()
    }
  }, [api])

  // biome-ignore lint/correctness/useExhaustiveDependencies: `asked` and `running` are what ask again
  useEffect(() => {
    if (running) return
    let live = true
    api.tools.list().then(
      ({ tools }) => {
        if (live) setTitles(new Map(tools.map((tool) => [tool.name, tool.title])))
      },
      // Without the list the cards show the tools' names, as they did before.
      () => undefined,
    )
    return () => {
      live = false
    }
  }, [api, asked, running])

  return titles
}
