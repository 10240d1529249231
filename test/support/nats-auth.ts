/**
 * Key material for a nats-server that asks for credentials, made at test time in a temp folder: an
 * nkey user, an operator-mode server with a user's `.creds` file (JWTs signed here with nkeys, as
 * `nsc` signs them), and a private CA with a server certificate for TLS (openssl).
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createAccount, createOperator, createUser, type KeyPair } from '@nats-io/nkeys'
import { requirePrerequisite } from './prerequisites'

/** A nats-server config file in `dir`; its path, for `-c`. */
function config(dir: string, name: string, text: string): string {
  const file = join(dir, `${name}.conf`)
  writeFileSync(file, text)
  return file
}

/** A server that lets in one nkey user: its config, and the user's seed. */
export function nkeyServer(dir: string): { config: string; seed: string } {
  const user = createUser()
  return {
    config: config(dir, 'nkey', `authorization { users: [ { nkey: ${user.getPublicKey()} } ] }\n`),
    seed: text(user.getSeed()),
  }
}

/**
 * An operator-mode server (its account preloaded in a memory resolver) and a `.creds` file of a
 * user of that account; `stranger` is the creds of a user of an account the server does not know.
 */
export function credsServer(dir: string): { config: string; creds: string; stranger: string } {
  const operator = createOperator()
  const account = createAccount()
  const operatorJwt = jwt(operator, operator, 'operator', {})
  const accountJwt = jwt(operator, account, 'account', {
    limits: {
      subs: -1,
      data: -1,
      payload: -1,
      imports: -1,
      exports: -1,
      wildcards: true,
      conn: -1,
      leaf: -1,
    },
  })
  const userCreds = (issuer: KeyPair, file: string) => {
    const user = createUser()
    const userJwt = jwt(issuer, user, 'user', { pub: {}, sub: {}, subs: -1, data: -1, payload: -1 })
    const path = join(dir, file)
    writeFileSync(
      path,
      `-----BEGIN NATS USER JWT-----\n${userJwt}\n------END NATS USER JWT------\n\n` +
        `-----BEGIN USER NKEY SEED-----\n${text(user.getSeed())}\n------END USER NKEY SEED------\n`,
    )
    return path
  }
  return {
    config: config(
      dir,
      'operator',
      `operator: ${operatorJwt}\nresolver: MEMORY\nresolver_preload: { ${account.getPublicKey()}: ${accountJwt} }\n`,
    ),
    creds: userCreds(account, 'user.creds'),
    stranger: userCreds(createAccount(), 'stranger.creds'),
  }
}

/** A server that speaks TLS only, with a certificate for 127.0.0.1 signed by a CA made here: its config and the CA file. */
export function tlsServer(dir: string): { config: string; caFile: string } {
  const path = (name: string) => join(dir, name)
  const program = requirePrerequisite('openssl')
  const openssl = (...args: string[]) => execFileSync(program, args, { cwd: dir, stdio: 'pipe' })
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=Test CA',
    '-keyout',
    path('ca.key'),
    '-out',
    path('ca.pem'),
  )
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    path('server.key'),
    '-out',
    path('server.csr'),
  )
  writeFileSync(path('san.ext'), 'subjectAltName = IP:127.0.0.1, DNS:localhost\n')
  openssl(
    'x509',
    '-req',
    '-in',
    path('server.csr'),
    '-CA',
    path('ca.pem'),
    '-CAkey',
    path('ca.key'),
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    path('san.ext'),
    '-out',
    path('server.pem'),
  )
  return {
    config: config(
      dir,
      'tls',
      `tls { cert_file: "${path('server.pem')}", key_file: "${path('server.key')}" }\n`,
    ),
    caFile: path('ca.pem'),
  }
}

/**
 * A NATS JWT (v2) of `subject`, signed by `issuer`: ed25519 over `header.claims`, with the claims'
 * hash as its `jti`, as the nats-jwt libraries write it.
 */
function jwt(issuer: KeyPair, subject: KeyPair, type: string, nats: Record<string, unknown>): string {
  const claims: Record<string, unknown> = {
    iat: Math.floor(Date.now() / 1000),
    iss: issuer.getPublicKey(),
    name: type,
    sub: subject.getPublicKey(),
    nats: { ...nats, type, version: 2 },
  }
  claims.jti = createHash('sha256').update(JSON.stringify(claims)).digest('base64url')
  const signed = `${base64url(JSON.stringify({ typ: 'JWT', alg: 'ed25519-nkey' }))}.${base64url(JSON.stringify(claims))}`
  return `${signed}.${Buffer.from(issuer.sign(new TextEncoder().encode(signed))).toString('base64url')}`
}

function base64url(textValue: string): string {
  return Buffer.from(textValue).toString('base64url')
}

function text(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes)
}
