import { PencilIcon, TrashIcon } from '../icons'

/** The Edit and Delete icon buttons of a listed item, named after it for screen readers. */
export function ItemActions({
  what,
  name,
  onEdit,
  onDelete,
}: {
  what: string
  name: string
  onEdit(): void
  onDelete(): void
}) {
  return (
    <>
      <button
        type="button"
        className="icon"
        aria-label={`Edit ${what} ${name}`}
        title="Edit"
        onClick={onEdit}
      >
        <PencilIcon />
      </button>
      <button
        type="button"
        className="icon"
        aria-label={`Delete ${what} ${name}`}
        title="Delete"
        onClick={onDelete}
      >
        <TrashIcon />
      </button>
    </>
  )
}
