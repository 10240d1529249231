import type { Atelier } from '../app/create-atelier'

/**
 * Brings into the registry the tools that modules and services serve — the custom tools of the
 * person's folders (and `folder`'s, when trusted), the tool services' reachable tools — as a turn
 * does, for a command that lists tools or reads and changes their settings.
 */
export async function loadServedTools(
  { customTools, services }: Pick<Atelier, 'customTools' | 'services'>,
  folder: string | null,
): Promise<void> {
  await customTools.prepare(folder)
  await services.prepare()
}
