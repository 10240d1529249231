/**
 * The tool-service SDK: write a service for Atelier in TypeScript.
 *
 *   class Jokes extends DynamicToolService {
 *     async invoke(user, config, args) { return `Hey ${user}! …` }
 *   }
 *   await new Jokes().serveNats({ servers, requestQueue, responseQueue })  // or .serveStdio()
 *
 * The wire envelope and the descriptors are src-shared/tool-services.ts, shared with Atelier.
 * See README.md here for the full contract.
 */
export type {
  NatsServiceDescriptor,
  ServiceAnnouncement,
  ServiceRequest,
  ServiceResponse,
  StdioServiceDescriptor,
  ToolDescriptor,
} from '../src-shared/tool-services'
export type { InvokeContext, InvokeFunction, InvokeResult, Log } from './calls'
export { SHUTDOWN_ERROR } from './calls'
export { sanitizeHeaderValue } from './envelope'
export type { AnnounceOptions, NatsServiceHandle, ServeNatsOptions } from './nats'
export { serveNats } from './nats'
export { DynamicToolService, ToolServiceError } from './service'
export type { ServeStdioOptions, StdioServiceHandle } from './stdio'
export { serveStdio } from './stdio'
