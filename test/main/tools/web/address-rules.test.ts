import { describe, expect, it } from 'vitest'
import { AddressRules } from '../../../../src-main/tools/web/address-rules'

describe('AddressRules', () => {
  describe('refusal', () => {
    it.each([
      ['127.0.0.1', 'loopback'],
      ['127.255.255.254', 'loopback'],
      ['::1', 'loopback'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['10.20.30.40', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.0.1', 'private'],
      ['169.254.169.254', 'link-local'],
      ['fe80::1', 'link-local'],
      ['fd12:3456::1', 'private (unique local)'],
      ['100.127.0.1', 'carrier-grade NAT'],
      ['0.0.0.0', '"this host"'],
      ['::', '"this host"'],
      ['224.0.0.251', 'multicast'],
      ['255.255.255.255', 'reserved'],
    ])('refuses %s, a %s address', (address, what) => {
      expect(new AddressRules().refusal('host.example', address)?.message).toContain(`it is a ${what}`)
    })

    it.each(['93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700::6810:85e5'])(
      'lets %s, a public address, go',
      (address) => {
        expect(new AddressRules().refusal('host.example', address)).toBeUndefined()
      },
    )

    it('lets through the names, addresses and blocks of allowedHosts, and nothing else', () => {
      const rules = new AddressRules(['intranet.example', '10.1.0.0/16', '::1', '[fd00::1]'])
      expect(rules.refusal('INTRANET.example.', '192.168.1.5')).toBeUndefined()
      expect(rules.refusal('other.example', '10.1.200.3')).toBeUndefined()
      expect(rules.refusal('other.example', '::1')).toBeUndefined()
      expect(rules.refusal('other.example', 'fd00::1')).toBeUndefined()
      expect(rules.refusal('other.example', '10.2.0.1')).toBeDefined()
      expect(rules.refusal('sub.intranet.example', '192.168.1.5')).toBeDefined()
    })

    it.each(['10.0.0.0/33', '10.0.0.0/8/1', 'not a host', '*.example', 'http://x.example', '::1/129'])(
      'refuses the allowedHosts entry %j, naming it',
      (entry) => {
        expect(() => new AddressRules([entry])).toThrow(`The allowedHosts entry "${entry}"`)
      },
    )
  })

  describe('assertWithoutLookup', () => {
    it('refuses addresses and localhost names, and leaves other names to the lookup', () => {
      const rules = new AddressRules()
      for (const host of [
        '127.0.0.1',
        '[::1]',
        'localhost',
        'LOCALHOST.',
        'app.localhost',
        '169.254.169.254',
      ])
        expect(() => rules.assertWithoutLookup(host), host).toThrow(/^Refused to connect to /)
      for (const host of ['example.com', 'localhost.example.com', '93.184.216.34'])
        expect(() => rules.assertWithoutLookup(host), host).not.toThrow()
    })

    it('lets localhost through when allowed by name or by the loopback address', () => {
      for (const allowed of ['localhost', '127.0.0.1', '127.0.0.0/8', '::1'])
        expect(() => new AddressRules([allowed]).assertWithoutLookup('localhost'), allowed).not.toThrow()
      expect(() => new AddressRules(['localhost']).assertWithoutLookup('app.localhost')).toThrow()
    })
  })
})
