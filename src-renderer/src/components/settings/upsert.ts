/** The list with `item` replacing the entry of the same id, or added at the end. */
export function upsertById<T extends { id: string }>(list: T[] | undefined, item: T): T[] {
  return list?.some((entry) => entry.id === item.id)
    ? list.map((entry) => (entry.id === item.id ? item : entry))
    : [...(list ?? []), item]
}
