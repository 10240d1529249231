/**
 * Where Atelier's own web requests may go. A request from this machine reaches what this machine
 * reaches — its loopback services, the home or office network, a cloud's metadata endpoint — so the
 * addresses of those places are refused unless the person lets some through (`allowedHosts`). The
 * check is made on the address a name resolved to, by the lookup the connection itself uses, so no
 * second resolution can swap the address between the check and the connect (DNS rebinding).
 */
import { type LookupAddress, lookup as osLookup } from 'node:dns'
import { BlockList, isIP, type LookupFunction } from 'node:net'
import { ToolError } from '../errors'

/** A block of addresses refused by default, with the words a refusal says it in. */
interface RefusedRange {
  network: string
  prefix: number
  what: string
}

/**
 * The list (loopback, private, link-local and metadata, unique local, carrier-grade NAT,
 * `0.0.0.0`) widened where the same reasoning holds: all of `0.0.0.0/8` and `::` mean "this host" to
 * some stacks, and multicast and reserved blocks are never a web page. IPv4 written as IPv6
 * (`::ffff:127.0.0.1`) is matched against the IPv4 blocks by BlockList itself.
 */
const REFUSED_RANGES: readonly RefusedRange[] = [
  { network: '0.0.0.0', prefix: 8, what: '"this host" address' },
  { network: '127.0.0.0', prefix: 8, what: 'loopback address' },
  { network: '10.0.0.0', prefix: 8, what: 'private address' },
  { network: '172.16.0.0', prefix: 12, what: 'private address' },
  { network: '192.168.0.0', prefix: 16, what: 'private address' },
  { network: '169.254.0.0', prefix: 16, what: 'link-local address (where cloud metadata lives)' },
  { network: '100.64.0.0', prefix: 10, what: 'carrier-grade NAT address' },
  { network: '224.0.0.0', prefix: 4, what: 'multicast address' },
  { network: '240.0.0.0', prefix: 4, what: 'reserved address' },
  { network: '::', prefix: 128, what: '"this host" address' },
  { network: '::1', prefix: 128, what: 'loopback address' },
  { network: 'fc00::', prefix: 7, what: 'private (unique local) address' },
  { network: 'fe80::', prefix: 10, what: 'link-local address' },
  { network: 'ff00::', prefix: 8, what: 'multicast address' },
]

const REFUSED = REFUSED_RANGES.map((range) => {
  const list = new BlockList()
  list.addSubnet(range.network, range.prefix, familyOf(range.network))
  return { list, what: range.what }
})

function familyOf(address: string): 'ipv4' | 'ipv6' {
  return isIP(address) === 6 ? 'ipv6' : 'ipv4'
}

/** `[::1]` → `::1`, `Example.COM.` → `example.com`: a URL's host as the allow-list compares it. */
export function bareHost(hostname: string): string {
  return hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase()
}

/** An address that the rules refuse, said in words the model and the person can act on. */
export class AddressRefusedError extends ToolError {
  constructor(host: string, address: string, what: string) {
    const resolved = host === address ? address : `${host} (${address})`
    super(
      'blocked',
      `Refused to connect to ${resolved}: it is a ${what}, which web requests may not reach. ` +
        'The person can let it through with web_fetch’s allowedHosts setting.',
      { host, address },
    )
  }
}

/** The person's exceptions (`allowedHosts`), read once, and the refused blocks: what may be reached. */
export class AddressRules {
  private readonly hosts = new Set<string>()
  private readonly addresses = new BlockList()

  /**
   * Each entry is a host name (`intranet.example`, matched exactly), an address (`127.0.0.1`,
   * `::1`) or a CIDR block (`10.1.0.0/16`). Throws on an entry that is none of these, so a typo
   * does not silently allow nothing.
   */
  constructor(allowedHosts: readonly string[] = []) {
    for (const entry of allowedHosts.map((item) => item.trim()).filter(Boolean)) {
      const [network = '', prefix, extra] = bareHost(entry).split('/')
      const family = isIP(network)
      if (family !== 0) {
        const bits = prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix)
        if (extra !== undefined || !Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128))
          throw invalidEntry(entry)
        this.addresses.addSubnet(network, bits, familyOf(network))
      } else if (
        prefix === undefined &&
        /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(network)
      ) {
        this.hosts.add(network)
      } else {
        throw invalidEntry(entry)
      }
    }
  }

  /** Why a connection to `address`, reached by the name `host`, is refused; undefined when it may go. */
  refusal(host: string, address: string): AddressRefusedError | undefined {
    if (this.hosts.has(bareHost(host))) return undefined
    const family = familyOf(address)
    if (this.addresses.check(address, family)) return undefined
    const refused = REFUSED.find(({ list }) => list.check(address, family))
    return refused && new AddressRefusedError(bareHost(host), address, refused.what)
  }

  /**
   * Throws the refusal of a host that is known without a lookup: an address written in the URL
   * (the connection never looks it up), and `localhost` and the names below it, loopback by
   * definition (RFC 6761). Nothing is asked of DNS: a query would already carry the name out, before
   * anyone allowed the call.
   */
  assertWithoutLookup(hostname: string): void {
    const host = bareHost(hostname)
    if (isIP(host) !== 0) {
      const refusal = this.refusal(host, host)
      if (refusal) throw refusal
    } else if ((host === 'localhost' || host.endsWith('.localhost')) && !this.allowsLoopbackName(host)) {
      throw new AddressRefusedError(host, host, 'name for this machine (loopback)')
    }
  }

  /** The name itself is allowed, or an address rule covers the loopback it stands for. */
  private allowsLoopbackName(host: string): boolean {
    return (
      this.hosts.has(host) || this.addresses.check('127.0.0.1', 'ipv4') || this.addresses.check('::1', 'ipv6')
    )
  }

  /**
   * A `lookup` for `http.request` that resolves every address of the name, refuses the connection
   * when any of them is refused (a name that also points inside is not trusted for its other
   * answers), and hands the socket exactly the addresses it checked.
   */
  pinnedLookup(resolve: HostResolver = resolveHost): LookupFunction {
    return (hostname, options, callback) => {
      resolve(hostname).then(
        (addresses) => {
          const refusal = this.firstRefusal(hostname, addresses)
          if (refusal) return callback(refusal, '', 0)
          const wanted = options.family === 4 || options.family === 6 ? options.family : undefined
          const usable = addresses.filter(({ family }) => wanted === undefined || family === wanted)
          const [first] = usable
          if (!first) return callback(notFound(hostname), '', 0)
          if (options.all) return (callback as unknown as AllCallback)(null, usable)
          callback(null, first.address, first.family)
        },
        (error: NodeJS.ErrnoException) => callback(error, '', 0),
      )
    }
  }

  private firstRefusal(host: string, addresses: readonly LookupAddress[]): AddressRefusedError | undefined {
    for (const { address } of addresses) {
      const refusal = this.refusal(host, address)
      if (refusal) return refusal
    }
    return undefined
  }
}

type AllCallback = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void

/** Every address a host name resolves to. The OS resolver by default; tests give their own. */
export type HostResolver = (hostname: string) => Promise<LookupAddress[]>

function resolveHost(hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    osLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  )
}

function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' })
}

function invalidEntry(entry: string): ToolError {
  return new ToolError(
    'execution_failed',
    `The allowedHosts entry "${entry}" is not a host name, an address or a CIDR block (e.g. 10.0.0.0/8).`,
  )
}
