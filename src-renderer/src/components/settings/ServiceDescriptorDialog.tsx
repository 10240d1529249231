import type { AtelierApi } from '../../../../src-shared/api'
import { JsonDialog } from './JsonDialog'

interface ServiceDescriptorDialogProps {
  api: AtelierApi
  /** The JSON to start from when editing a service: its descriptor and its tools' descriptors. */
  initial?: { id: string; json: string }
  onAdded(added: string[]): void
  onClose(): void
}

const EXAMPLE = `[
  {
    "id": "joke",
    "request-queue": "joke.requests",
    "response-queue": "joke.responses",
    "reply-to": "inbox",
    "config-params": [{ "name": "style", "required": true }]
  },
  {
    "type": "tool-service",
    "name": "tell-joke",
    "description": "Tell a joke about a topic",
    "service": "joke",
    "style": "pun",
    "arguments": [{ "name": "topic", "type": "string", "description": "What the joke is about" }]
  }
]`

/**
 * Service and tool descriptors as the seed writes them, pasted or read from a .json file. A
 * descriptor whose id or name is already used replaces the stored one, which is how editing works.
 */
export function ServiceDescriptorDialog({ api, initial, onAdded, onClose }: ServiceDescriptorDialogProps) {
  return (
    <JsonDialog
      title={initial ? `Edit ${initial.id}` : 'Add tool service descriptors'}
      description={
        initial
          ? 'Saving replaces the service and the tools of the same names. A tool taken out of this list stays: remove it from the card.'
          : 'Paste a service descriptor, a tool descriptor, or an array of them, or choose a .json file. A tool must name a service that is configured or in the same array. A stdio service (one with a "command") runs in the sandbox with "sandboxed": true.'
      }
      fieldLabel="Descriptor JSON"
      placeholder={EXAMPLE}
      {...(initial && { initialJson: initial.json })}
      rows={14}
      submitLabel={initial ? 'Save' : 'Add'}
      submit={async (json) => onAdded((await api.services.add({ json })).added)}
      onClose={onClose}
    />
  )
}
