import { useEffect, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'

/** Asked once per connection: the home folder does not change while the app runs. */
const homes = new WeakMap<AtelierApi, { value?: string; asked: Promise<string | undefined> }>()

function ask(api: AtelierApi) {
  let entry = homes.get(api)
  if (!entry) {
    const made: { value?: string; asked: Promise<string | undefined> } = {
      asked: api.app.info().then(
        (info) => {
          made.value = info.home
          return info.home
        },
        () => undefined,
      ),
    }
    entry = made
    homes.set(api, entry)
  }
  return entry
}

/** The person's home folder, to show paths under it as `~/…`; undefined until known. */
export function useHomeFolder(api: AtelierApi): string | undefined {
  const [home, setHome] = useState(() => ask(api).value)
  useEffect(() => {
    let live = true
    void ask(api).asked.then((value) => live && setHome(value))
    return () => {
      live = false
    }
  }, [api])
  return home
}
