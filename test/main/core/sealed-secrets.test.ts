import { describe, expect, it } from 'vitest'
import { LocalSecretStore } from '../../../src-main/core/local-secret-store'
import { BROKER_URL, MCP_URL, SealedSecrets } from '../../../src-main/core/sealed-secrets'
import { MASKED_VALUE } from '../../../src-shared/secrets'
import { useTempDirs } from '../../support/temp-dir'

describe('SealedSecrets', () => {
  const tempDir = useTempDirs()
  const sealed = () => new SealedSecrets(new LocalSecretStore(tempDir()))

  describe('sealUrl', () => {
    it('masks userinfo and credential-looking query values, and keeps a URL without them as typed', () => {
      const secrets = sealed()
      const url = 'https://u:p4ss@mcp.example/mcp?team=a,b&api_key=k3y&X-Amz-Signature=s1g&path=/x&sig=v#top'
      const stored = secrets.sealUrl(url, undefined, MCP_URL)
      expect(stored.shown).toBe(
        `https://${MASKED_VALUE}@mcp.example/mcp?team=a,b&api_key=${MASKED_VALUE}&X-Amz-Signature=${MASKED_VALUE}&path=/x&sig=${MASKED_VALUE}#top`,
      )
      expect(secrets.openUrl(stored, MCP_URL.what, 'type it')).toBe(url)
      expect(secrets.sealUrl('https://mcp.example/mcp?team=a', undefined, MCP_URL)).toEqual({
        shown: 'https://mcp.example/mcp?team=a',
      })
    })

    it('keeps the stored credentials a URL sent back masked stands for, around whatever else changed', () => {
      const secrets = sealed()
      const before = secrets.sealUrl('https://mcp.example/mcp?api_key=k3y&team=a', undefined, MCP_URL)
      const moved = secrets.sealUrl(before.shown.replace('mcp.example', 'mcp2.example'), before, MCP_URL)
      expect(secrets.openUrl(moved, MCP_URL.what, 'type it')).toBe(
        'https://mcp2.example/mcp?api_key=k3y&team=a',
      )
      // Unchanged, the seal itself is kept (what a sign-in is bound to stays the same).
      expect(secrets.sealUrl(before.shown, before, MCP_URL).sealed).toBe(before.sealed)
      expect(() => secrets.sealUrl(`https://mcp.example/mcp?token=${MASKED_VALUE}`, before, MCP_URL)).toThrow(
        expect.objectContaining({ code: 'secret_missing' }),
      )
    })

    it("keeps each server's credentials in a broker's list, reordered", () => {
      const secrets = sealed()
      const before = secrets.sealUrl('nats://a:pa@h1:4222,nats://T0KEN@h2:4222', undefined, BROKER_URL)
      expect(before.shown).toBe(`nats://${MASKED_VALUE}@h1:4222,nats://${MASKED_VALUE}@h2:4222`)
      const reordered = `nats://${MASKED_VALUE}@h2:4222,nats://${MASKED_VALUE}@h1:4222`
      const after = secrets.sealUrl(reordered, before, BROKER_URL)
      expect(secrets.openUrl(after, BROKER_URL.what, 'type it')).toBe(
        'nats://T0KEN@h2:4222,nats://a:pa@h1:4222',
      )
    })
  })
})
